package service

import (
	"log/slog"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// Service is the use cases of the sandbox, one file per noun. Every
// method that acts for a merchant takes the caller's tenant, resolved by
// Authenticate; records of other tenants behave as unknown.
//
// Its ports are its own: adapters (httpapi, the dashboard, the webhook
// dispatcher) ask it through methods that hand out values they own, and
// never open a store transaction themselves.
type Service struct {
	store     simulator.Store
	clock     simulator.Clock
	ids       simulator.IDGen
	cards     *cards.Catalog
	processor simulator.Processor
	log       *slog.Logger
	// attemptTTL is how long a payment attempt awaits approval.
	attemptTTL time.Duration
	// held caps the requests each tenant holds open and ends them at shutdown.
	held *Held
	// endpoints admits webhook endpoints (nil: any well-formed URL); see
	// CheckWebhookEndpoint.
	endpoints simulator.EndpointPolicy
	// advanceWait bounds how long a clock advance waits for the webhook
	// attempts it makes due (docs/webhooks.md).
	advanceWait time.Duration

	waits waitHub
	// sched is made by NewService: the service kicks it after storing a
	// job, it runs the service's jobs (the cycle stays inside this package).
	sched *Scheduler
	// renderer renders the webhook bodies the service shows (EventBody,
	// SentBody; nil: only bodies stored in the body form). Config.Renderer.
	renderer simulator.EventRenderer
	// webhooks is the dispatcher port (nil: none attached): events are
	// announced to it, a clock advance runs and waits for the attempts it
	// makes due, Kick wakes it. Made by Config.Webhooks inside NewService.
	webhooks WebhookRunner
	// instance prefixes the credentials the service issues (Config.Instance).
	instance string
	// webhookVersion is Config.WebhookVersion.
	webhookVersion simulator.APIVersion
	// observers is the registration point of what watches the sandbox:
	// the report counts and the migration notes (report, migration) and
	// Config.Observers.
	observers *observe.Point
	report    *observe.Report
	migration *observe.Migration
	// commits is the Store as the interceptors decorate it, for the writes
	// made for a step (update; nil: no interceptor).
	commits observe.ContextStore
	// retention is Config.Retention (the default when zero).
	retention Retention
}

// Config is what NewService needs besides the ports.
type Config struct {
	AttemptTTL time.Duration
	// MaxHeldPerTenant caps each tenant's open long-polls and streams
	// (0: DefaultMaxHeldPerTenant).
	MaxHeldPerTenant int
	// Endpoints admits webhook endpoints (serve's --webhook-allow; nil: any).
	Endpoints simulator.EndpointPolicy
	// AdvanceWait bounds how long a clock advance waits for the webhook
	// attempts it makes due (0: DefaultAdvanceWait).
	AdvanceWait time.Duration
	// Renderer renders the webhook bodies the service shows (the event
	// detail, waits, the dashboard); nil shows only the bodies stored in the
	// body form (Event.Body). Events carry what their body is rendered
	// from either way.
	Renderer simulator.EventRenderer
	// Webhooks makes the service's webhook dispatcher (nil: none, events
	// stay PENDING for whoever attempts them). The dispatcher and the
	// service need each other, so NewService calls it once, last, with the
	// service built but for this port; the function must keep the service
	// for later and not call its methods before NewService returns. The
	// composition root keeps what it returns to run it (a closure).
	Webhooks func(*Service) WebhookRunner
	// Instance names this instance among several behind one proxy (serve's
	// --instance): the tenant ids, API keys, client tokens and 3DS
	// challenge tokens it issues carry it as a prefix
	// (simulator.WithInstance), and a credential of another instance is
	// refused naming both. Empty: no prefix, as a single instance.
	Instance string
	// WebhookVersion is the webhook version of tenants created without one
	// (serve's webhook_version; "": the current version).
	WebhookVersion simulator.APIVersion
	// MigrationFlush is how often, at most, a tenant's migration notes and
	// report counts are written to the store (0: observe.DefaultFlush).
	MigrationFlush time.Duration
	// Observed keeps the observers' records (nil: the Store, when it
	// implements observe.Store, as store.DB does; else in memory).
	Observed observe.Store
	// Observers are told what happened besides the report counts and the
	// migration notes (observe.Observer), after them.
	Observers []observe.Observer
	// Tracer traces rule matching, processor calls, store commits and
	// scheduled jobs, and gives events the trace context of what caused
	// them (nil: nothing is traced, at no cost): the first interceptor.
	Tracer Tracer
	// Interceptors decorate the ports the use cases call, after the
	// Tracer's (observe.Interceptor).
	Interceptors []observe.Interceptor
	// Retention is the bound of each tenant's delivery log, the one the
	// webhook dispatcher applies (zero: DefaultRetention): a snapshot import
	// keeps no more than it (Retention()).
	Retention Retention
}

// DefaultAttemptTTL is how long a payment attempt awaits approval when none
// is configured (tenant clock).
const DefaultAttemptTTL = 15 * time.Minute

// DefaultAdvanceWait is the bound on a clock advance's wait for webhook
// attempts when none is configured.
const DefaultAdvanceWait = 30 * time.Second

// NewService wires the use cases to their ports and returns them fully
// wired: its scheduler (Scheduler) and, with cfg.Webhooks, its dispatcher
// are made here, and nothing is attached to the service afterwards.
func NewService(st simulator.Store, clk simulator.Clock, ids simulator.IDGen, catalog *cards.Catalog, proc simulator.Processor, log *slog.Logger, cfg Config) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.AttemptTTL <= 0 {
		cfg.AttemptTTL = DefaultAttemptTTL
	}
	if cfg.AdvanceWait <= 0 {
		cfg.AdvanceWait = DefaultAdvanceWait
	}
	s := &Service{store: st, clock: clk, ids: ids, cards: catalog, processor: proc, log: log, attemptTTL: cfg.AttemptTTL,
		held: NewHeld(cfg.MaxHeldPerTenant), endpoints: cfg.Endpoints,
		advanceWait: cfg.AdvanceWait, renderer: cfg.Renderer, instance: cfg.Instance, webhookVersion: cfg.WebhookVersion}
	if cfg.Retention == (Retention{}) {
		cfg.Retention = DefaultRetention
	}
	s.retention = cfg.Retention
	s.observe(st, log, cfg)
	s.held.keep = st.Hold
	s.sched = newScheduler(s)
	if cfg.Webhooks != nil {
		s.webhooks = cfg.Webhooks(s)
	}
	return s
}

// Retention is the bound of each tenant's delivery log (Config.Retention).
func (s *Service) Retention() Retention { return s.retention }

// Instance is this instance's name (Config.Instance; empty: none).
func (s *Service) Instance() string { return s.instance }

// credential is a new credential as this instance issues it.
func (s *Service) credential(kind simulator.IDKind) string {
	return simulator.WithInstance(s.instance, s.ids.NewID(kind))
}

// tenantCredential is a new token of tenant tid (client and 3DS challenge
// tokens): it carries the tenant (simulator.WithTenant) and this instance.
func (s *Service) tenantCredential(tid string, kind simulator.IDKind) string {
	return simulator.WithInstance(s.instance, simulator.WithTenant(tid, s.ids.NewID(kind)))
}

// sessionToken is a new client token of session sid of tenant tid: it
// carries the tenant and the session (simulator.WithSession) and this
// instance.
func (s *Service) sessionToken(tid, sid string) string {
	return simulator.WithInstance(s.instance, simulator.WithSession(tid, sid, s.ids.NewID(simulator.IDClientToken)))
}

// Held is the cap on the requests each tenant holds open (long-polls,
// event streams); Held().Stop ends them at shutdown.
func (s *Service) Held() *Held { return s.held }

// Logger is the service's log, for the adapters that work on its behalf
// (the webhook dispatcher).
func (s *Service) Logger() *slog.Logger { return s.log }

// EndpointPolicy admits webhook endpoints (Config.Endpoints; nil: any
// well-formed URL), for the client that delivers to them.
func (s *Service) EndpointPolicy() simulator.EndpointPolicy { return s.endpoints }

// ServerNow is the server's clock, without any tenant's offset (Now is a
// tenant's).
func (s *Service) ServerNow() time.Time { return s.clock.Now() }

// TestCards lists the test-card catalogue in file order; the slice is the
// caller's.
func (s *Service) TestCards() []cards.Card { return s.cards.Cards() }

// Scheduler returns the service's scheduler (run it with Scheduler().Run).
func (s *Service) Scheduler() *Scheduler { return s.sched }

// Kick wakes the scheduler, and the dispatcher when one is attached, to
// look at the store again; the service calls it after storing a job.
// Whoever stores jobs or events without the service (bench) calls it too.
func (s *Service) Kick() {
	s.sched.Kick()
	if s.webhooks != nil {
		s.webhooks.Wake()
	}
}

// now is the tenant's clock.
func (s *Service) now(t *simulator.Tenant) time.Time { return t.Now(s.clock) }
