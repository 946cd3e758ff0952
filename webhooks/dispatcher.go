package webhooks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"math/rand"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysandbox/paysandbox/internal/redact"
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
		Log: svc.Log, wake: make(chan struct{}, 1),
		inflight: map[string]chan struct{}{}, rngs: map[string]*rand.Rand{}, pruned: map[string]time.Time{},
		held: map[string]int{}, dirty: map[string]bool{}, broken: brokenTenants{}, freed: make(chan struct{}),
	}
	d.slots = newSlotTable(d.Concurrency, d.share())
	d.cut, d.cutNow = context.WithCancel(context.Background())
	d.client = deliveryClient(svc.Endpoints, opt.Concurrency) // guard.go: --webhook-allow, no proxy, no redirects
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

// head is the event a payment's queue releases next.
type head struct {
	ref   simulator.PendingRef
	due   time.Time // tenant clock
	chaos string    // "reorder" (released out of order), "delay" (held), or "reorder+delay"
	// queue is the payment's PENDING refs as read with the head (a chain
	// of attempts goes on through it without reading the outbox again).
	queue []simulator.PendingRef
}

// paymentQueues splits a tenant's PENDING refs (by payment, each payment's
// in creation order) into its payments' queues.
func paymentQueues(refs []simulator.PendingRef) [][]simulator.PendingRef {
	var out [][]simulator.PendingRef
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].PaymentID == refs[i].PaymentID {
			j++
		}
		out = append(out, refs[i:j:j])
		i = j
	}
	return out
}

// headOf answers the event payment queue q (not empty) releases next under
// tenant t's chaos, and when it is due.
func headOf(t *simulator.Tenant, q []simulator.PendingRef) head {
	h := head{ref: q[0], queue: q}
	if c := t.WebhookChaos; c != nil && c.Reorder && len(q) > 1 {
		h = head{ref: q[len(q)-1], chaos: "reorder", queue: q}
	}
	h.due = h.ref.NextAt
	if h.due.IsZero() {
		h.due = h.ref.CreatedAt
		if c := t.WebhookChaos; c != nil && c.Delay > 0 {
			h.due = h.due.Add(c.Delay)
			h.chaos = strings.TrimPrefix(h.chaos+"+delay", "+")
		}
	}
	return h
}

// heads reads tenant t's payment queues in tx and answers each queue's next
// event. t must be read in the same transaction: an event is then never
// attempted with tenant settings (endpoint, secret) older than the event.
func heads(tx simulator.Tx, t *simulator.Tenant) ([]head, error) {
	refs, err := tx.PendingEvents(t.ID)
	if err != nil {
		return nil, err
	}
	var out []head
	for _, q := range paymentQueues(refs) {
		out = append(out, headOf(t, q))
	}
	return out, nil
}

// pass starts due attempts over all tenants, as many as the slots allow,
// and answers how long until the next one falls due (0: nothing
// scheduled). While due attempts are left for want of a slot it waits for
// slots to free and starts them, until a wake-up (new work: the outbox is
// read again, so another tenant's new event is not kept waiting), idlePoll,
// or ctx ends it. A pass that finds no PENDING event and no held tenant
// makes the dispatcher idle.
func (d *Dispatcher) pass(ctx context.Context) time.Duration {
	gen := d.queued.Load() // before the read: see idle
	d.mu.Lock()
	holds := d.holds // before the read: see start
	d.mu.Unlock()
	var tenants []*simulator.Tenant
	queues := map[string][]head{}
	anyHeld, anyHead := false, false
	now := d.Svc.Clock.Now()
	failed := map[string]error{}
	var read []string
	err := d.Svc.Store.View(func(tx simulator.Tx) error {
		ids, err := tx.TenantsWithPending() // not every tenant: each may be a file to open
		if err != nil {
			return err
		}
		d.mu.Lock()
		d.broken.keepOnly(ids) // a tenant deleted while broken is forgotten
		d.mu.Unlock()
		for _, id := range ids {
			d.mu.Lock()
			held := d.held[id] > 0
			skip := !d.broken.due(id, now)
			d.mu.Unlock()
			if held {
				anyHeld = true
				continue
			}
			if skip { // broken: left alone until its next retry
				continue
			}
			t, err := tx.Tenant(id)
			if err == nil && t != nil {
				queues[id], err = heads(tx, t)
			}
			if err != nil { // one tenant's unreadable data stops only its deliveries
				failed[id] = err
				continue
			}
			read = append(read, id)
			if t == nil {
				continue
			}
			tenants = append(tenants, t)
			anyHead = anyHead || len(queues[id]) > 0
		}
		return nil
	})
	d.outboxRead(read, failed, now)
	if err != nil {
		d.idleAt.Store(0)
		d.Log.Error("webhooks: reading the outbox", "err", err)
		return time.Second
	}
	if anyHeld || anyHead {
		d.idleAt.Store(0)
	} else {
		d.idleAt.Store(gen + 1)
	}
	var next time.Duration
	var ready []dueWork
	for _, t := range tenants {
		now := d.Svc.Now(t)
		w := dueWork{t: t}
		for _, h := range queues[t.ID] {
			if wait := h.due.Sub(now); wait > 0 {
				if next == 0 || wait < next {
					next = wait
				}
				continue
			}
			w.heads = append(w.heads, h)
		}
		if len(w.heads) > 0 {
			ready = append(ready, w)
		}
	}
	d.startInTurn(ctx, ready, gen, holds)
	return next
}

// outboxRead logs what a pass's read of the tenants' outboxes (at now, on
// the server's clock) found: each tenant of failed is broken, ERROR when it
// breaks (naming its file and the next retry), WARN at most hourly while it
// stays broken, nothing at a retry in between; each tenant of read that was
// broken has recovered (INFO).
func (d *Dispatcher) outboxRead(read []string, failed map[string]error, now time.Time) {
	for _, id := range slices.Sorted(maps.Keys(failed)) {
		d.mu.Lock()
		b, report := d.broken.failed(id, now)
		d.mu.Unlock()
		switch report {
		case brokeNow:
			d.Log.Error("webhooks: a tenant's outbox cannot be read; its deliveries wait until it can (retried with back-off)",
				"tenant", id, "file", d.tenantFile(id), "nextRetry", b.retryAt, "err", failed[id])
		case stillBroken:
			d.Log.Warn("webhooks: a tenant's outbox still cannot be read; its deliveries wait",
				"tenant", id, "file", d.tenantFile(id), "since", b.since, "nextRetry", b.retryAt, "err", failed[id])
		}
	}
	for _, id := range read {
		d.mu.Lock()
		since, was := d.broken.recovered(id)
		d.mu.Unlock()
		if was {
			d.Log.Info("webhooks: a tenant's outbox can be read again; its deliveries resume",
				"tenant", id, "file", d.tenantFile(id), "brokenFor", now.Sub(since).Round(time.Second))
		}
	}
}

// tenantFile names the tenant's data file for the log, when the store keeps
// one per tenant ("" otherwise).
func (d *Dispatcher) tenantFile(tenantID string) string {
	if st, ok := d.Svc.Store.(interface{ TenantFile(string) string }); ok {
		return st.TenantFile(tenantID)
	}
	return ""
}

// Back-off of a broken tenant's outbox reads, and how often the log says it
// is still broken.
const (
	brokenRetryFirst = 10 * time.Second
	brokenRetryMax   = 10 * time.Minute
	brokenWarnEvery  = time.Hour
)

// brokenTenants is what the loop knows of the tenants whose outbox it could
// not read (a file that cannot be opened, a record that cannot be decoded):
// when to read each again, and what it last logged. Pure bookkeeping on
// the instants it is given (the Dispatcher's mu guards its one).
type brokenTenants map[string]*brokenTenant

type brokenTenant struct {
	since    time.Time     // the first failed read
	retryAt  time.Time     // the next read
	backoff  time.Duration // retryAt's distance from the last failed read
	warnedAt time.Time     // the last ERROR or WARN
}

// What a failed read of a tenant's outbox is to the log.
type brokenReport int

const (
	brokeNow    brokenReport = iota // the tenant broke: ERROR
	retryFailed                     // a retry failed: nothing to log
	stillBroken                     // a retry failed an hour or more after the last report: WARN
)

// due reports whether tenant id's outbox is read at now: it is not broken,
// or its retry is due.
func (b brokenTenants) due(id string, now time.Time) bool {
	t, ok := b[id]
	return !ok || !now.Before(t.retryAt)
}

// failed records a failed read of tenant id's outbox at now: the next read
// is 10s later, then twice as long after each failed retry, up to 10
// minutes.
func (b brokenTenants) failed(id string, now time.Time) (brokenTenant, brokenReport) {
	t, ok := b[id]
	if !ok {
		t = &brokenTenant{since: now, backoff: brokenRetryFirst, warnedAt: now}
		b[id] = t
		t.retryAt = now.Add(t.backoff)
		return *t, brokeNow
	}
	t.backoff = min(2*t.backoff, brokenRetryMax)
	t.retryAt = now.Add(t.backoff)
	if now.Sub(t.warnedAt) >= brokenWarnEvery {
		t.warnedAt = now
		return *t, stillBroken
	}
	return *t, retryFailed
}

// retryNow makes tenant id's retry due at once; it reports whether the
// tenant is broken.
func (b brokenTenants) retryNow(id string) bool {
	t, ok := b[id]
	if ok {
		t.retryAt = time.Time{}
	}
	return ok
}

// keepOnly forgets the tenants not in ids.
func (b brokenTenants) keepOnly(ids []string) {
	if len(b) == 0 {
		return
	}
	keep := make(map[string]bool, len(ids))
	for _, id := range ids {
		keep[id] = true
	}
	for id := range b {
		if !keep[id] {
			delete(b, id)
		}
	}
}

// recovered forgets tenant id, read at last; it answers whether it was
// broken, and since when.
func (b brokenTenants) recovered(id string) (since time.Time, was bool) {
	t, ok := b[id]
	if !ok {
		return time.Time{}, false
	}
	delete(b, id)
	return t.since, true
}

// dueWork is one tenant's due heads in a pass.
type dueWork struct {
	t     *simulator.Tenant
	heads []head
}

// startInTurn starts the due heads of the tenants in ready in rounds, one
// head per tenant per round, each round in the slot table's order (tenants
// with nothing in flight first, then round-robin after the tenant served
// last): when the slots run short, the tenants with due work take turns at
// them, and a freed slot goes to a tenant with nothing in flight first. A
// tenant whose share is full sits out until one of its slots frees. Heads
// read before a wait are safe to start after it: an attempt reads its event
// again and does nothing when another runner made it meanwhile.
func (d *Dispatcher) startInTurn(ctx context.Context, ready []dueWork, gen, holds uint64) {
	if len(ready) == 0 {
		return
	}
	var poll *time.Timer
	for ctx.Err() == nil {
		d.mu.Lock()
		freed := d.freed
		d.mu.Unlock()
		ready = d.inTurnOrder(ready) // in-flight counts change between rounds
		left, progressed, noSlots, isStale := d.startRound(ctx, ready, gen, holds)
		if isStale {
			d.Wake() // the loop reads the outbox again at once
			return
		}
		if len(left) == 0 {
			return
		}
		ready = left
		if progressed && !noSlots {
			continue
		}
		if poll == nil {
			poll = time.NewTimer(idlePoll)
			defer poll.Stop()
		}
		select {
		case <-freed:
		case <-d.wake:
			d.Wake() // the loop reads the outbox again at once
			return
		case <-poll.C: // read the outbox again (retries fallen due meanwhile), at once
			d.Wake()
			return
		case <-ctx.Done():
			return
		}
	}
}

// inTurnOrder is ready in the order the slot table offers slots
// (slotTable.order): tenants with nothing in flight first, each group
// beginning after the tenant served last (d.turn).
func (d *Dispatcher) inTurnOrder(ready []dueWork) []dueWork {
	byID := make(map[string]dueWork, len(ready))
	ids := make([]string, 0, len(ready))
	for _, w := range ready {
		byID[w.t.ID] = w
		ids = append(ids, w.t.ID)
	}
	d.mu.Lock()
	ids = d.slots.order(ids, d.turn)
	d.mu.Unlock()
	out := make([]dueWork, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out
}

// startRound is one round of startInTurn: each tenant of ready, in that
// order, starts at most one attempt, until one finds no slot it may take
// (those after it may take none either: ready puts the tenants with nothing
// in flight, the only ones the reserve serves, first). It returns the
// tenants with heads left, whether an attempt started, whether the slots
// ran out, and isStale when the outbox must be read again (nothing else
// set).
func (d *Dispatcher) startRound(ctx context.Context, ready []dueWork, gen, holds uint64) (left []dueWork, progressed, noSlots, isStale bool) {
	for _, w := range ready {
		for !noSlots && len(w.heads) > 0 {
			r := d.start(ctx, w.t, w.heads[0], gen, holds)
			if r == stale {
				return nil, false, false, true
			}
			if r == noSlot {
				noSlots = true
			}
			if r == noSlot || r == tenantFull {
				break
			}
			w.heads = w.heads[1:] // started, or its payment is busy
			if r == started {
				progressed = true
				break
			}
		}
		if len(w.heads) > 0 {
			left = append(left, w)
		}
	}
	return left, progressed, noSlots, false
}

// What start did with a head.
type startResult int

const (
	started    startResult = iota
	busy                   // the payment's queue is in use (or the tenant is held): skipped
	tenantFull             // the tenant holds its whole share
	noSlot                 // every slot is taken
	stale                  // a tenant was held since the pass read the outbox: read it again
)

// start claims h's payment queue and a slot of tenant t and makes the
// attempt in the background; it never waits. The attempt goes on through
// the payment's queue as read in the pass (gen is the outbox generation of
// that read) while each next event is due, the tenant is not held and the
// attempts succeed or exhaust, so a payment's events need no read of the
// outbox each; then it gives the slot and the queue back. A Hold since the
// pass's read (holds) makes the head stale: a clock advance may have moved
// the tenant's clock (t's offset) and attempted it.
func (d *Dispatcher) start(ctx context.Context, t *simulator.Tenant, h head, gen, holds uint64) startResult {
	k := payKey(t.ID, h.ref.PaymentID)
	d.mu.Lock()
	if d.holds != holds {
		d.mu.Unlock()
		return stale
	}
	if _, inUse := d.inflight[k]; inUse || d.held[t.ID] > 0 {
		d.mu.Unlock()
		return busy
	}
	if r := d.slots.take(t.ID, grantBackground); r != started {
		d.mu.Unlock()
		return r
	}
	done := make(chan struct{})
	d.inflight[k] = done
	d.turn = t.ID
	d.mu.Unlock()
	d.running.Add(1)
	go func() {
		defer d.running.Done()
		q := slices.Clone(h.queue)
		for {
			_, rec := d.attempt(context.WithoutCancel(ctx), t, h.ref.EventID, h.chaos, dueAttempt, time.Time{})
			if rec == nil || ctx.Err() != nil {
				break
			}
			if q = moveOn(q, rec); len(q) == 0 {
				break
			}
			if h = headOf(t, q); h.due.After(d.Svc.Now(t)) {
				break
			}
			d.mu.Lock()
			held := d.held[t.ID] > 0
			d.mu.Unlock()
			if held { // a clock advance takes over the tenant
				break
			}
		}
		d.releaseSlot(t.ID)
		d.mu.Lock()
		delete(d.inflight, k)
		d.mu.Unlock()
		close(done)
		if d.queued.Load() != gen { // events appended since the read may be this payment's
			d.Wake()
		}
	}()
	return started
}

// share is one tenant's bound on attempts in flight.
func (d *Dispatcher) share() int {
	if d.SlotsPerTenant <= 0 {
		return min(DefaultSlotsPerTenant, d.Concurrency)
	}
	return min(d.SlotsPerTenant, d.Concurrency)
}

// acquire takes a slot for a control call's attempt of the tenant (a clock
// advance, deliver, replay: grantDirect), waiting for one until ctx is done;
// it reports whether it got one. While it waits for want of a free slot (not
// for its tenant's share) the delivery loop leaves the next freed slot to it.
func (d *Dispatcher) acquire(ctx context.Context, tenantID string) bool {
	waiting := false
	defer func() {
		if waiting {
			d.mu.Lock()
			d.slots.waiting--
			d.mu.Unlock()
		}
	}()
	for {
		d.mu.Lock()
		r := d.slots.take(tenantID, grantDirect)
		if now := r == noSlot; now != waiting {
			waiting = now
			if now {
				d.slots.waiting++
			} else {
				d.slots.waiting--
			}
		}
		freed := d.freed
		d.mu.Unlock()
		if r == started {
			return true
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return false
		}
	}
}

// releaseSlot gives back a slot of the tenant and wakes whoever waits for one.
func (d *Dispatcher) releaseSlot(tenantID string) {
	d.mu.Lock()
	d.slots.release(tenantID)
	close(d.freed) // a pass waiting with due attempts left, or acquire
	d.freed = make(chan struct{})
	d.mu.Unlock()
}

// What an attempt's slot is for.
type grantKind int

const (
	// grantBackground: the delivery loop's attempts.
	grantBackground grantKind = iota
	// grantDirect: an attempt a control call makes on its own tenant and
	// waits for (a clock advance makes each attempt at its instant).
	grantDirect
)

// slotTable is the bookkeeping of the delivery slots and the rules that
// grant them, with no lock, channel or clock (the Dispatcher's mu guards
// its one), so the order of grants is tested on its own:
//   - a tenant never has more than share attempts in flight;
//   - the loop's attempts of a tenant that already has one in flight take
//     a slot only while more than reserve are free: the reserve is kept for
//     tenants with nothing in flight, so however many receivers hang
//     (each holding its tenant's slots until the attempt times out), another
//     tenant's first delivery finds a slot at once;
//   - the loop offers slots to tenants with nothing in flight first (order),
//     so when none is free, the next freed one goes to such a tenant;
//   - a control call's attempts (grantDirect) take any free slot within
//     their tenant's share, and the loop leaves the next freed slots to
//     those waiting (waiting) rather than defer them.
type slotTable struct {
	total, share, reserve int
	used                  int
	per                   map[string]int // attempts in flight by tenant
	waiting               int            // control calls waiting for a free slot
}

// newSlotTable makes the table of total slots, at most share of them per
// tenant, half of them (at most total-share, so that one tenant alone can
// still use its whole share) kept for tenants with nothing in flight.
func newSlotTable(total, share int) slotTable {
	return slotTable{total: total, share: share, reserve: max(min(total/2, total-share), 0), per: map[string]int{}}
}

// take grants tenant a slot for an attempt of kind k when the rules allow:
// started (taken), tenantFull (the tenant holds its share) or noSlot (no
// slot it may take is free).
func (s *slotTable) take(tenant string, k grantKind) startResult {
	n := s.per[tenant]
	if n >= s.share {
		return tenantFull
	}
	limit := s.total
	if k == grantBackground {
		limit -= s.waiting
		if n > 0 {
			limit -= s.reserve
		}
	}
	if s.used >= limit {
		return noSlot
	}
	s.used++
	s.per[tenant]++
	return started
}

// release gives back a slot of tenant.
func (s *slotTable) release(tenant string) {
	s.used--
	if s.per[tenant]--; s.per[tenant] <= 0 {
		delete(s.per, tenant)
	}
}

// order is the order in which the loop offers slots to the tenants in
// ready: those with nothing in flight first, then the others; in each
// group by id, beginning after turn (the tenant served last), so tenants
// with due work take turns.
func (s *slotTable) order(ready []string, turn string) []string {
	var idle, busy []string
	for _, id := range ready {
		if s.per[id] == 0 {
			idle = append(idle, id)
		} else {
			busy = append(busy, id)
		}
	}
	return append(afterTurn(idle, turn), afterTurn(busy, turn)...)
}

// afterTurn is ids sorted and rotated to begin after turn.
func afterTurn(ids []string, turn string) []string {
	slices.Sort(ids)
	first, _ := slices.BinarySearchFunc(ids, turn, func(id, turn string) int {
		if id <= turn {
			return -1
		}
		return 1
	})
	return slices.Concat(ids[first:], ids[:first])
}

func payKey(tenantID, paymentID string) string { return tenantID + "/" + paymentID }

// claim reserves a payment's queue; ok is false while another attempt of it runs.
func (d *Dispatcher) claim(tenantID, paymentID string) (chan struct{}, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := payKey(tenantID, paymentID)
	if _, busy := d.inflight[k]; busy {
		return nil, false
	}
	ch := make(chan struct{})
	d.inflight[k] = ch
	return ch, true
}

// claimWait is claim that waits for the queue to be free.
func (d *Dispatcher) claimWait(ctx context.Context, tenantID, paymentID string) (chan struct{}, bool) {
	for {
		d.mu.Lock()
		busy, ok := d.inflight[payKey(tenantID, paymentID)]
		d.mu.Unlock()
		if !ok {
			if ch, ok := d.claim(tenantID, paymentID); ok {
				return ch, true
			}
			continue
		}
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// settle waits until no attempt of the tenant is in flight (a background
// attempt, with the duplicate chaos may add to it), so that what a control
// call (clock advance, deliver) answers and what is read after it include
// them, or until ctx is done; it reports whether none is.
func (d *Dispatcher) settle(ctx context.Context, tenantID string) bool {
	return d.waitInflight(ctx, payKey(tenantID, ""))
}

// drain waits until no attempt of any tenant is in flight.
func (d *Dispatcher) drain() { d.waitInflight(context.Background(), "") }

// waitInflight waits until no payment queue whose key starts with prefix is
// in use, or until ctx is done; it reports whether none is.
func (d *Dispatcher) waitInflight(ctx context.Context, prefix string) bool {
	for {
		var busy chan struct{}
		d.mu.Lock()
		for k, ch := range d.inflight {
			if strings.HasPrefix(k, prefix) {
				busy = ch
				break
			}
		}
		d.mu.Unlock()
		if busy == nil {
			return true
		}
		select {
		case <-busy:
		case <-ctx.Done():
			return false
		}
	}
}

func (d *Dispatcher) release(tenantID, paymentID string, ch chan struct{}) {
	d.mu.Lock()
	delete(d.inflight, payKey(tenantID, paymentID))
	d.mu.Unlock()
	close(ch)
	d.Wake() // the payment's next event may go now
}

// How an attempt is made.
type attemptKind int

const (
	dueAttempt    attemptKind = iota // only while PENDING and due on the tenant clock
	forcedAttempt                    // while PENDING, due or not (POST /_sandbox/webhooks/deliver)
	replayAttempt                    // whatever the status; a failure schedules nothing
)

// attempt makes one attempt at an event of tenant t (as read at the start
// of the caller's pass: endpoint, secrets, clock offset) and records it,
// stamped at (signedAt, the log's time, and the failure a retry counts
// from; zero: the tenant's now). It answers the attempt and the event as
// recorded (nil when there was nothing to do).
func (d *Dispatcher) attempt(ctx context.Context, t *simulator.Tenant, eventID, chaos string, kind attemptKind, at time.Time) (simulator.DeliveryAttempt, *simulator.Event) {
	replay := kind == replayAttempt
	tenantID := t.ID
	var ev *simulator.Event
	err := d.Svc.Store.View(func(tx simulator.Tx) (err error) { ev, err = tx.Event(tenantID, eventID); return })
	if err != nil {
		d.Log.Error("webhooks: reading an event", "tenant", tenantID, "event", eventID, "err", err)
		return simulator.DeliveryAttempt{}, nil
	}
	if ev == nil || (!replay && ev.Status != simulator.DeliveryPending) {
		return simulator.DeliveryAttempt{}, nil
	}
	if at.IsZero() {
		at = d.Svc.Now(t)
	}
	if kind == dueAttempt && ev.NextAt.After(at) { // another runner made this attempt meanwhile
		return simulator.DeliveryAttempt{}, nil
	}
	a := d.send(ctx, t, ev, at)
	a.Replay, a.Chaos = replay && chaos == "", chaos
	rec, err := d.Svc.RecordAttempt(tenantID, eventID, a)
	if err != nil {
		d.Log.Error("webhooks: recording an attempt", "tenant", tenantID, "event", eventID, "err", err)
		return a, nil
	}
	if rec != nil && rec.Status != simulator.DeliveryPending {
		d.mu.Lock()
		d.dirty[tenantID] = true
		d.mu.Unlock()
	}
	if d.OnAttempt != nil && rec != nil {
		d.OnAttempt(tenantID, rec, a)
	}
	if a.OK() && !replay && chaos != "duplicate" && rec != nil {
		if c := t.WebhookChaos; c != nil && c.Duplicate > 0 && d.chance(t) < c.Duplicate {
			return d.attempt(ctx, t, eventID, "duplicate", replayAttempt, at)
		}
	}
	return a, rec
}

// chance draws from the tenant's seeded chaos generator.
func (d *Dispatcher) chance(t *simulator.Tenant) float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.rngs[t.ID]
	if !ok {
		seed := int64(1)
		if t.WebhookChaos != nil && t.WebhookChaos.Seed != 0 {
			seed = t.WebhookChaos.Seed
		}
		r = rand.New(rand.NewSource(seed))
		d.rngs[t.ID] = r
	}
	return r.Float64()
}

// ResetChaos restarts a tenant's chaos generator (after its chaos changed).
func (d *Dispatcher) ResetChaos(tenantID string) {
	d.mu.Lock()
	delete(d.rngs, tenantID)
	d.mu.Unlock()
}

// Headers of a delivery.
const (
	HeaderSignaturePrimary   = "X-Signature-Primary"
	HeaderSignatureSecondary = "X-Signature-Secondary"
	HeaderEventID            = "X-Event-Id"
	// HeaderTraceParent carries the attempt's span (W3C Trace Context)
	// when tracing is on.
	HeaderTraceParent = "Traceparent"
)

// send POSTs ev's body to t's endpoint, signed at now (tenant clock), and
// describes the attempt. With a Tracer the attempt is a span and the
// request carries its traceparent.
func (d *Dispatcher) send(ctx context.Context, t *simulator.Tenant, ev *simulator.Event, now time.Time) simulator.DeliveryAttempt {
	if d.Tracer == nil || t.WebhookURL == "" {
		return d.post(ctx, t, ev, now, "")
	}
	ctx, sp := d.Tracer.Delivery(ctx, ev, t.WebhookURL)
	a := d.post(ctx, t, ev, now, sp.TraceParent())
	sp.End(a)
	return a
}

// post is send, with a traceparent header when it is not empty. The
// header is not among the attempt's recorded headers: those are the
// delivery's own, the same with tracing on or off.
func (d *Dispatcher) post(ctx context.Context, t *simulator.Tenant, ev *simulator.Event, now time.Time, traceparent string) simulator.DeliveryAttempt {
	a := simulator.DeliveryAttempt{At: now}
	if t.WebhookURL == "" {
		a.Error = simulator.ErrNoEndpoint
		return a
	}
	signedAt := signedAtOf(now)
	body, err := render(ev, signedAt)
	if err != nil {
		a.Error = "rendering the body: " + err.Error()
		return a
	}
	a.SignedAt = signedAt
	a.Headers = map[string]string{
		"Content-Type":         "application/json",
		HeaderEventID:          ev.ID,
		HeaderSignaturePrimary: Sign(t.SigningSecret, body),
	}
	if t.PreviousSecret != "" && now.Before(t.PreviousUntil) {
		a.Headers[HeaderSignatureSecondary] = Sign(t.PreviousSecret, body)
	}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	defer context.AfterFunc(d.cut, cancel)()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.WebhookURL, bytes.NewReader(body))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", "paysandbox-webhooks/"+Version)
	if traceparent != "" {
		req.Header.Set(HeaderTraceParent, traceparent)
	}
	start := time.Now()
	resp, err := d.client.Do(req)
	if err != nil {
		a.LatencyMs = time.Since(start).Milliseconds()
		a.Error = describe(err, d.Timeout)
		if d.cut.Err() != nil {
			a.Error = "cut: the sandbox was shutting down and its time was up (" + a.Error + ")"
		}
		return a
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, responseHead))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // reuse the connection
	resp.Body.Close()
	a.LatencyMs = time.Since(start).Milliseconds()
	a.StatusCode, a.ResponseBodyHead = resp.StatusCode, redact.Head(head, responseHead) // masked as the journal is (SANDBOX.md section 11)
	if !a.OK() {
		a.Error = "receiver answered " + resp.Status
		if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
			a.Error += " (redirects are not followed; Location: " + loc + ")"
		}
	}
	return a
}

func describe(err error, timeout time.Duration) string {
	if msg, ok := attemptError(err); ok {
		return msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout: no answer within " + timeout.String()
	}
	return err.Error()
}

// markAllDirty marks every tenant for a retention pass (at Run's start);
// with a store that opens tenants on demand, each tenant when its data
// opens (tenantOpened).
func (d *Dispatcher) markAllDirty() {
	retain := d.Retention.Keep > 0 || d.Retention.MaxAge > 0
	if st, ok := d.Svc.Store.(interface{ OnTenantOpen(func(string)) }); ok {
		// a restart opens no tenant for retention
		st.OnTenantOpen(func(tid string) { d.tenantOpened(tid, retain) })
		return
	}
	if !retain {
		return
	}
	var tenants []*simulator.Tenant
	if err := d.Svc.Store.View(func(tx simulator.Tx) (err error) { tenants, err = tx.Tenants(); return }); err != nil {
		d.Log.Error("webhooks: reading tenants", "err", err)
		return
	}
	d.mu.Lock()
	for _, t := range tenants {
		d.dirty[t.ID] = true
	}
	d.mu.Unlock()
}

// tenantOpened is told that a tenant's data opened: it gets its retention
// pass (retain), and when its outbox could not be read, the next pass reads
// it at once rather than at its retry (a repaired file some request opened).
func (d *Dispatcher) tenantOpened(tid string, retain bool) {
	if retain {
		d.Appended(tid, false)
	}
	d.mu.Lock()
	broken := d.broken.retryNow(tid)
	d.mu.Unlock()
	if broken {
		d.queued.Add(1) // not idle: the pass reads the outbox
		d.Wake()
	}
}

// pruneDirty runs the retention pass of every tenant marked dirty whose
// last pass is PruneEvery old.
func (d *Dispatcher) pruneDirty() {
	var ids []string
	d.mu.Lock()
	for id := range d.dirty {
		if time.Since(d.pruned[id]) >= d.PruneEvery {
			ids = append(ids, id)
		}
	}
	d.mu.Unlock()
	for _, id := range ids {
		t, err := d.Svc.Tenant(id)
		if err != nil { // gone: nothing to prune
			d.mu.Lock()
			delete(d.dirty, id)
			d.mu.Unlock()
			continue
		}
		d.prune(t, false)
	}
}

// prune applies the retention bound to a tenant whose events were finished
// (delivered, or exhausted when appended or attempted) since its last pass,
// at most once per PruneEvery unless forced (a clock advance, RunDue, prunes
// at once: what it answers and what is read after it is within the bound).
// An idle tenant keeps what it has until its next finished event (or the
// next start).
func (d *Dispatcher) prune(t *simulator.Tenant, force bool) {
	if d.Retention.Keep <= 0 && d.Retention.MaxAge <= 0 {
		return
	}
	d.mu.Lock()
	last, dirty := d.pruned[t.ID], d.dirty[t.ID]
	if !dirty || (!force && time.Since(last) < d.PruneEvery) {
		d.mu.Unlock()
		return
	}
	d.pruned[t.ID] = time.Now()
	delete(d.dirty, t.ID)
	d.mu.Unlock()
	if _, err := d.Svc.PruneEvents(t, d.Retention); err != nil {
		d.Log.Error("webhooks: pruning events", "tenant", t.ID, "err", err)
	}
}

// Hold implements service.WebhookRunner: the loop leaves the tenant alone
// until release (attempts already in flight go on; Settle waits for them).
// Release applies the retention bound to the tenant at once when it has
// finished events since its last pass.
func (d *Dispatcher) Hold(tenantID string) (release func()) {
	d.mu.Lock()
	d.held[tenantID]++
	d.holds++
	d.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			d.mu.Lock()
			if d.held[tenantID]--; d.held[tenantID] <= 0 {
				delete(d.held, tenantID)
			}
			dirty := d.dirty[tenantID]
			d.mu.Unlock()
			if dirty {
				if t, err := d.Svc.Tenant(tenantID); err == nil {
					d.prune(t, true)
				}
			}
			d.queued.Add(1) // the tenant's queue was skipped while held
			d.Wake()
		})
	}
}

// Settle implements service.WebhookRunner.
func (d *Dispatcher) Settle(ctx context.Context, tenantID string, deadline time.Time) bool {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return d.settle(ctx, tenantID)
}

// pendingOf reads tenant tenantID and its PENDING refs in one transaction
// (nil tenant: gone).
func (d *Dispatcher) pendingOf(tenantID string) (*simulator.Tenant, []simulator.PendingRef, error) {
	var t *simulator.Tenant
	var refs []simulator.PendingRef
	err := d.Svc.Store.View(func(tx simulator.Tx) (err error) {
		if t, err = tx.Tenant(tenantID); err != nil || t == nil {
			return err
		}
		refs, err = tx.PendingEvents(tenantID)
		return err
	})
	if err != nil {
		d.Log.Error("webhooks: reading the outbox", "tenant", tenantID, "err", err)
	}
	return t, refs, err
}

// NextDue implements service.WebhookRunner.
func (d *Dispatcher) NextDue(tenantID string, from time.Time) (time.Time, bool) {
	t, refs, err := d.pendingOf(tenantID)
	if err != nil || t == nil {
		return time.Time{}, false
	}
	var at time.Time
	for _, q := range paymentQueues(refs) {
		if h := headOf(t, q); at.IsZero() || h.due.Before(at) {
			at = h.due
		}
	}
	if at.IsZero() {
		return time.Time{}, false
	}
	if at.Before(from) {
		at = from
	}
	return at, true
}

// RunAt implements service.WebhookRunner. Each payment's queue due at at
// runs in its own goroutine, which claims the queue and, for each attempt, a
// slot of the tenant's share (so a tenant's advance has at most its share in
// flight too). At deadline it stops waiting: the attempts in flight are
// answered as pending, and their goroutines end after them without starting
// another.
func (d *Dispatcher) RunAt(ctx context.Context, tenantID string, at, deadline time.Time) ([]service.Fired, bool) {
	if !time.Now().Before(deadline) || ctx.Err() != nil {
		return nil, false
	}
	t, refs, err := d.pendingOf(tenantID)
	if err != nil || t == nil {
		return nil, true
	}
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	r := &advanceRun{d: d, ctx: ctx, wctx: wctx, tenantID: tenantID, t: t, at: at, inFlight: map[int]service.Fired{}}
	var wg sync.WaitGroup
	for i, q := range paymentQueues(refs) {
		if headOf(t, q).due.After(at) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.runQueue(i, q)
		}()
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
		return r.fired, true
	case <-wctx.Done():
	}
	return r.stop(), false
}

// advanceRun is one RunAt: the attempts it made (fired), those in flight
// (by queue index), and whether the caller stopped waiting (cut); mu guards
// the three. ctx is the caller's, wctx ends at the deadline.
type advanceRun struct {
	d         *Dispatcher
	ctx, wctx context.Context
	tenantID  string
	t         *simulator.Tenant
	at        time.Time

	mu       sync.Mutex
	fired    []service.Fired
	cut      bool
	inFlight map[int]service.Fired
}

// runQueue claims payment queue q (index i) and attempts its events due at
// r.at in order, each with a slot of the tenant's share, until none is due,
// the deadline passes, or an event changed under it; once cut it starts no
// attempt, and one that finishes after is not counted as fired.
func (r *advanceRun) runQueue(i int, q []simulator.PendingRef) {
	d, t, tenantID := r.d, r.t, r.tenantID
	pid := q[0].PaymentID
	done, ok := d.claimWait(r.wctx, tenantID, pid)
	if !ok {
		return
	}
	defer d.release(tenantID, pid, done)
	q = slices.Clone(q)
	for len(q) > 0 && r.wctx.Err() == nil {
		h := headOf(t, q)
		if h.due.After(r.at) || !d.acquire(r.wctx, tenantID) {
			return
		}
		f := service.Fired{Kind: service.FiredWebhook, At: r.at, PaymentID: pid, EventID: h.ref.EventID}
		r.mu.Lock()
		if r.cut {
			r.mu.Unlock()
			d.releaseSlot(tenantID)
			return
		}
		r.inFlight[i] = f
		r.mu.Unlock()
		_, rec := d.attempt(context.WithoutCancel(r.ctx), t, h.ref.EventID, h.chaos, dueAttempt, r.at)
		d.releaseSlot(tenantID)
		r.mu.Lock()
		delete(r.inFlight, i)
		if rec != nil && !r.cut {
			r.fired = append(r.fired, f)
		}
		r.mu.Unlock()
		if rec == nil { // the event changed under us: leave its queue to the next step
			return
		}
		q = moveOn(q, rec)
	}
}

// stop cuts the run at its deadline: the attempts fired so far, then those
// in flight marked Pending, by payment and event id.
func (r *advanceRun) stop() []service.Fired {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cut = true
	out := slices.Clone(r.fired)
	var pending []service.Fired
	for _, f := range r.inFlight {
		f.Pending = true
		pending = append(pending, f)
	}
	slices.SortFunc(pending, func(a, b service.Fired) int {
		return strings.Compare(a.PaymentID+"/"+a.EventID, b.PaymentID+"/"+b.EventID)
	})
	return append(out, pending...)
}

// moveOn updates payment queue q after an attempt at ev: a delivered or
// exhausted event leaves it, a failed one waits for its retry.
func moveOn(q []simulator.PendingRef, ev *simulator.Event) []simulator.PendingRef {
	for i := range q {
		if q[i].EventID != ev.ID {
			continue
		}
		if ev.Status != simulator.DeliveryPending {
			return slices.Delete(q, i, i+1)
		}
		q[i].NextAt = ev.NextAt
		break
	}
	return q
}

// DeliverPending tries every PENDING event of the tenant now, due or not, a
// payment's events in order (a failure stops that payment's queue for this
// call; its retry stays scheduled).
func (d *Dispatcher) DeliverPending(ctx context.Context, tenantID string) (delivered, failed int) {
	d.settle(ctx, tenantID)
	t, refs, err := d.pendingOf(tenantID)
	if err != nil || t == nil {
		return 0, 0
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, queue := range paymentQueues(refs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done, ok := d.claimWait(ctx, tenantID, queue[0].PaymentID)
			if !ok {
				return
			}
			defer d.release(tenantID, queue[0].PaymentID, done)
			for _, ref := range queue {
				if !d.acquire(ctx, tenantID) {
					return
				}
				a, rec := d.attempt(context.WithoutCancel(ctx), t, ref.EventID, "", forcedAttempt, time.Time{})
				d.releaseSlot(tenantID)
				if rec == nil {
					continue
				}
				mu.Lock()
				if a.OK() {
					delivered++
				} else {
					failed++
				}
				mu.Unlock()
				if !a.OK() {
					return
				}
			}
		}()
	}
	wg.Wait()
	return delivered, failed
}

// Replay makes one immediate attempt at an event, whatever its status.
// Errors: NotFound (no such event).
func (d *Dispatcher) Replay(ctx context.Context, tenantID, eventID string) (simulator.DeliveryAttempt, error) {
	t, err := d.Svc.Tenant(tenantID)
	if err != nil {
		return simulator.DeliveryAttempt{}, err
	}
	if !d.acquire(ctx, tenantID) {
		return simulator.DeliveryAttempt{}, ctx.Err()
	}
	a, rec := d.attempt(context.WithoutCancel(ctx), t, eventID, "", replayAttempt, time.Time{})
	d.releaseSlot(tenantID)
	if rec == nil {
		return a, simulator.Errorf(simulator.CodeNotFound, "No webhook event %q in this tenant", eventID)
	}
	return a, nil
}
