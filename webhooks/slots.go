// What an attempt holds while in flight: a delivery slot, granted by the
// slotTable's rules (each tenant's share, the reserve kept for tenants with
// nothing in flight, turns, control calls served first), and its payment's
// queue (claim), so that one payment's events go one at a time; and the
// waits for attempts in flight to end (settle, drain).

package webhooks

import (
	"context"
	"slices"
	"strings"
)

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
