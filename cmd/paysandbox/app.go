package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// AppOptions are what tests (and serve) inject into the composition root.
type AppOptions struct {
	LogOut io.Writer       // default stderr
	Clock  simulator.Clock // default the real clock
	IDs    simulator.IDGen // default random ids
}

// App is the one composition root, shared by main and the end-to-end tests:
// Open wires the store, the domain, the processors and the HTTP server;
// Listen and Run serve; Close releases everything.
type App struct {
	Config Config
	DB     *store.DB
	Svc    *simulator.Service
	Server *httpapi.Server
	Log    *slog.Logger

	ln     net.Listener
	http   *http.Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Open builds the application from a validated configuration.
func Open(cfg Config, opt AppOptions) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opt.LogOut == nil {
		opt.LogOut = os.Stderr
	}
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.IDs == nil {
		opt.IDs = simulator.RandomIDs{}
	}
	log := newLogger(opt.LogOut, cfg.LogFormat, cfg.LogLevel)
	if cfg.Scenarios != "" {
		log.Warn("scenarios are not supported yet: the file is ignored and the test-card catalogue decides outcomes", "scenarios", cfg.Scenarios)
	}
	cards, err := simulator.ParseCardCatalog(fixtures.Cards)
	if err != nil {
		return nil, fmt.Errorf("card catalogue: %w", err)
	}
	db, err := store.Open(cfg.DB, cfg.Fsync)
	if err != nil {
		return nil, err
	}
	proc := processors.NewFake(processors.DefaultAccounts())
	svc := simulator.NewService(db, opt.Clock, opt.IDs, cards, proc, log, simulator.Config{AttemptTTL: cfg.AttemptTTL})
	a := &App{Config: cfg, DB: db, Svc: svc, Log: log}
	if err := a.ensureTenants(); err != nil {
		db.Close()
		return nil, err
	}
	a.Server = httpapi.New(svc, httpapi.Options{
		RequestTimeout: cfg.RequestTimeout, AdminKey: cfg.AdminKey, Ready: db.Ready, Logger: log, Version: version,
		JournalSize: cfg.JournalSize,
	})
	return a, nil
}

// ensureTenants creates the default tenant and the config file's tenants.
func (a *App) ensureTenants() error {
	specs := []simulator.TenantSpec{{
		ID: simulator.DefaultTenantID, SigningSecret: simulator.DefaultSigningSecret, WebhookURL: a.Config.WebhookURL,
		APIKeys: []simulator.APIKey{{Key: simulator.DefaultAPIKey, Scopes: simulator.AllScopes}},
	}}
	for _, t := range a.Config.Tenants {
		spec := simulator.TenantSpec{ID: t.ID, SigningSecret: t.SigningSecret, WebhookURL: t.WebhookURL, First6Digits: t.First6Digits}
		if spec.SigningSecret == "" {
			spec.SigningSecret = t.ID + "-signing-secret"
		}
		for _, k := range t.APIKeys {
			scopes := simulator.AllScopes
			if len(k.Scopes) > 0 {
				scopes = nil
				for _, s := range k.Scopes {
					scopes = append(scopes, simulator.Scope(s))
				}
			}
			spec.APIKeys = append(spec.APIKeys, simulator.APIKey{Key: k.Key, Scopes: scopes})
		}
		specs = append(specs, spec)
	}
	if !a.Config.DefaultTenantOn() { // --no-default-tenant: the public key must not answer
		specs = specs[1:]
		if _, err := a.Svc.RevokeAPIKey(simulator.DefaultAPIKey); err != nil {
			return fmt.Errorf("revoking the default key: %w", err)
		}
	}
	for _, s := range specs {
		if _, err := a.Svc.EnsureTenant(s); err != nil {
			return fmt.Errorf("tenant %s: %w", s.ID, err)
		}
	}
	return nil
}

// Listen binds the configured address (":0" picks a free port).
func (a *App) Listen() error {
	ln, err := net.Listen("tcp", a.Config.Addr)
	if err != nil {
		return err
	}
	a.ln = ln
	return nil
}

// Addr is the bound address.
func (a *App) Addr() string {
	if a.ln == nil {
		return a.Config.Addr
	}
	return a.ln.Addr().String()
}

// URL is the base URL of the bound server.
func (a *App) URL() string {
	addr := a.Addr()
	if strings.HasPrefix(addr, "[::]") || strings.HasPrefix(addr, "0.0.0.0") {
		addr = "127.0.0.1" + addr[strings.LastIndex(addr, ":"):]
	}
	return "http://" + addr
}

// Start serves in the background (tests); Run blocks until ctx ends.
func (a *App) Start() error {
	if a.ln == nil {
		if err := a.Listen(); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	a.http = &http.Server{Handler: a.Server, ReadHeaderTimeout: 10 * time.Second}
	a.wg.Add(2)
	go func() { defer a.wg.Done(); a.Svc.Scheduler().Run(ctx) }()
	go func() {
		defer a.wg.Done()
		if err := a.http.Serve(a.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.Log.Error("http server", "err", err)
		}
	}()
	return nil
}

// Run serves until ctx is done, then shuts down gracefully: stop accepting,
// finish in-flight requests, stop the scheduler.
func (a *App) Run(ctx context.Context) error {
	if err := a.Start(); err != nil {
		return err
	}
	<-ctx.Done()
	return a.Shutdown()
}

// Shutdown stops the server and the scheduler (in-flight requests finish).
func (a *App) Shutdown() error {
	if a.http == nil {
		return nil
	}
	sctx, cancel := context.WithTimeout(context.Background(), a.Config.RequestTimeout+5*time.Second)
	defer cancel()
	err := a.http.Shutdown(sctx)
	a.cancel()
	a.wg.Wait()
	a.http = nil
	return err
}

// Close shuts down if needed and closes the store.
func (a *App) Close() error {
	return errors.Join(a.Shutdown(), a.DB.Close())
}

func newLogger(w io.Writer, format, level string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
