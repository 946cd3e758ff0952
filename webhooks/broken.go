// The tenants whose outbox a pass could not read: when each is read again
// (brokenTenants, pure bookkeeping with back-off) and what the log says
// when one breaks, stays broken and recovers (outboxRead).

package webhooks

import (
	"maps"
	"slices"
	"time"
)

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
	return d.Svc.TenantFile(tenantID)
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
