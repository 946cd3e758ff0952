// The outbox as the webhook dispatcher reads it (the PENDING events of the
// tenants that have some, each read with its tenant), and what it learns
// of the tenants' data (when one opens, which file holds it). Its writes
// are RecordAttempt and PruneEvents.

package service

import "github.com/paysandbox/paysandbox/simulator"

// OutboxTenant is one tenant's outbox as Outbox reads it: the tenant and
// its PENDING events by payment, each payment's in creation order
// (Tx.PendingEvents), read in one transaction, so an event is never
// attempted with tenant settings (endpoint, secret) older than the event.
type OutboxTenant struct {
	ID string
	// Tenant is nil when the tenant is gone (Pending is empty then).
	Tenant  *simulator.Tenant
	Pending []simulator.PendingRef
	// Err is why the tenant's data could not be read (a file that does not
	// open, a record that does not decode); the other tenants are read
	// nonetheless.
	Err error
}

// Outbox reads, in one read transaction, which tenants may have PENDING
// events (ids; not every tenant, as each may be a file to open) and the
// outbox of each that read admits (outboxes, in the order of ids). read is
// called inside the transaction, once per tenant of ids: it must be quick
// and must not call the service. err is set only when the list of tenants
// could not be read; one tenant's unreadable data is its OutboxTenant.Err.
func (s *Service) Outbox(read func(tenantID string) bool) (ids []string, outboxes []OutboxTenant, err error) {
	err = s.store.View(func(tx simulator.Tx) error {
		var err error
		if ids, err = tx.TenantsWithPending(); err != nil {
			return err
		}
		for _, id := range ids {
			if !read(id) {
				continue
			}
			o := OutboxTenant{ID: id}
			if o.Tenant, o.Err = tx.Tenant(id); o.Err == nil && o.Tenant != nil {
				o.Pending, o.Err = tx.PendingEvents(id)
			}
			outboxes = append(outboxes, o)
		}
		return nil
	})
	return ids, outboxes, err
}

// TenantOutbox reads tenant tenantID and its PENDING events (as Outbox
// does) in one read transaction; the tenant is nil when it is gone.
func (s *Service) TenantOutbox(tenantID string) (*simulator.Tenant, []simulator.PendingRef, error) {
	var t *simulator.Tenant
	var refs []simulator.PendingRef
	err := s.store.View(func(tx simulator.Tx) (err error) {
		if t, err = tx.Tenant(tenantID); err != nil || t == nil {
			return err
		}
		refs, err = tx.PendingEvents(tenantID)
		return err
	})
	return t, refs, err
}

// OnTenantOpen has fn told the id of each tenant whose data opens from now
// on, when the store opens tenants on demand, and answers whether it will
// be (false: a store that tells nothing). fn runs in a goroutine of its
// own.
func (s *Service) OnTenantOpen(fn func(tenantID string)) bool {
	st, ok := s.store.(interface{ OnTenantOpen(func(string)) })
	if ok {
		st.OnTenantOpen(fn)
	}
	return ok
}

// TenantFile names the file of the tenant's data, for the log, when the
// store keeps one per tenant ("" otherwise).
func (s *Service) TenantFile(tenantID string) string {
	if st, ok := s.store.(interface{ TenantFile(string) string }); ok {
		return st.TenantFile(tenantID)
	}
	return ""
}
