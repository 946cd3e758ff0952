// The Dispatcher itself: its defaults, fields and Options, its
// constructors (NewDispatcher, Attach), and the loop Run drives: its
// wake-ups (Wake, Appended), the idle test that spares it reading an
// outbox with nothing pending, and Cut. A pass of the loop is in pass.go;
// the slots and payment queues an attempt holds in slots.go; the tenants
// whose outbox cannot be read in broken.go; an attempt and its HTTP
// request in send.go; the retention bound in retention.go; the attempts a
// control call makes and waits for (a clock advance, deliver, replay) in
// advance.go.

package webhooks

import (
	"context"
	"log/slog"
	"math/rand"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// Defaults of a Dispatcher.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultConcurrency = 64
	// DefaultSlotsPerTenant is each tenant's share of the Concurrency
	// slots (its bound on attempts in flight).
	DefaultSlotsPerTenant = 8
	// responseHead is how much of a receiver's answer an attempt keeps.
	responseHead = 1024
	// idlePoll bounds how long a change can wait for its first attempt when
	// no wake-up reached the dispatcher.
	idlePoll = 500 * time.Millisecond
	// idleRecheck is how often an idle dispatcher reads the outbox anyway:
	// a safety net that bounds the wait of a PENDING event whose wake-up
	// went missing (or that a path without Appended stored) to about this.
	idleRecheck = 2 * time.Second
)

// Dispatcher delivers the outbox. It reads PENDING events from the store,
// POSTs their bodies (never inside a store transaction), and records each
// attempt with its consequence (delivered, next retry on the tenant clock, or
// exhausted) through service.Service.RecordAttempt. One payment's events go
// one at a time in creation order; different payments go concurrently, at
// most Concurrency at once over all tenants and at most SlotsPerTenant of
// one tenant, with part of the slots kept for tenants with nothing in
// flight (slotTable), so tenants whose receivers hang delay only
// themselves; tenants with due work are served in turn, those with nothing
// in flight first. It implements service.WebhookRunner.
//
// Its exported fields are set by NewDispatcher (from Options) and only read
// afterwards; PruneEvery alone may be lowered before Run (tests).
type Dispatcher struct {
	Svc *service.Service
	// Timeout cuts each attempt (default 10s).
	Timeout time.Duration
	// Concurrency bounds attempts in flight (default 64).
	Concurrency int
	// SlotsPerTenant bounds one tenant's attempts in flight, whoever makes
	// them (background delivery, a clock advance, deliver, replay); 0:
	// min(DefaultSlotsPerTenant, Concurrency), at most Concurrency.
	SlotsPerTenant int
	// Retention bounds each tenant's delivered and exhausted events, applied
	// at most every PruneEvery (default 1s) per tenant.
	Retention  service.Retention
	PruneEvery time.Duration
	// OnAttempt, when set, is called after each attempt is recorded.
	OnAttempt func(tenantID string, ev *simulator.Event, a simulator.DeliveryAttempt)
	Log       *slog.Logger
	// Tracer, when set, makes each attempt a span and sends its
	// traceparent (Options.Tracer; nil: no span, no traceparent header).
	Tracer Tracer

	client   *http.Client
	wake     chan struct{}
	mu       sync.Mutex
	inflight map[string]chan struct{} // tenant/payment -> closed when its attempt ends
	// Delivery slots (slotTable: who may take one); freed is closed (and
	// replaced) when a slot frees. turn is the tenant served last: a pass
	// starts after it.
	slots   slotTable
	freed   chan struct{}
	turn    string
	rngs    map[string]*rand.Rand // chaos, per tenant
	pruned  map[string]time.Time  // last retention pass per tenant (real time)
	held    map[string]int        // tenants whose clock is being advanced
	holds   uint64                // Hold calls so far: a pass that saw fewer reads the outbox again
	dirty   map[string]bool       // tenants with events finished since their last retention pass
	broken  brokenTenants         // tenants whose outbox could not be read, left alone until their retry
	running sync.WaitGroup
	// cut is done once Cut ran: the requests of attempts in flight end.
	cut    context.Context
	cutNow context.CancelFunc

	// queued counts the moments the outbox may have gained a PENDING event
	// (Appended, a released hold); idleAt is queued+1 as it was when a pass
	// last found nothing pending in any tenant, 0 when that pass found some.
	// While they agree the loop reads nothing (see idle).
	queued atomic.Uint64
	idleAt atomic.Uint64
}

var _ service.WebhookRunner = (*Dispatcher)(nil)

// Options configures a Dispatcher; the zero value takes every default.
type Options struct {
	// Timeout cuts each attempt (0: DefaultTimeout).
	Timeout time.Duration
	// Concurrency bounds attempts in flight (0: DefaultConcurrency).
	Concurrency int
	// SlotsPerTenant bounds one tenant's attempts in flight (see
	// Dispatcher.SlotsPerTenant; 0: its default).
	SlotsPerTenant int
	// Retention bounds each tenant's delivered and exhausted events (zero:
	// service.DefaultRetention).
	Retention service.Retention
	// OnAttempt, when set, is called after each attempt is recorded.
	OnAttempt func(tenantID string, ev *simulator.Event, a simulator.DeliveryAttempt)
	// Tracer, when set, makes each attempt a span of the trace that caused
	// its event and sends a W3C traceparent header with it (nil: neither).
	Tracer Tracer
}

// NewDispatcher makes a dispatcher for svc, fully configured by opt. It
// does not attach itself to svc: the service gets it as its
// service.WebhookRunner from service.Config.Webhooks, which NewService
// calls with the service it is building (Attach makes that function).
func NewDispatcher(svc *service.Service, opt Options) *Dispatcher {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = DefaultConcurrency
	}
	if opt.Retention == (service.Retention{}) {
		opt.Retention = service.DefaultRetention
	}
	d := &Dispatcher{
		Svc: svc, Timeout: opt.Timeout, Concurrency: opt.Concurrency, SlotsPerTenant: opt.SlotsPerTenant,
		Retention: opt.Retention, PruneEvery: time.Second, OnAttempt: opt.OnAttempt, Tracer: opt.Tracer,
		Log: svc.Logger(), wake: make(chan struct{}, 1),
		inflight: map[string]chan struct{}{}, rngs: map[string]*rand.Rand{}, pruned: map[string]time.Time{},
		held: map[string]int{}, dirty: map[string]bool{}, broken: brokenTenants{}, freed: make(chan struct{}),
	}
	d.slots = newSlotTable(d.Concurrency, d.share())
	d.cut, d.cutNow = context.WithCancel(context.Background())
	d.client = deliveryClient(svc.EndpointPolicy(), opt.Concurrency) // guard.go: --webhook-allow, no proxy, no redirects
	return d
}

// Cut ends the webhook requests in flight now and every later one at
// once: a stop out of time (its budget spent) calls it so that a receiver
// that does not answer holds the stop no longer. Each attempt cut is
// recorded as failed, and its event retried on its schedule (after a
// restart). Run still waits for the attempts to be recorded.
func (d *Dispatcher) Cut() { d.cutNow() }

// Attach is a service.Config.Webhooks: NewService calls it with the
// service it builds, and it makes that service's dispatcher with
// NewDispatcher(svc, opt) and stores it in *out, for the caller to Run
// once NewService has returned. Breaking the service <-> dispatcher cycle
// here keeps both constructors returning fully wired values.
func Attach(out **Dispatcher, opt Options) func(*service.Service) service.WebhookRunner {
	return func(svc *service.Service) service.WebhookRunner {
		*out = NewDispatcher(svc, opt)
		return *out
	}
}

// Wake implements service.WebhookRunner: the loop looks at the outbox
// now (Service.Kick calls it).
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Appended implements service.WebhookRunner: a PENDING event makes the
// next pass read the outbox; a finished one marks its tenant for the
// retention pass. Whoever appends PENDING events to the store without the
// service (bench) calls it too.
func (d *Dispatcher) Appended(tenantID string, pending bool) {
	if pending {
		d.queued.Add(1)
		return
	}
	d.mu.Lock()
	d.dirty[tenantID] = true
	d.mu.Unlock()
}

// idle reports that the last pass found no PENDING event in any tenant and
// none was appended since: there is nothing to deliver until Appended. It is
// exact because Appended runs after the appending write transaction commits
// and a pass loads queued before its read transaction: an Appended after
// the load leaves queued ahead of what the pass recorded (not idle, whatever
// its read saw); one before the load follows the commit, so the pass's read
// sees the event (not idle either).
func (d *Dispatcher) idle() bool {
	at := d.idleAt.Load()
	return at != 0 && at == d.queued.Load()+1
}

// Run delivers until ctx is done, then waits for attempts in flight (each is
// cut at Timeout), those a clock advance left running included. Pending
// events are read from the store at each pass, so a restart resumes them;
// an attempt whose record a crash lost is made again.
// While nothing is pending a wake-up reads nothing (idle), and the outbox is
// read only every idleRecheck. Every tenant is
// marked for a retention pass when Run starts (with a store of tenant files:
// when its file opens), so a file written under a larger bound (or by a
// build that did not prune events finished at append) is brought within it.
func (d *Dispatcher) Run(ctx context.Context) {
	timer := time.NewTimer(idlePoll)
	defer timer.Stop()
	d.markAllDirty()
	var lastPass time.Time
	for {
		var wait time.Duration
		if !d.idle() || time.Since(lastPass) >= idleRecheck {
			wait = d.pass(ctx)
			lastPass = time.Now()
		}
		d.pruneDirty()
		if wait > idlePoll || wait <= 0 {
			wait = idlePoll
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			d.running.Wait()
			d.drain()
			return
		case <-d.wake:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}
