package webhooks

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysandbox/paysandbox/internal/redact"
	"github.com/paysandbox/paysandbox/simulator"
)

// Defaults of a Dispatcher.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultConcurrency = 64
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
// exhausted) through simulator.Service.RecordAttempt. One payment's events go
// one at a time in creation order; different payments go concurrently, at
// most Concurrency at once. It implements simulator.WebhookRunner.
type Dispatcher struct {
	Svc *simulator.Service
	// Timeout cuts each attempt (default 10s).
	Timeout time.Duration
	// Concurrency bounds attempts in flight (default 64).
	Concurrency int
	// Retention bounds each tenant's delivered and exhausted events, applied
	// at most every PruneEvery (default 1s) per tenant.
	Retention  simulator.Retention
	PruneEvery time.Duration
	// OnAttempt, when set, is called after each attempt is recorded.
	OnAttempt func(tenantID string, ev *simulator.Event, a simulator.DeliveryAttempt)
	Log       *slog.Logger

	client   *http.Client
	wake     chan struct{}
	sem      chan struct{}
	mu       sync.Mutex
	inflight map[string]chan struct{} // tenant/payment -> closed when its attempt ends
	rngs     map[string]*rand.Rand    // chaos, per tenant
	pruned   map[string]time.Time     // last retention pass per tenant (real time)
	held     map[string]int           // tenants whose clock is being advanced
	dirty    map[string]bool          // tenants with events finished since their last retention pass
	running  sync.WaitGroup

	// queued counts the moments the outbox may have gained a PENDING event
	// (Appended, a released hold); idleAt is queued+1 as it was when a pass
	// last found nothing pending in any tenant, 0 when that pass found some.
	// While they agree the loop reads nothing (see idle).
	queued atomic.Uint64
	idleAt atomic.Uint64
}

var _ simulator.WebhookRunner = (*Dispatcher)(nil)

// NewDispatcher makes a dispatcher for svc and sets it as svc.Webhooks.
// Zero timeout or concurrency take the defaults.
func NewDispatcher(svc *simulator.Service, timeout time.Duration, concurrency int) *Dispatcher {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	d := &Dispatcher{
		Svc: svc, Timeout: timeout, Concurrency: concurrency, Retention: simulator.DefaultRetention, PruneEvery: time.Second,
		Log: svc.Log, wake: make(chan struct{}, 1), sem: make(chan struct{}, concurrency),
		inflight: map[string]chan struct{}{}, rngs: map[string]*rand.Rand{}, pruned: map[string]time.Time{},
		held: map[string]int{}, dirty: map[string]bool{},
	}
	d.client = deliveryClient(svc.Endpoints, concurrency) // guard.go: --webhook-allow, no proxy, no redirects
	svc.Webhooks = d
	return d
}

// Wake makes the loop look at the outbox now (chained to Service.Kick).
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Appended implements simulator.WebhookRunner: a PENDING event makes the
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
// exact because Appended runs inside the appending write transaction and a
// pass loads queued before its read transaction, which therefore waits for
// that write to end.
func (d *Dispatcher) idle() bool {
	at := d.idleAt.Load()
	return at != 0 && at == d.queued.Load()+1
}

// Run delivers until ctx is done, then waits for attempts in flight (each is
// cut at Timeout). Pending events are read from the store at each pass, so a
// restart resumes them; an attempt whose record a crash lost is made again.
// While nothing is pending a wake-up reads nothing (idle), and the outbox is
// read only every idleRecheck. Every tenant is
// marked for a retention pass when Run starts, so a file written under a
// larger bound (or by a build that did not prune events finished at append)
// is brought within it.
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
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].PaymentID == refs[i].PaymentID {
			j++
		}
		h := head{ref: refs[i]}
		if c := t.WebhookChaos; c != nil && c.Reorder && j-i > 1 {
			h = head{ref: refs[j-1], chaos: "reorder"}
		}
		h.due = h.ref.NextAt
		if h.due.IsZero() {
			h.due = h.ref.CreatedAt
			if c := t.WebhookChaos; c != nil && c.Delay > 0 {
				h.due = h.due.Add(c.Delay)
				h.chaos = strings.TrimPrefix(h.chaos+"+delay", "+")
			}
		}
		out = append(out, h)
		i = j
	}
	return out, nil
}

// pass starts every due attempt over all tenants and answers how long until
// the next one falls due (0: nothing scheduled). A pass that finds no
// PENDING event and no held tenant makes the dispatcher idle.
func (d *Dispatcher) pass(ctx context.Context) time.Duration {
	gen := d.queued.Load() // before the read: see idle
	var tenants []*simulator.Tenant
	queues := map[string][]head{}
	anyHeld, anyHead := false, false
	err := d.Svc.Store.View(func(tx simulator.Tx) (err error) {
		if tenants, err = tx.Tenants(); err != nil {
			return err
		}
		for _, t := range tenants {
			d.mu.Lock()
			held := d.held[t.ID] > 0
			d.mu.Unlock()
			if held {
				anyHeld = true
				continue
			}
			if queues[t.ID], err = heads(tx, t); err != nil {
				return err
			}
			anyHead = anyHead || len(queues[t.ID]) > 0
		}
		return nil
	})
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
	for _, t := range tenants {
		hs := queues[t.ID]
		now := d.Svc.Now(t)
		for _, h := range hs {
			if wait := h.due.Sub(now); wait > 0 {
				if next == 0 || wait < next {
					next = wait
				}
				continue
			}
			done, ok := d.claim(t.ID, h.ref.PaymentID)
			if !ok {
				continue
			}
			select {
			case d.sem <- struct{}{}:
			case <-ctx.Done():
				d.release(t.ID, h.ref.PaymentID, done)
				return 0
			}
			d.running.Add(1)
			go func() {
				defer d.running.Done()
				defer func() { <-d.sem }()
				defer d.release(t.ID, h.ref.PaymentID, done)
				d.attempt(context.WithoutCancel(ctx), t, h.ref.EventID, h.chaos, dueAttempt)
			}()
		}
	}
	return next
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
// them.
func (d *Dispatcher) settle(ctx context.Context, tenantID string) {
	prefix := payKey(tenantID, "")
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
			return
		}
		select {
		case <-busy:
		case <-ctx.Done():
			return
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
// of the caller's pass: endpoint, secrets, clock offset) and records it. It
// answers the attempt and the event as recorded (nil when there was nothing to do).
func (d *Dispatcher) attempt(ctx context.Context, t *simulator.Tenant, eventID, chaos string, kind attemptKind) (simulator.DeliveryAttempt, *simulator.Event) {
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
	if kind == dueAttempt && ev.NextAt.After(d.Svc.Now(t)) { // another runner made this attempt meanwhile
		return simulator.DeliveryAttempt{}, nil
	}
	a := d.send(ctx, t, ev)
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
			return d.attempt(ctx, t, eventID, "duplicate", replayAttempt)
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
)

// send POSTs ev's body to t's endpoint, signed now, and describes the attempt.
func (d *Dispatcher) send(ctx context.Context, t *simulator.Tenant, ev *simulator.Event) simulator.DeliveryAttempt {
	now := d.Svc.Now(t)
	a := simulator.DeliveryAttempt{At: now}
	if t.WebhookURL == "" {
		a.Error = simulator.ErrNoEndpoint
		return a
	}
	a.SignedAt = strconv.FormatInt(now.Unix(), 10)
	body := Stamp(ev.Body, now)
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.WebhookURL, strings.NewReader(string(body)))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", "paysandbox-webhooks/"+Version)
	start := time.Now()
	resp, err := d.client.Do(req)
	if err != nil {
		a.LatencyMs = time.Since(start).Milliseconds()
		a.Error = describe(err, d.Timeout)
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

// markAllDirty marks every tenant for a retention pass (at Run's start).
func (d *Dispatcher) markAllDirty() {
	if d.Retention.Keep <= 0 && d.Retention.MaxAge <= 0 {
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

// Hold implements simulator.WebhookRunner: the loop leaves the tenant alone
// until release (attempts already in flight go on; RunDue waits for them).
func (d *Dispatcher) Hold(tenantID string) (release func()) {
	d.mu.Lock()
	d.held[tenantID]++
	d.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			d.mu.Lock()
			if d.held[tenantID]--; d.held[tenantID] <= 0 {
				delete(d.held, tenantID)
			}
			d.mu.Unlock()
			d.queued.Add(1) // the tenant's queue was skipped while held
			d.Wake()
		})
	}
}

// RunDue makes every attempt of the tenant that is due on its clock now,
// concurrently across payments, and waits for them (and for attempts
// already in flight), again until nothing is due: a payment's next event
// becomes due when the one before it is delivered or exhausted.
func (d *Dispatcher) RunDue(ctx context.Context, tenantID string) []simulator.Fired {
	d.settle(ctx, tenantID)
	var fired []simulator.Fired
	var mu sync.Mutex
	for range 10000 {
		var t *simulator.Tenant
		var hs []head
		err := d.Svc.Store.View(func(tx simulator.Tx) (err error) {
			if t, err = tx.Tenant(tenantID); err != nil || t == nil {
				return err
			}
			hs, err = heads(tx, t)
			return err
		})
		if err != nil || t == nil {
			if err != nil {
				d.Log.Error("webhooks: reading the outbox", "tenant", tenantID, "err", err)
			}
			return fired
		}
		now := d.Svc.Now(t)
		var wg sync.WaitGroup
		started := 0
		for _, h := range hs {
			if h.due.After(now) {
				continue
			}
			started++
			wg.Add(1)
			go func() {
				defer wg.Done()
				done, ok := d.claimWait(ctx, tenantID, h.ref.PaymentID)
				if !ok {
					return
				}
				defer d.release(tenantID, h.ref.PaymentID, done)
				d.sem <- struct{}{} // the bound on attempts in flight covers these too
				a, rec := d.attempt(context.WithoutCancel(ctx), t, h.ref.EventID, h.chaos, dueAttempt)
				<-d.sem
				if rec != nil {
					mu.Lock()
					fired = append(fired, simulator.Fired{Kind: simulator.FiredWebhook, At: a.At, PaymentID: rec.PaymentID, EventID: rec.ID})
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if started == 0 || ctx.Err() != nil {
			d.prune(t, true)
			return fired
		}
	}
	return fired
}

// DeliverPending tries every PENDING event of the tenant now, due or not, a
// payment's events in order (a failure stops that payment's queue for this
// call; its retry stays scheduled).
func (d *Dispatcher) DeliverPending(ctx context.Context, tenantID string) (delivered, failed int) {
	d.settle(ctx, tenantID)
	var t *simulator.Tenant
	var refs []simulator.PendingRef
	err := d.Svc.Store.View(func(tx simulator.Tx) (err error) {
		if t, err = tx.Tenant(tenantID); err != nil || t == nil {
			return err
		}
		refs, err = tx.PendingEvents(tenantID)
		return err
	})
	if err != nil || t == nil {
		if err != nil {
			d.Log.Error("webhooks: reading the outbox", "tenant", tenantID, "err", err)
		}
		return 0, 0
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].PaymentID == refs[i].PaymentID {
			j++
		}
		queue := refs[i:j]
		i = j
		wg.Add(1)
		go func() {
			defer wg.Done()
			done, ok := d.claimWait(ctx, tenantID, queue[0].PaymentID)
			if !ok {
				return
			}
			defer d.release(tenantID, queue[0].PaymentID, done)
			for _, ref := range queue {
				d.sem <- struct{}{}
				a, rec := d.attempt(context.WithoutCancel(ctx), t, ref.EventID, "", forcedAttempt)
				<-d.sem
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
	d.sem <- struct{}{}
	a, rec := d.attempt(context.WithoutCancel(ctx), t, eventID, "", replayAttempt)
	<-d.sem
	if rec == nil {
		return a, simulator.Errorf(simulator.CodeNotFound, "No webhook event %q in this tenant", eventID)
	}
	return a, nil
}
