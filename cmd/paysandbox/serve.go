package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/app"
)

type serveOptions struct {
	Config Config
}

func newServeCmd(runF func(*serveOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "serve",
		Short:   "Serve the payment API, the client endpoints and the /_sandbox control plane",
		Example: "  paysandbox serve\n  paysandbox serve --db :memory: --addr :9090 --request-timeout 2s\n  PAYSANDBOX_WEBHOOK_URL=http://localhost:4000/webhooks paysandbox serve",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd.Flags(), os.LookupEnv)
			if err != nil {
				return err
			}
			opts := &serveOptions{Config: cfg}
			if runF != nil {
				return runF(opts)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, opts, cmd)
		},
	}
	serveFlags(cmd.Flags())
	lenientFlags(cmd.Flags()) // a bad flag value is reported with every other problem (loadConfig)
	return cmd
}

func runServe(ctx context.Context, opts *serveOptions, cmd *cobra.Command) error {
	a, err := app.Open(opts.Config, app.Options{LogOut: cmd.ErrOrStderr(), Version: currentBuild().Version})
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.Listen(); err != nil {
		return err
	}
	printStartup(cmd.ErrOrStderr(), a)
	if ctx == nil {
		ctx = context.Background()
	}
	reloadOnSIGHUP(ctx, a)
	tuneGC(ctx)
	err = a.Run(ctx)
	a.Log.Info("paysandbox stopped: no longer accepting requests, in-flight ones finished", "err", err)
	return err
}

// printStartup says once, at start, where the sandbox answers, with which
// key, where its data lives and, with --debug-addr, how to profile it.
func printStartup(w io.Writer, a *app.App) {
	key := a.Config.DefaultAPIKey() + " (tenant default)"
	if !a.Config.DefaultTenantOn() {
		key = "none: the default tenant is off (--no-default-tenant); create one with POST /_sandbox/tenants"
	}
	data := a.Config.DB
	if data == ":memory:" {
		data = "in memory (--db :memory:): nothing is kept after exit"
	} else if abs, err := filepath.Abs(data); err == nil {
		data = abs
	}
	rules := "built-in (paysandbox scenarios list shows them; --scenarios FILE replaces them)"
	if f := a.Config.Scenarios; f != "" {
		rules = f
		if abs, err := filepath.Abs(f); err == nil {
			rules = abs
		}
	}
	fmt.Fprintf(w, "paysandbox %s listening on %s\n  API key:  %s\n  data:     %s\n  rules:    %s\n  try:      curl -s %s/healthz\n",
		a.Version(), listening(a.Addrs()), key, data, rules, a.URL())
	if d := a.DebugAddr(); d != "" {
		fmt.Fprintf(w, "  profile:  go tool pprof http://%s/debug/pprof/profile?seconds=10 (--debug-addr, this machine only)\n", d)
	}
}

// listening names the bound addresses as URLs and says who can reach them:
// this machine only (loopback), every interface (the wildcard address), or
// the machines that reach the one interface named.
func listening(addrs []net.Addr) string {
	urls := make([]string, len(addrs))
	loopback, every := true, false
	for i, a := range addrs {
		urls[i] = "http://" + a.String()
		ta, ok := a.(*net.TCPAddr)
		loopback = loopback && ok && ta.IP.IsLoopback()
		every = every || app.EveryInterface(a)
	}
	s := strings.Join(urls, " and ")
	switch {
	case every:
		return s + ": every interface, so other machines can reach it (docs/sharing.md)"
	case loopback:
		return s + " (loopback: this machine only)"
	default:
		return s + " (other machines on that network can reach it)"
	}
}

// reloadOnSIGHUP reloads the scenarios on each SIGHUP until ctx ends; the
// outcome is logged.
func reloadOnSIGHUP(ctx context.Context, a *app.App) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				if err := a.ReloadScenarios(); err != nil {
					a.Log.Error("SIGHUP: scenarios not reloaded; the previous rules stay in force", "err", err.Error())
				} else {
					a.Log.Info("SIGHUP: scenarios reloaded", "scenarios", a.Config.Scenarios)
				}
			}
		}
	}()
}
