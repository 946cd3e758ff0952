package service

import (
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// RecordMigration counts the 2.4 differences one request made with an older
// version hit, in the tenant's migration notes. The counts are kept in
// memory and stored within the flush interval (countLog; MigrationNotes
// shows them at once); they persist across restarts and beyond the
// journal's bound.
func (s *Service) RecordMigration(t *simulator.Tenant, requestID string, hits []simulator.MigrationHit) error {
	if len(hits) == 0 {
		return nil
	}
	s.recordMigration(t.ID, requestID, hits, s.Now(t))
	return nil
}

func (s *Service) recordMigration(tid, requestID string, hits []simulator.MigrationHit, at time.Time) {
	s.count(tid, func(c *tenantCounts) {
		if c.mig == nil {
			c.mig = &simulator.MigrationNotes{TenantID: tid}
		}
		for _, h := range hits {
			c.mig.Record(h, requestID, at)
		}
	})
}

// MigrationNotes reads the tenant's migration notes, the counts not stored
// yet included.
func (s *Service) MigrationNotes(t *simulator.Tenant) (*simulator.MigrationNotes, error) {
	var m *simulator.MigrationNotes
	err := s.readCounts(t.ID, func(tx simulator.Tx) (err error) {
		m, err = tx.MigrationNotes(t.ID)
		return err
	}, func(p *tenantCounts) {
		if p != nil {
			m.Merge(p.mig)
		}
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}
