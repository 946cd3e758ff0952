package simulator

import "time"

// ReportCounts are what the CI report of a tenant counts (docs/ci.md,
// GET /_sandbox/report): its requests by route and status, the
// scenario rules its payments were given, its webhook outcomes per
// endpoint and the hints its requests raised. The report observer
// (simulator/observe) counts them and keeps them through restarts and
// beyond the journal's bound; the migration notes complete the report.
// The types stay in the kernel because the report, the snapshot format and
// the API answer show them.
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
