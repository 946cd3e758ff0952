package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

type serveOptions struct {
	Config Config
}

func newServeCmd(runF func(*serveOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the payment API, the client endpoints and the /_sandbox control plane",
		Args:  cobra.NoArgs,
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
	return cmd
}

func runServe(ctx context.Context, opts *serveOptions, cmd *cobra.Command) error {
	app, err := Open(opts.Config, AppOptions{LogOut: cmd.ErrOrStderr()})
	if err != nil {
		return err
	}
	defer app.Close()
	if err := app.Listen(); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "paysandbox %s listening on %s (db %s)\n", version, app.Addr(), opts.Config.DB)
	if ctx == nil {
		ctx = context.Background()
	}
	reloadOnSIGHUP(ctx, app)
	return app.Run(ctx)
}
