package service

import "github.com/paysandbox/paysandbox/simulator"

// tenantByAPIKey resolves an API key to its tenant (the caller's own copy).
func (s *Service) tenantByAPIKey(key string) (t *simulator.Tenant, err error) {
	err = s.store.View(func(tx simulator.Tx) (err error) { t, err = tx.TenantByAPIKey(key); return })
	return t, err
}

// tenantByID resolves a tenant id (the caller's own copy).
func (s *Service) tenantByID(id string) (t *simulator.Tenant, err error) {
	err = s.store.View(func(tx simulator.Tx) (err error) { t, err = tx.Tenant(id); return })
	return t, err
}
