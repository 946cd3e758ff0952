package simulator

import (
	"slices"
	"time"
)

// MigrationNote is one kind of 2.4 difference a tenant's requests made with
// an older version hit: what changes on 2.4 (the kind's VersionDifference
// description), how often, when, the latest request ids, and each variant
// of it the requests hit with its own count (a computed paymentType of
// UNSCHEDULED apart from one of ECOMMERCE). Notes are not hints: a pinned
// integration is not a mistake.
type MigrationNote struct {
	Kind              string             `json:"kind"`
	Description       string             `json:"description"`
	Count             int64              `json:"count"`
	ExampleRequestIDs []string           `json:"exampleRequestIds"`
	FirstSeen         time.Time          `json:"firstSeen"`
	LastSeen          time.Time          `json:"lastSeen"`
	Variants          []MigrationVariant `json:"variants,omitempty"`
}

// MigrationVariant is one way requests hit a note's kind: what it meant
// for them (the hit's message), how often, when, and the latest request ids.
type MigrationVariant struct {
	Description       string    `json:"description"`
	Count             int64     `json:"count"`
	ExampleRequestIDs []string  `json:"exampleRequestIds"`
	FirstSeen         time.Time `json:"firstSeen"`
	LastSeen          time.Time `json:"lastSeen"`
}

// MigrationVariants is how many variants a note keeps; hits of further
// ones count in the note only.
const MigrationVariants = 20

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

// Record counts a hit of requestID at at, in its kind's note and in the
// variant of its message: the request id joins the examples of both
// (newest last, bounded).
func (m *MigrationNotes) Record(h MigrationHit, requestID string, at time.Time) {
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

// noteDescription is what changes on 2.4 for kind: its VersionDifference's
// description, or message for a kind the table does not have (stored
// notes are not rewritten when the table changes).
func noteDescription(kind, message string) string {
	for _, d := range VersionDifferences {
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

// Merge adds d's counts to m: d holds what was recorded after m (counts
// not stored yet), so its descriptions, last-seen times and example ids
// are the newer ones; a kind or variant m has not seen joins at the end,
// in d's order.
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

// Clone is a deep copy of m.
func (m *MigrationNotes) Clone() *MigrationNotes {
	c := &MigrationNotes{TenantID: m.TenantID, Items: slices.Clone(m.Items)}
	for i := range c.Items {
		n := &c.Items[i]
		n.ExampleRequestIDs = slices.Clone(n.ExampleRequestIDs)
		n.Variants = slices.Clone(n.Variants)
		for j := range n.Variants {
			n.Variants[j].ExampleRequestIDs = slices.Clone(n.Variants[j].ExampleRequestIDs)
		}
	}
	return c
}
