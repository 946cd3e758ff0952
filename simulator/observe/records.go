package observe

import "time"

// The records the two observers keep: the report counts and the
// migration notes of a tenant.

// ReportCounts are what the CI report of a tenant counts (docs/ci.md,
// GET /_sandbox/report): its requests by route and status, the
// scenario rules its payments were given, its webhook outcomes per
// endpoint and the hints its requests raised. The report observer
// (Report) counts them and keeps them through restarts and beyond the
// journal's bound; the migration notes complete the report. The answer of
// GET /_sandbox/report and the snapshot format show them as they are.
//
// Every list is bounded: past its bound a new entry is counted under
// ReportOther (route, rule or endpoint), so a tenant sending endless
// distinct paths or rule names keeps a record of fixed size.
type ReportCounts struct {
	TenantID string          `json:"tenantId"`
	Requests []RouteCount    `json:"requests,omitempty"`
	Rules    []RuleCount     `json:"rules,omitempty"`
	Webhooks []EndpointCount `json:"webhooks,omitempty"`
	Hints    []HintCount     `json:"hints,omitempty"`
}

// RouteCount is how many requests a route template ("POST
// /payments/{id}/capture") answered with one status.
type RouteCount struct {
	Route  string `json:"route"`
	Status int    `json:"status"`
	Count  int64  `json:"count"`
}

// RuleCount is how many payments a scenario rule decided, with the latest
// of them. The rule "" counts the payments no rule matched (the default
// processor's behaviour).
type RuleCount struct {
	Rule              string    `json:"rule"`
	Count             int64     `json:"count"`
	ExamplePaymentIDs []string  `json:"examplePaymentIds,omitempty"`
	LastSeen          time.Time `json:"lastSeen"`
}

// EndpointCount is what became of the webhook events sent to one endpoint
// ("" when the tenant had none): events delivered, failed attempts followed
// by a retry, events exhausted after failed attempts (the latest of those
// kept), and events recorded while the tenant had no endpoint (never sent,
// so not exhausted by a receiver).
type EndpointCount struct {
	URL             string         `json:"url"`
	Delivered       int64          `json:"delivered"`
	Retried         int64          `json:"retried"`
	Exhausted       int64          `json:"exhausted"`
	NoEndpoint      int64          `json:"noEndpoint,omitempty"`
	ExhaustedEvents []EventExample `json:"exhaustedEvents,omitempty"`
}

// EventExample names one event of a report.
type EventExample struct {
	EventID   string `json:"eventId"`
	EventType string `json:"eventType"`
	PaymentID string `json:"paymentId,omitempty"`
	Error     string `json:"error,omitempty"`
}

// HintCount is how often one hint kind was raised, its latest message and
// the latest requests (or, for webhook hints, events) that raised it.
type HintCount struct {
	Kind              string    `json:"kind"`
	Count             int64     `json:"count"`
	LastMessage       string    `json:"lastMessage"`
	ExampleRequestIDs []string  `json:"exampleRequestIds,omitempty"`
	ExampleEventIDs   []string  `json:"exampleEventIds,omitempty"`
	FirstSeen         time.Time `json:"firstSeen"`
	LastSeen          time.Time `json:"lastSeen"`
}

// Bounds of ReportCounts.
const (
	// ReportExamples is how many ids an entry keeps (newest last).
	ReportExamples = 5
	// ReportRoutes, ReportRules and ReportEndpoints bound their lists
	// (ReportOther included).
	ReportRoutes    = 256
	ReportRules     = 128
	ReportEndpoints = 16
	// ReportHintKinds bounds the hint kinds (the product has six).
	ReportHintKinds = 32
)

// ReportOther is the route, rule or endpoint counted in place of new ones
// once a list is at its bound.
const ReportOther = "(other)"

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
// seen; the migration observer (Migration) records them and keeps
// them beyond the journal's bound.
type MigrationNotes struct {
	TenantID string          `json:"tenantId"`
	Items    []MigrationNote `json:"items"`
}

// MigrationExamples is how many request ids a note keeps.
const MigrationExamples = 5
