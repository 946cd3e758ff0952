package service

import (
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// MigrationNotes reads the tenant's migration notes (kept by the migration
// observer from the observe.DifferenceHit happenings), the counts not
// stored yet included.
func (s *Service) MigrationNotes(t *simulator.Tenant) (*observe.MigrationNotes, error) {
	return s.migration.Read(t.ID)
}
