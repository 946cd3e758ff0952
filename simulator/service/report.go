package service

import (
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// Report is what the CI report of a tenant shows: its counts, its
// migration notes, and the names of its rules in force (those never
// matched are the ones the counts lack).
type Report struct {
	Counts       *observe.ReportCounts
	Migration    *observe.MigrationNotes
	RulesInForce []string
}

// Report reads tenant t's CI report from its observers, the counts not
// stored yet included. It writes nothing.
func (s *Service) Report(t *simulator.Tenant) (*Report, error) {
	out := &Report{}
	var err error
	if out.Counts, err = s.report.Read(t.ID); err != nil {
		return nil, err
	}
	if out.Migration, err = s.migration.Read(t.ID); err != nil {
		return nil, err
	}
	if rb := s.rules(); rb != nil {
		out.RulesInForce = rb.RuleNames(t.Scenarios)
	}
	return out, nil
}
