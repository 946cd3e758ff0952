package simulator

import (
	"slices"
	"time"
)

// MigrationNote is one kind of 2.4 difference a tenant's requests made with
// an older version hit (SANDBOX.md section 13): what changes on 2.4, how
// often, when, and the latest request ids. Notes are not hints: a pinned
// integration is not a mistake.
type MigrationNote struct {
	Kind              string    `json:"kind"`
	Description       string    `json:"description"`
	Count             int64     `json:"count"`
	ExampleRequestIDs []string  `json:"exampleRequestIds"`
	FirstSeen         time.Time `json:"firstSeen"`
	LastSeen          time.Time `json:"lastSeen"`
}

// MigrationNotes are a tenant's notes, one per kind, in the order first
// seen; they persist in the store (counts outlive the journal's bound).
type MigrationNotes struct {
	TenantID string          `json:"tenantId"`
	Items    []MigrationNote `json:"items"`
}

// MigrationExamples is how many request ids a note keeps.
const MigrationExamples = 5

// MigrationHit is one difference one request hit: its kind (a
// VersionDifference kind) and what it means for this request.
type MigrationHit struct {
	Kind    string
	Message string
}

// Record counts a hit of requestID at at: the note's description becomes
// the latest message, the request id joins the examples (newest last,
// bounded).
func (m *MigrationNotes) Record(h MigrationHit, requestID string, at time.Time) {
	i := slices.IndexFunc(m.Items, func(n MigrationNote) bool { return n.Kind == h.Kind })
	if i < 0 {
		m.Items = append(m.Items, MigrationNote{Kind: h.Kind, FirstSeen: at})
		i = len(m.Items) - 1
	}
	n := &m.Items[i]
	n.Count++
	n.Description, n.LastSeen = h.Message, at
	if requestID != "" && !slices.Contains(n.ExampleRequestIDs, requestID) {
		n.ExampleRequestIDs = append(n.ExampleRequestIDs, requestID)
		if len(n.ExampleRequestIDs) > MigrationExamples {
			n.ExampleRequestIDs = slices.Delete(n.ExampleRequestIDs, 0, len(n.ExampleRequestIDs)-MigrationExamples)
		}
	}
}

// Merge adds d's counts to m: d holds what was recorded after m (counts
// not stored yet), so its descriptions, last-seen times and example ids
// are the newer ones; a kind m has not seen joins at the end, in d's
// order.
func (m *MigrationNotes) Merge(d *MigrationNotes) {
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
		ids := slices.DeleteFunc(slices.Clone(n.ExampleRequestIDs), func(id string) bool { return slices.Contains(dn.ExampleRequestIDs, id) })
		ids = append(ids, dn.ExampleRequestIDs...)
		if len(ids) > MigrationExamples {
			ids = slices.Delete(ids, 0, len(ids)-MigrationExamples)
		}
		n.ExampleRequestIDs = ids
	}
}

// Clone is a deep copy of m.
func (m *MigrationNotes) Clone() *MigrationNotes {
	c := &MigrationNotes{TenantID: m.TenantID, Items: slices.Clone(m.Items)}
	for i := range c.Items {
		c.Items[i].ExampleRequestIDs = slices.Clone(c.Items[i].ExampleRequestIDs)
	}
	return c
}
