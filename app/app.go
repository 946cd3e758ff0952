package app

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

	"github.com/paysandbox/paysandbox/dashboard"
	"github.com/paysandbox/paysandbox/internal/forwarded"
	"github.com/paysandbox/paysandbox/internal/redact"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/tracing"
	"github.com/paysandbox/paysandbox/webhooks"
)

// Options are what tests (and serve) inject into the composition root.
type Options struct {
	LogOut io.Writer       // default stderr
	Clock  simulator.Clock // default the real clock
	IDs    simulator.IDGen // default random ids
	// UI configures the dashboard (its webhooks, scenarios and journal sources).
	UI dashboard.Options
	// Resolver answers host names for --webhook-allow (default the system's).
	Resolver webhooks.Resolver
	// Env reads the standard OTEL_EXPORTER_OTLP_* variables that turn
	// tracing on without --otel-endpoint (default os.LookupEnv).
	Env func(string) (string, bool)
	// Version is the build's version, named by the server and the traces
	// (default "dev").
	Version string
	// Processor, when set, wraps the fake processors as the service calls
	// them (tests: a slow processor).
	Processor func(simulator.Processor) simulator.Processor
}

// App is the one composition root, shared by main and the end-to-end tests:
// Open wires the store, the domain, the processors and the HTTP server;
// Listen and Run serve; Close releases everything.
type App struct {
	Config Config
	DB     *store.DB
	Svc    *service.Service
	Server *httpapi.Server
	Log    *slog.Logger
	// UI is the dashboard; Handler serves it and the API on one server.
	UI      *dashboard.Server
	Handler http.Handler
	// Processors are the fake processors; ReloadScenarios swaps their rules.
	Processors *processors.Fake
	// Webhooks delivers the outbox (docs/webhooks.md).
	Webhooks *webhooks.Dispatcher

	version string // Options.Version

	ln     net.Listener
	addrs  []net.Addr           // what ln listens on (127.0.0.1 and [::1] for loopback)
	conns  *httpapi.ConnLimiter // the connection cap around ln
	debug  *profiler            // --debug-addr's listener (nil when off)
	http   *http.Server
	logBuf *logBuffer // nil when the log is discarded
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// stopBy is when the stop must be over: ShutdownTimeout after it began
	// (the first Shutdown or Close). Every step of the stop gets what is
	// left of it.
	stopBy time.Time
	// tracing exports traces (--otel-endpoint); its ports are nil when off.
	tracing appTracing
}

// Open builds the application from a validated configuration.
func Open(cfg Config, opt Options) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg, opt = withDefaults(cfg, opt)
	var logBuf *logBuffer
	if opt.LogOut != io.Discard { // requests never wait for the log output
		logBuf = newLogBuffer(opt.LogOut)
		opt.LogOut = logBuf
	}
	log := newLogger(opt.LogOut, cfg.LogFormat, cfg.LogLevel)
	rules, err := loadScenarios(cfg.Scenarios) // a missing or invalid file stops the start
	if err != nil {
		closeLog(logBuf)
		return nil, err
	}
	guard, trust, err := cfg.edges(opt.Resolver)
	if err != nil {
		closeLog(logBuf)
		return nil, err
	}
	catalog, err := store.ShippedCards()
	if err != nil {
		closeLog(logBuf)
		return nil, fmt.Errorf("card catalogue: %w", err)
	}
	db, err := store.Open(cfg.DB, cfg.Fsync, store.Options{IdleClose: cfg.TenantIdleClose, MaxOpen: cfg.MaxOpenTenants, Log: log})
	if err != nil {
		closeLog(logBuf)
		return nil, err
	}
	tr, err := openTracing(cfg, opt.Env, tracing.Options{Version: opt.Version, Log: log})
	if err != nil {
		db.Close()
		closeLog(logBuf)
		return nil, err
	}
	if len(cfg.AllowedHost) > 0 && !loopbackAddr(cfg.Addr) {
		log.Warn("allowed_host has no effect: only a loopback-bound server checks the Host header, and this one listens on "+cfg.Addr, "allowed_host", cfg.AllowedHost)
	}
	proc := processors.NewFake(rules, nil)
	a := &App{Config: cfg, version: opt.Version, DB: db, Log: log, Processors: proc, logBuf: logBuf, tracing: tr}
	var svcProc simulator.Processor = proc
	if opt.Processor != nil {
		svcProc = opt.Processor(proc)
	}
	svc := service.NewService(db, opt.Clock, opt.IDs, catalog, svcProc, log, service.Config{
		AttemptTTL: cfg.AttemptTTL, MaxHeldPerTenant: cfg.MaxWaitsPerTenant, Endpoints: guard, AdvanceWait: cfg.AdvanceWait,
		Renderer: webhooks.Renderer{}, Webhooks: webhooks.Attach(&a.Webhooks, a.webhookOptions()),
		Instance:       cfg.Instance,
		WebhookVersion: simulator.APIVersion(cfg.WebhookVersion),
		Tracer:         tr.service,
		Retention:      a.retention(),
	})
	a.Svc = svc
	if err := a.prepareTenants(); err != nil {
		a.closeTracing()
		db.Close()
		closeLog(logBuf)
		return nil, err
	}
	if err := a.buildHandler(opt.UI, trust); err != nil {
		a.closeTracing()
		db.Close()
		return nil, err
	}
	if err := a.seed(); err != nil { // after the server: a snapshot's journal is the server's
		a.closeTracing()
		db.Close()
		closeLog(logBuf)
		return nil, err
	}
	return a, nil
}

// withDefaults is cfg and opt with their zero values replaced by the
// defaults: stderr, the real clock, random ids, the limits' defaults.
func withDefaults(cfg Config, opt Options) (Config, Options) {
	if opt.LogOut == nil {
		opt.LogOut = os.Stderr
	}
	if cfg.ShutdownTimeout == 0 { // zero values of the limits are their defaults
		cfg.ShutdownTimeout = httpapi.DefaultShutdownTimeout
	}
	if cfg.MaxConnections == 0 {
		cfg.MaxConnections = httpapi.DefaultMaxConnections
	}
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.IDs == nil {
		opt.IDs = simulator.RandomIDs{}
	}
	if opt.Env == nil {
		opt.Env = os.LookupEnv
	}
	if opt.Version == "" {
		opt.Version = "dev"
	}
	return cfg, opt
}

// prepareTenants converts stored tenant ttls to the wall clock (before the
// scheduler runs) and makes the configured tenants exist.
func (a *App) prepareTenants() error {
	if n, err := a.Svc.ConvertTenantExpiries(); err != nil {
		return fmt.Errorf("converting tenant ttls to the wall clock: %w", err)
	} else if n > 0 {
		a.Log.Info("tenant ttls now run on the wall clock; each kept its remaining lifetime", "tenants", n)
	}
	return a.ensureTenants()
}

// buildHandler makes the API server and the dashboard (ui with the app's
// logger, trust, prefill key and sources filled in) and the handler serving
// both.
func (a *App) buildHandler(ui dashboard.Options, trust *forwarded.Trust) error {
	cfg, log := a.Config, a.Log
	a.Server = httpapi.New(a.Svc, httpapi.Options{
		RequestTimeout: cfg.RequestTimeout, AdminKey: cfg.AdminKey, Ready: a.DB.Ready, Logger: log, Version: a.version,
		ReadTimeout: cfg.ReadTimeout, IdleTimeout: cfg.IdleTimeout,
		OnChaos:     a.Webhooks.ResetChaos,
		JournalSize: cfg.JournalSize,
		Trust:       trust,
		// The API's 3DS challengeUrl is the dashboard's challenge page.
		ChallengePage: dashboard.ChallengePageURL,

		SnapshotMaxBytes: cfg.SnapshotMaxBytes,
		Tracer:           a.tracing.http,
		Hosts:            cfg.hosts(),
	})
	if ui.Logger == nil {
		ui.Logger = log
	}
	ui.Trust = trust
	ui.Instance = cfg.Instance
	if ui.PrefillKey == "" {
		ui.PrefillKey = cfg.DefaultAPIKey()
	}
	// The dashboard's sources and the webhook-non-2xx hint (ui_sources.go).
	a.UISources(&ui)
	var err error
	if a.UI, err = dashboard.New(a.Svc, ui); err != nil {
		return err
	}
	a.Handler = a.UI.Wrap(a.Server.Routes())
	if name := cfg.Instance; name != "" {
		a.Handler = instanceHeader(name, a.Handler)
	}
	return nil
}

// hosts are the Host names the server answers: on a loopback address,
// localhost, the loopback IPs and --allowed-host (a page whose name was
// pointed at 127.0.0.1 must not reach it); elsewhere any (nil).
func (c Config) hosts() *httpapi.Hosts {
	if !loopbackAddr(c.Addr) {
		return nil
	}
	return httpapi.LoopbackHosts(c.AllowedHost)
}

// instanceHeader names the instance on every answer (X-Paysandbox-Instance),
// so whoever runs several behind a proxy sees which one answered.
func instanceHeader(name string, next http.Handler) http.Handler {
	v := []string{name}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Paysandbox-Instance"] = v
		next.ServeHTTP(w, r)
	})
}

// edges builds what stands between the server and the network: the webhook
// guard (--webhook-allow), with every endpoint of the configuration checked
// against it (a refused one stops the start, naming the key and the rule),
// and the trusted proxies (--trusted-proxy).
func (c Config) edges(r webhooks.Resolver) (*webhooks.Guard, *forwarded.Trust, error) {
	guard, err := webhooks.NewGuard(c.WebhookAllow, r)
	if err != nil {
		return nil, nil, fmt.Errorf("config: webhook_allow: %w", err)
	}
	trust, err := forwarded.New(c.TrustedProxy)
	if err != nil {
		return nil, nil, fmt.Errorf("config: trusted_proxy: %w", err)
	}
	keys, urls := c.webhookURLs()
	var errs []error
	for i, u := range urls {
		if err := service.CheckWebhookEndpoint(guard, u); err != nil {
			errs = append(errs, fmt.Errorf("%s: %q %w", keys[i], u, err))
		}
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return guard, trust, nil
}

// ensureTenants creates the default tenant and the config file's tenants.
func (a *App) ensureTenants() error {
	specs := []service.TenantSpec{{
		ID: simulator.DefaultTenantID, SigningSecret: simulator.DefaultSigningSecret, WebhookURL: a.Config.WebhookURL,
		WebhookVersion: simulator.APIVersion(a.Config.WebhookVersion),
		APIKeys:        []simulator.APIKey{{Key: a.Config.DefaultAPIKey(), Scopes: simulator.AllScopes}},
	}}
	for _, t := range a.Config.Tenants {
		spec := service.TenantSpec{ID: t.ID, SigningSecret: t.SigningSecret, WebhookURL: t.WebhookURL, First6Digits: t.First6Digits,
			WebhookVersion: simulator.APIVersion(t.WebhookVersion).OrDefault(simulator.APIVersion(a.Config.WebhookVersion))}
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
			if in := a.Config.Instance; in != "" && simulator.InstanceOf(k.Key) != in {
				a.Log.Warn("a config tenant's API key lacks this instance's prefix: a proxy routing by prefixes cannot send its requests here", "tenant", t.ID, "instance", in, "prefix", in+simulator.InstanceSep)
			}
		}
		specs = append(specs, spec)
	}
	if !a.Config.DefaultTenantOn() { // --no-default-tenant: the public key must not answer
		specs = specs[1:]
		for _, k := range []string{simulator.DefaultAPIKey, a.Config.DefaultAPIKey()} {
			if _, err := a.Svc.RevokeAPIKey(k); err != nil {
				return fmt.Errorf("revoking the default key: %w", err)
			}
		}
	}
	for _, s := range specs {
		if _, err := a.Svc.EnsureTenant(s); err != nil {
			return fmt.Errorf("tenant %s: %w", s.ID, err)
		}
	}
	return nil
}

// Listen binds the configured address (":0" picks a free port; a loopback
// address listens on both families, listen.go) and, with --debug-addr, the
// profiler's.
func (a *App) Listen() error {
	ln, err := listen(a.Config.Addr, a.Log)
	if err != nil {
		return err
	}
	if a.Config.DebugAddr != "" {
		if a.debug, err = listenProfiler(a.Config.DebugAddr); err != nil {
			_ = ln.Close()
			return err
		}
	}
	a.addrs = boundAddrs(ln)
	a.conns = httpapi.LimitListener(ln, a.Config.MaxConnections)
	a.ln = a.conns
	return nil
}

// DebugAddr is the profiler's bound address ("" when --debug-addr is off
// or before Listen).
func (a *App) DebugAddr() string {
	if a.debug == nil {
		return ""
	}
	return a.debug.addr()
}

// Tracer is the trace exporter of --otel-endpoint (nil when tracing is
// off); its Flush exports the spans that ended.
func (a *App) Tracer() *tracing.Tracer { return a.tracing.tracer }

// Conns is the MaxConnections cap around the listener, which counts the
// open and refused connections (nil before Listen).
func (a *App) Conns() *httpapi.ConnLimiter { return a.conns }

// Addrs are the bound addresses (nil before Listen).
func (a *App) Addrs() []net.Addr { return a.addrs }

// Version is the build's version the server reports (Options.Version, "dev"
// when it was empty).
func (a *App) Version() string { return a.version }

// Addr is the bound address (the first: 127.0.0.1's for loopback).
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
	a.http = a.Server.HTTPServer(a.Handler, a.conns)
	a.http.RegisterOnShutdown(a.UI.Close) // end the dashboard's event streams
	a.wg.Add(3)
	go func() { defer a.wg.Done(); a.Svc.Scheduler().Run(ctx) }()
	go func() { defer a.wg.Done(); a.Webhooks.Run(ctx) }()
	go func() {
		defer a.wg.Done()
		if err := a.http.Serve(a.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.Log.Error("http server", "err", err)
		}
	}()
	if p := a.debug; p != nil {
		a.wg.Go(func() { p.serve(func(err error) { a.Log.Error("profiler (debug_addr)", "err", err) }) })
	}
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

// Shutdown stops the server and the scheduler: stop accepting, cut bodies
// still arriving, answer open long-polls and streams with their current
// state, close connections that never sent a request, wait at most
// ShutdownTimeout for in-flight requests, then answer the merchant and
// client requests still held (a timeout rule, a latency) with their 504
// RequestTimeout (httpapi.Server.Cut) and close the rest, cut the webhook
// attempts still in flight at that deadline (webhooks.Dispatcher.Cut),
// and store the migration notes and report counts still counted in
// memory. The timeout counts from the stop's start (stopContext). Running
// past it is logged, not an error: the process still exits 0.
func (a *App) Shutdown() error {
	sctx, cancel := a.stopContext()
	defer cancel()
	if a.http == nil {
		if a.ln != nil { // bound, never served
			_ = a.ln.Close()
			a.ln = nil
		}
		a.closeProfiler()
		return nil
	}
	a.Server.Drain()
	if a.conns != nil {
		a.conns.CloseUnused()
	}
	if err := a.http.Shutdown(sctx); err != nil {
		if n := a.Server.Cut(); n > 0 {
			a.Log.Warn("shutdown: requests still held at the shutdown timeout answered 504 RequestTimeout", "requests", n)
		}
		a.Log.Warn("shutdown: in-flight requests cut at the shutdown timeout", "timeout", a.Config.ShutdownTimeout.String(), "err", err)
		_ = a.http.Close()
	}
	// The profiler answers while in-flight requests finish (a slow stop can
	// be profiled), then its requests are cut: it adds nothing to the budget.
	a.closeProfiler()
	// Webhook attempts in flight may finish until the deadline; then they
	// are cut (recorded as failed, retried after a restart).
	defer context.AfterFunc(sctx, a.Webhooks.Cut)()
	a.cancel()
	a.wg.Wait()
	a.http = nil
	if err := a.Svc.FlushCounts(); err != nil {
		a.Log.Error("shutdown: migration notes and report counts not stored", "err", err)
	}
	return nil
}

// Close shuts down if needed, exports the spans still queued and closes
// the store, all within the one ShutdownTimeout counted from the stop's
// start: the exporter gets what the shutdown left of it, and once it is
// spent the store skips its shrink (the next open does it). What runs past
// the deadline is bounded apart from it: the dispatcher's and scheduler's
// return, the store's flush and close.
func (a *App) Close() error {
	err := a.Shutdown()
	ctx, cancel := a.stopContext()
	defer cancel()
	err = errors.Join(err, a.tracing.close(ctx), a.DB.CloseContext(ctx))
	closeLog(a.logBuf)
	return err
}

// closeProfiler closes --debug-addr's listener and its requests (nothing
// when off or closed).
func (a *App) closeProfiler() {
	if a.debug != nil {
		a.debug.close()
		a.debug = nil
	}
}

// closeTracing stops the exporter of an app that did not open, within
// ShutdownTimeout.
func (a *App) closeTracing() {
	ctx, cancel := a.stopContext()
	defer cancel()
	_ = a.tracing.close(ctx)
}

// stopContext is a context whose deadline is the stop's (stopBy), set at
// the first call.
func (a *App) stopContext() (context.Context, context.CancelFunc) {
	if a.stopBy.IsZero() {
		a.stopBy = time.Now().Add(a.Config.ShutdownTimeout)
	}
	return context.WithDeadline(context.Background(), a.stopBy)
}

// closeLog writes the queued log lines (nil: nothing to do).
func closeLog(l *logBuffer) {
	if l != nil {
		_ = l.Close()
	}
}

// newLogger masks card numbers, security codes and URL tokens in every
// line (internal/redact), as the journal does.
func newLogger(w io.Writer, format, level string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(redact.Handler(slog.NewJSONHandler(w, opts)))
	}
	return slog.New(redact.Handler(slog.NewTextHandler(w, opts)))
}

// retention is the bound of each tenant's delivery log: the dispatcher
// prunes to it, a snapshot import trims to it.
func (a *App) retention() service.Retention {
	return service.Retention{Keep: a.Config.WebhookRetentionCount, MaxAge: a.Config.WebhookRetentionAge}
}

// webhookOptions configures the service's dispatcher (made inside
// NewService by webhooks.Attach). A failed attempt is reported to the
// server's journal (webhookHint); the server is built after the service it
// serves, so the hook reads a.Server when an attempt is recorded, which is
// only once Run has started the dispatcher.
func (a *App) webhookOptions() webhooks.Options {
	return webhooks.Options{
		Timeout:        a.Config.WebhookTimeout,
		SlotsPerTenant: a.Config.WebhookSlotsPerTenant,
		Retention:      a.retention(),
		Tracer:         a.tracing.webhooks,
		OnAttempt: func(tenantID string, ev *simulator.Event, at simulator.DeliveryAttempt) {
			webhookHint(a.Server)(tenantID, ev, at)
		},
	}
}
