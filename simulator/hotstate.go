package simulator

// TenantMemory is implemented by stores that keep tenants and the API key
// index in memory as typed values (the store stays the source of truth and
// drops them on every tenant write). The service uses it, when the store has
// it, to authenticate without a transaction or a JSON decode. Both return nil
// and no error when there is no such tenant; the tenant returned is the
// caller's own copy.
type TenantMemory interface {
	CachedTenant(id string) (*Tenant, error)
	CachedTenantByAPIKey(key string) (*Tenant, error)
}

// tenantByAPIKey resolves an API key from memory when the store can, else in
// a read transaction.
func (s *Service) tenantByAPIKey(key string) (t *Tenant, err error) {
	if m, ok := s.Store.(TenantMemory); ok {
		return m.CachedTenantByAPIKey(key)
	}
	err = s.Store.View(func(tx Tx) (err error) { t, err = tx.TenantByAPIKey(key); return })
	return t, err
}

// tenantByID resolves a tenant id from memory when the store can, else in a
// read transaction.
func (s *Service) tenantByID(id string) (t *Tenant, err error) {
	if m, ok := s.Store.(TenantMemory); ok {
		return m.CachedTenant(id)
	}
	err = s.Store.View(func(tx Tx) (err error) { t, err = tx.Tenant(id); return })
	return t, err
}
