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
