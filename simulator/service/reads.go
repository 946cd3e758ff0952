package service

import "github.com/paysandbox/paysandbox/simulator"

// tenantByAPIKey resolves an API key from memory when the store can, else in
// a read transaction.
func (s *Service) tenantByAPIKey(key string) (t *simulator.Tenant, err error) {
	if m, ok := s.Store.(simulator.TenantMemory); ok {
		return m.CachedTenantByAPIKey(key)
	}
	err = s.Store.View(func(tx simulator.Tx) (err error) { t, err = tx.TenantByAPIKey(key); return })
	return t, err
}

// tenantByID resolves a tenant id from memory when the store can, else in a
// read transaction.
func (s *Service) tenantByID(id string) (t *simulator.Tenant, err error) {
	if m, ok := s.Store.(simulator.TenantMemory); ok {
		return m.CachedTenant(id)
	}
	err = s.Store.View(func(tx simulator.Tx) (err error) { t, err = tx.Tenant(id); return })
	return t, err
}

// hot returns the reader of shared records: the store's memory when it has
// one, else read transactions (whose values are private, so the contract of
// RecordMemory holds either way).
func (s *Service) hot() simulator.RecordMemory {
	if m, ok := s.Store.(simulator.RecordMemory); ok {
		return m
	}
	return viewReads{s.Store}
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
