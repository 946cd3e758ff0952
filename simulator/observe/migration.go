package observe

import (
	"slices"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// MigrationKind names the migration notes' records in the Store.
const MigrationKind = "mig"

// Migration is the observer that keeps each tenant's migration notes
// (MigrationNotes): the differences from the current version its
// requests made with older versions hit, one note per kind with its
// variants, bounded (MigrationExamples, MigrationVariants).
// The notes persist across restarts and beyond the journal's bound.
type Migration struct {
	tally *Tally[MigrationNotes]
}

// NewMigration keeps the migration notes, written behind by l.
func NewMigration(l *Ledger) *Migration {
	return &Migration{tally: NewTally(l, MigrationKind,
		func(tid string) *MigrationNotes { return &MigrationNotes{TenantID: tid} },
		func(dst, newer *MigrationNotes) { (*migrationNotes)(dst).merge(newer) })}
}

// Observe records the differences of a DifferenceHit.
func (m *Migration) Observe(h Happening) {
	if h.Kind != DifferenceHit || len(h.Differences) == 0 {
		return
	}
	m.tally.Count(h.TenantID, func(n *MigrationNotes) {
		for _, d := range h.Differences {
			(*migrationNotes)(n).record(d, h.RequestID, h.At)
		}
	})
}

// Read is tenant tid's migration notes, those not stored yet included.
func (m *Migration) Read(tid string) (*MigrationNotes, error) {
	n, err := m.tally.Read(tid)
	if err != nil {
		return nil, err
	}
	n.TenantID = tid
	return n, nil
}

// Export is tenant tid's migration notes for a snapshot.
func (m *Migration) Export(tid string) (*MigrationNotes, error) { return m.Read(tid) }

// Import stores n (a snapshot's, checked) as tenant tid's migration notes.
func (m *Migration) Import(tid string, n *MigrationNotes) error {
	n.TenantID = tid
	return m.tally.Import(tid, n)
}

// migrationNotes are MigrationNotes with the counting methods.
type migrationNotes MigrationNotes

// record counts a hit of requestID at at, in its kind's note and in the
// variant of its message: the request id joins the examples of both
// (newest last, bounded).
func (m *migrationNotes) record(h Difference, requestID string, at time.Time) {
	i := slices.IndexFunc(m.Items, func(n MigrationNote) bool { return n.Kind == h.Kind })
	if i < 0 {
		m.Items = append(m.Items, MigrationNote{Kind: h.Kind, FirstSeen: at})
		i = len(m.Items) - 1
	}
	n := &m.Items[i]
	n.Count++
	n.Description, n.LastSeen = noteDescription(h.Kind, h.Message), at
	n.ExampleRequestIDs = withExample(n.ExampleRequestIDs, requestID)
	j := slices.IndexFunc(n.Variants, func(v MigrationVariant) bool { return v.Description == h.Message })
	if j < 0 {
		if len(n.Variants) >= MigrationVariants {
			return
		}
		n.Variants = append(n.Variants, MigrationVariant{Description: h.Message, FirstSeen: at})
		j = len(n.Variants) - 1
	}
	v := &n.Variants[j]
	v.Count++
	v.LastSeen = at
	v.ExampleRequestIDs = withExample(v.ExampleRequestIDs, requestID)
}

// noteDescription is what changes on the current version for kind: its
// VersionDifference's description, or message for a kind the table no
// longer has (a note stored by an earlier build).
func noteDescription(kind, message string) string {
	for _, d := range simulator.VersionDifferences {
		if d.Kind == kind {
			return d.Description
		}
	}
	return message
}

// withExample adds request id rid to ids (newest last, at most
// MigrationExamples; "" and an id already there add nothing).
func withExample(ids []string, rid string) []string {
	if rid == "" || slices.Contains(ids, rid) {
		return ids
	}
	ids = append(ids, rid)
	if len(ids) > MigrationExamples {
		ids = slices.Delete(ids, 0, len(ids)-MigrationExamples)
	}
	return ids
}

// mergeExamples is ids followed by newer (newer's order, without repeats),
// bounded to the newest MigrationExamples.
func mergeExamples(ids, newer []string) []string {
	out := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.Contains(newer, id) })
	out = append(out, newer...)
	if len(out) > MigrationExamples {
		out = slices.Delete(out, 0, len(out)-MigrationExamples)
	}
	return out
}

// merge adds d's counts to m: d holds what was recorded after m (counts
// not stored yet), so its descriptions, last-seen times and example ids
// are the newer ones; a kind or variant m has not seen joins at the end,
// in d's order.
func (m *migrationNotes) merge(d *MigrationNotes) {
	if d == nil {
		return
	}
	for _, dn := range d.Items {
		i := slices.IndexFunc(m.Items, func(n MigrationNote) bool { return n.Kind == dn.Kind })
		if i < 0 {
			m.Items = append(m.Items, MigrationNote{Kind: dn.Kind, FirstSeen: dn.FirstSeen})
			i = len(m.Items) - 1
		}
		n := &m.Items[i]
		n.Count += dn.Count
		n.Description, n.LastSeen = dn.Description, dn.LastSeen
		n.ExampleRequestIDs = mergeExamples(n.ExampleRequestIDs, dn.ExampleRequestIDs)
		for _, dv := range dn.Variants {
			j := slices.IndexFunc(n.Variants, func(v MigrationVariant) bool { return v.Description == dv.Description })
			if j < 0 {
				if len(n.Variants) >= MigrationVariants {
					continue
				}
				n.Variants = append(n.Variants, MigrationVariant{Description: dv.Description, FirstSeen: dv.FirstSeen})
				j = len(n.Variants) - 1
			}
			v := &n.Variants[j]
			v.Count += dv.Count
			v.LastSeen = dv.LastSeen
			v.ExampleRequestIDs = mergeExamples(v.ExampleRequestIDs, dv.ExampleRequestIDs)
		}
	}
}
