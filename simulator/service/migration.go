package service

import "github.com/paysandbox/paysandbox/simulator"

// RecordMigration counts the 2.4 differences one request made with an older
// version hit, in the tenant's migration notes (stored: counts persist
// across restarts and beyond the journal's bound).
func (s *Service) RecordMigration(t *simulator.Tenant, requestID string, hits []simulator.MigrationHit) error {
	if len(hits) == 0 {
		return nil
	}
	now := s.Now(t)
	return s.Store.Update(func(tx simulator.Tx) error {
		m, err := tx.MigrationNotes(t.ID)
		if err != nil {
			return err
		}
		for _, h := range hits {
			m.Record(h, requestID, now)
		}
		return tx.PutMigrationNotes(m)
	})
}

// MigrationNotes reads the tenant's migration notes.
func (s *Service) MigrationNotes(t *simulator.Tenant) (*simulator.MigrationNotes, error) {
	var m *simulator.MigrationNotes
	err := s.Store.View(func(tx simulator.Tx) (err error) {
		m, err = tx.MigrationNotes(t.ID)
		return err
	})
	return m, err
}
