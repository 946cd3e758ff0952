// The retention bound on each tenant's delivered and exhausted events:
// which tenants are marked for a retention pass (at Run's start, when a
// tenant's data opens, when an event finishes) and the pass itself, at
// most every PruneEvery unless forced.

package webhooks

import (
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// markAllDirty marks every tenant for a retention pass (at Run's start);
// with a store that opens tenants on demand, each tenant when its data
// opens (tenantOpened).
func (d *Dispatcher) markAllDirty() {
	retain := d.Retention.Keep > 0 || d.Retention.MaxAge > 0
	if d.Svc.OnTenantOpen(func(tid string) { d.tenantOpened(tid, retain) }) {
		return // a restart opens no tenant for retention
	}
	if !retain {
		return
	}
	tenants, err := d.Svc.Tenants()
	if err != nil {
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
