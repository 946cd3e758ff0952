package observe

import (
	"time"
)

// Kind is what a Happening reports.
type Kind uint8

// The kinds of happening. Each says which fields of Happening it sets
// (TenantID always).
const (
	// RequestAnswered: a merchant request was answered. RequestID, Route
	// (its template, "POST /payments/{id}"), Status, At, and the Hints it
	// raised.
	RequestAnswered Kind = iota + 1
	// DifferenceHit: a request made with an older API version (or a job
	// acting for one) hit differences from the current version. RequestID,
	// At, Differences.
	DifferenceHit
	// RuleMatched: a scenario rule decided a payment ("" : no rule, the
	// default processor's behaviour). Rule, PaymentID, At.
	RuleMatched
	// EventMade: a webhook event was recorded. EventID, EventType,
	// PaymentID, After (its delivery status) and, when it was recorded
	// with an attempt (exhausted at once: the tenant had no endpoint),
	// Attempt.
	EventMade
	// DeliveryAttempted: a delivery attempt of an event was recorded.
	// EventID, EventType, PaymentID, URL (the endpoint, "" for none),
	// Before and After (the event's delivery status around the attempt),
	// Attempt.
	DeliveryAttempted
	// DeliveryHint: a delivery raised a hint (the receiver answered non-2xx
	// or could not be reached). EventID, At, Hints (one).
	DeliveryHint
)

// Happening is one thing that happened to a tenant, told to the observers
// after it committed. A value: observers copy what they keep.
type Happening struct {
	Kind     Kind
	TenantID string
	// At is when it happened, on the tenant clock.
	At time.Time

	RequestID   string
	Route       string
	Status      int
	Hints       []Hint
	Differences []Difference

	Rule      string
	PaymentID string

	EventID   string
	EventType string
	URL       string
	// Before and After are delivery statuses (simulator.DeliveryPending, ...).
	Before, After string
	Attempt       AttemptOutcome
}

// Hint is one hint a request or a delivery raised.
type Hint struct {
	Kind    string
	Message string
}

// Difference is one difference from the current version a request hit:
// its kind (a simulator.VersionDifference kind) and what it means for this
// request.
type Difference struct {
	Kind    string
	Message string
}

// AttemptOutcome is what observers see of a delivery attempt.
type AttemptOutcome struct {
	// OK: the receiver answered 2xx.
	OK bool
	// Error is why the attempt failed ("" when it did not).
	Error string
	// Replay and Chaos are the attempt's (simulator.DeliveryAttempt).
	Replay bool
	Chaos  string
}
