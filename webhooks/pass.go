// A pass of the dispatcher's loop: it reads the PENDING events of every
// tenant not held or broken, splits them into payment queues and the head
// each releases next (under the tenant's chaos), and starts the due heads
// as background attempts, the tenants with due work taking turns at the
// slots (startInTurn); a started attempt goes on through its payment's
// queue while the next event is due (start).

package webhooks

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

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

// heads answers the next event of each of tenant t's payment queues, refs
// being its PENDING events read with t (service.OutboxTenant).
func heads(t *simulator.Tenant, refs []simulator.PendingRef) []head {
	var out []head
	for _, q := range paymentQueues(refs) {
		out = append(out, headOf(t, q))
	}
	return out
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
	now := d.Svc.ServerNow()
	failed := map[string]error{}
	var read []string
	ids, outboxes, err := d.Svc.Outbox(func(id string) bool {
		d.mu.Lock()
		held := d.held[id] > 0
		skip := !d.broken.due(id, now)
		d.mu.Unlock()
		if held {
			anyHeld = true
			return false
		}
		return !skip // broken: left alone until its next retry
	})
	if err == nil {
		d.mu.Lock()
		d.broken.keepOnly(ids) // a tenant deleted while broken is forgotten
		d.mu.Unlock()
	}
	for _, o := range outboxes {
		if o.Err != nil { // one tenant's unreadable data stops only its deliveries
			failed[o.ID] = o.Err
			continue
		}
		read = append(read, o.ID)
		if o.Tenant == nil {
			continue
		}
		queues[o.ID] = heads(o.Tenant, o.Pending)
		tenants = append(tenants, o.Tenant)
		anyHead = anyHead || len(queues[o.ID]) > 0
	}
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
