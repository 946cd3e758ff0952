package simulator

import (
	"log/slog"
	"time"
)

// Service is the use cases of the sandbox, one per file (svc_*.go). Every
// method that acts for a merchant takes the caller's tenant, resolved by
// Authenticate; records of other tenants behave as unknown.
type Service struct {
	Store     Store
	Clock     Clock
	IDs       IDGen
	Cards     *CardCatalog
	Processor Processor
	Log       *slog.Logger
	// AttemptTTL is how long a payment attempt awaits approval.
	AttemptTTL time.Duration
	// Kick wakes the scheduler after a job was stored (may be nil).
	Kick func()
	// Held caps the requests each tenant holds open and ends them at shutdown.
	Held *Held
	// Renderer renders webhook bodies when events are made (nil: events
	// carry no body; the composition root sets the webhooks renderer).
	Renderer EventRenderer
	// Webhooks runs the webhook attempts a clock advance makes due and waits
	// for them (nil: none); it answers what it ran.
	Webhooks WebhookRunner
	// Endpoints admits webhook endpoints (nil: any well-formed URL); see
	// CheckWebhookEndpoint.
	Endpoints EndpointPolicy
	// AdvanceWait bounds how long a clock advance waits for the webhook
	// attempts it makes due (SANDBOX.md section 12).
	AdvanceWait time.Duration

	waits waitHub
	sched *Scheduler
}

// Config is what NewService needs besides the ports.
type Config struct {
	AttemptTTL time.Duration
	// MaxHeldPerTenant caps each tenant's open long-polls and streams
	// (0: DefaultMaxHeldPerTenant).
	MaxHeldPerTenant int
	// Endpoints admits webhook endpoints (serve's --webhook-allow; nil: any).
	Endpoints EndpointPolicy
	// AdvanceWait bounds how long a clock advance waits for the webhook
	// attempts it makes due (0: DefaultAdvanceWait).
	AdvanceWait time.Duration
}

// DefaultAdvanceWait is the bound on a clock advance's wait for webhook
// attempts when none is configured.
const DefaultAdvanceWait = 30 * time.Second

// NewService wires the use cases to their ports.
func NewService(st Store, clk Clock, ids IDGen, cards *CardCatalog, proc Processor, log *slog.Logger, cfg Config) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.AttemptTTL <= 0 {
		cfg.AttemptTTL = 15 * time.Minute
	}
	if cfg.AdvanceWait <= 0 {
		cfg.AdvanceWait = DefaultAdvanceWait
	}
	s := &Service{Store: st, Clock: clk, IDs: ids, Cards: cards, Processor: proc, Log: log, AttemptTTL: cfg.AttemptTTL,
		Held: NewHeld(cfg.MaxHeldPerTenant), Endpoints: cfg.Endpoints,
		AdvanceWait: cfg.AdvanceWait}
	NewScheduler(s)
	return s
}

// Scheduler returns the service's scheduler (run it with Scheduler().Run).
func (s *Service) Scheduler() *Scheduler { return s.sched }

func (s *Service) kick() {
	if s.Kick != nil {
		s.Kick()
	}
}

// now is the tenant's clock.
func (s *Service) now(t *Tenant) time.Time { return t.Now(s.Clock) }

// clonePayment deep-copies a payment (tests compare before/after with it).
func clonePayment(p *Payment) *Payment { return p.Clone() }
