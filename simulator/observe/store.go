package observe

// Store is the observers' storage port: one record per tenant and kind (an
// observer's name for its state, such as "rep"). The store's
// implementation keeps the records with the tenant's data, so that a reset
// or a deletion of the tenant drops them.
type Store interface {
	// LoadObserved reads the tenant's record of kind into v (a pointer):
	// false when there is none.
	LoadObserved(tenantID, kind string, v any) (bool, error)
	// SaveObserved stores records as the tenant's, in one write; a tenant
	// that no longer exists gets nothing (no error).
	SaveObserved(tenantID string, records ...Record) error
}
