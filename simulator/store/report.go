package store

import "github.com/paysandbox/paysandbox/simulator"

// kReport is the tenant's report counts (one record), under the tenant's
// prefix like kMigration, so that a reset or a deletion drops it with the
// rest of the tenant's data.
//
//	t:<tenant>:rep                    the tenant's report counts (one record)
func kReport(tid string) string { return tenantPrefix(tid) + "rep" }

// ReportCounts reads the tenant's report counts (empty when none).
func (t *Tx) ReportCounts(tid string) (*simulator.ReportCounts, error) {
	r, err := getTyped[simulator.ReportCounts](t, kReport(tid))
	if err != nil {
		return nil, err
	}
	if r == nil {
		r = &simulator.ReportCounts{}
	}
	r.TenantID = tid
	return r, nil
}

// PutReportCounts stores the tenant's report counts.
func (t *Tx) PutReportCounts(r *simulator.ReportCounts) error {
	return t.put(kReport(r.TenantID), r)
}
