// The attempts a control call makes on its tenant and waits for, each with
// a slot of the tenant's share (grantDirect): a clock advance (Hold keeps
// the loop off the tenant, Settle waits for its attempts in flight, NextDue
// and RunAt step it through the due events), deliver (DeliverPending) and
// replay (Replay).

package webhooks

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

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
	t, refs, err := d.Svc.TenantOutbox(tenantID)
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
