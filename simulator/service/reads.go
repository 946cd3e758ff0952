package service

import "github.com/paysandbox/paysandbox/simulator"

// tenantByAPIKey resolves an API key from memory when the store can, else in
// a read transaction.
func (s *Service) tenantByAPIKey(key string) (t *simulator.Tenant, err error) {
	if m, ok := s.store.(TenantMemory); ok {
		return m.CachedTenantByAPIKey(key)
	}
	err = s.store.View(func(tx simulator.Tx) (err error) { t, err = tx.TenantByAPIKey(key); return })
	return t, err
}

// tenantByID resolves a tenant id from memory when the store can, else in a
// read transaction.
func (s *Service) tenantByID(id string) (t *simulator.Tenant, err error) {
	if m, ok := s.store.(TenantMemory); ok {
		return m.CachedTenant(id)
	}
	err = s.store.View(func(tx simulator.Tx) (err error) { t, err = tx.Tenant(id); return })
	return t, err
}

// hot returns the reader of shared records: the store's memory when it has
// one, else read transactions (whose values are private, so the contract of
// RecordMemory holds either way).
func (s *Service) hot() RecordMemory {
	if m, ok := s.store.(RecordMemory); ok {
		return m
	}
	return viewReads{s.store}
}

// viewReads is RecordMemory over read transactions.
type viewReads struct{ st simulator.Store }

func (r viewReads) HotPayment(tid, id string) (p *simulator.Payment, err error) {
	err = r.st.View(func(tx simulator.Tx) (err error) { p, err = tx.Payment(tid, id); return })
	return p, err
}

func (r viewReads) HotSession(tid, id string) (cs *simulator.ClientSession, err error) {
	err = r.st.View(func(tx simulator.Tx) (err error) { cs, err = tx.Session(tid, id); return })
	return cs, err
}

func (r viewReads) HotSessionByToken(tok string) (cs *simulator.ClientSession, err error) {
	err = r.st.View(func(tx simulator.Tx) (err error) { cs, err = tx.SessionByToken(tok); return })
	return cs, err
}

func (r viewReads) HotInstrument(tid, tok string) (in *simulator.Instrument, err error) {
	err = r.st.View(func(tx simulator.Tx) (err error) { in, err = tx.Instrument(tid, tok); return })
	return in, err
}

func (r viewReads) HotAttempt(tid, id string) (a *simulator.Attempt, err error) {
	err = r.st.View(func(tx simulator.Tx) (err error) { a, err = tx.Attempt(tid, id); return })
	return a, err
}

// TenantMemory is implemented by stores that keep tenants and the API key
// index in memory as typed values (the store stays the source of truth and
// drops them on every tenant write). The service uses it, when the store has
// it, to authenticate without a transaction or a JSON decode. Both return nil
// and no error when there is no such tenant; the tenant returned is the
// caller's own copy.
type TenantMemory interface {
	CachedTenant(id string) (*simulator.Tenant, error)
	CachedTenantByAPIKey(key string) (*simulator.Tenant, error)
}

// RecordMemory is implemented by stores that keep recently used payments,
// client sessions, payment instruments and attempts in memory as typed values
// (a bounded cache, coherent with the store: a read after a write returned
// sees that write or a newer one). The service uses it, when the store has
// it, to read them on its hot paths without a transaction or a JSON decode.
// Getters return nil and no error when the record does not exist.
//
// The values are SHARED with every other reader and immutable: callers must
// not change them, nor anything they point to (Clone first to change one).
// Records to change are read inside Update, which gives private copies.
type RecordMemory interface {
	HotPayment(tenantID, id string) (*simulator.Payment, error)
	HotSession(tenantID, id string) (*simulator.ClientSession, error)
	// HotSessionByToken resolves a client token of any tenant, expired or not.
	HotSessionByToken(clientToken string) (*simulator.ClientSession, error)
	HotInstrument(tenantID, token string) (*simulator.Instrument, error)
	HotAttempt(tenantID, id string) (*simulator.Attempt, error)
}
