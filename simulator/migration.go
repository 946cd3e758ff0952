package simulator

import "time"

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
// seen; the migration observer (simulator/observe) records them and keeps
// them beyond the journal's bound.
type MigrationNotes struct {
	TenantID string          `json:"tenantId"`
	Items    []MigrationNote `json:"items"`
}

// MigrationExamples is how many request ids a note keeps.
const MigrationExamples = 5
