package simulator

import (
	"slices"
	"time"
)

// ReportCounts are what the CI report of a tenant counts (SANDBOX.md
// section 8, GET /_sandbox/report): its requests by route and status, the
// scenario rules its payments were given, its webhook outcomes per
// endpoint and the hints its requests raised. They persist in the store
// (counts outlive the journal's bound and restarts); the migration notes,
// stored on their own, complete the report.
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

// Delivery outcomes counted by CountDelivery.
const (
	OutcomeDelivered = "delivered"
	OutcomeRetried   = "retried"
	OutcomeExhausted = "exhausted"
	// OutcomeNoEndpoint: an event recorded while the tenant had no endpoint.
	OutcomeNoEndpoint = "no-endpoint"
)

// CountRequest counts one request of route answered with status.
func (r *ReportCounts) CountRequest(route string, status int) {
	r.addRoute(RouteCount{Route: route, Status: status, Count: 1})
}

func (r *ReportCounts) addRoute(c RouteCount) {
	i := slices.IndexFunc(r.Requests, func(x RouteCount) bool { return x.Route == c.Route && x.Status == c.Status })
	if i < 0 && len(r.Requests) >= ReportRoutes-1 && c.Route != ReportOther {
		c.Route = ReportOther
		i = slices.IndexFunc(r.Requests, func(x RouteCount) bool { return x.Route == c.Route && x.Status == c.Status })
	}
	if i < 0 {
		if len(r.Requests) >= ReportRoutes+64 { // one ReportOther per status at most: a hard stop all the same
			return
		}
		r.Requests = append(r.Requests, RouteCount{Route: c.Route, Status: c.Status})
		i = len(r.Requests) - 1
	}
	r.Requests[i].Count += c.Count
}

// CountRule counts a payment decided by rule at at.
func (r *ReportCounts) CountRule(rule, paymentID string, at time.Time) {
	r.addRule(RuleCount{Rule: rule, Count: 1, ExamplePaymentIDs: nonEmpty(paymentID), LastSeen: at})
}

func (r *ReportCounts) addRule(c RuleCount) {
	i := slices.IndexFunc(r.Rules, func(x RuleCount) bool { return x.Rule == c.Rule })
	if i < 0 && len(r.Rules) >= ReportRules-1 && c.Rule != ReportOther {
		c.Rule = ReportOther
		i = slices.IndexFunc(r.Rules, func(x RuleCount) bool { return x.Rule == c.Rule })
	}
	if i < 0 {
		r.Rules = append(r.Rules, RuleCount{Rule: c.Rule})
		i = len(r.Rules) - 1
	}
	n := &r.Rules[i]
	n.Count += c.Count
	n.ExamplePaymentIDs = addExamples(n.ExamplePaymentIDs, c.ExamplePaymentIDs)
	if c.LastSeen.After(n.LastSeen) {
		n.LastSeen = c.LastSeen
	}
}

// CountDelivery counts one outcome (OutcomeDelivered, OutcomeRetried,
// OutcomeExhausted, OutcomeNoEndpoint) of an event sent to url; an exhausted event is kept as
// an example.
func (r *ReportCounts) CountDelivery(url, outcome string, ev EventExample) {
	c := EndpointCount{URL: url}
	switch outcome {
	case OutcomeDelivered:
		c.Delivered = 1
	case OutcomeRetried:
		c.Retried = 1
	case OutcomeExhausted:
		c.Exhausted = 1
		c.ExhaustedEvents = []EventExample{ev}
	case OutcomeNoEndpoint:
		c.NoEndpoint = 1
	default:
		return
	}
	r.addEndpoint(c)
}

func (r *ReportCounts) addEndpoint(c EndpointCount) {
	i := slices.IndexFunc(r.Webhooks, func(x EndpointCount) bool { return x.URL == c.URL })
	if i < 0 && len(r.Webhooks) >= ReportEndpoints-1 && c.URL != ReportOther {
		c.URL = ReportOther
		i = slices.IndexFunc(r.Webhooks, func(x EndpointCount) bool { return x.URL == c.URL })
	}
	if i < 0 {
		r.Webhooks = append(r.Webhooks, EndpointCount{URL: c.URL})
		i = len(r.Webhooks) - 1
	}
	n := &r.Webhooks[i]
	n.Delivered += c.Delivered
	n.Retried += c.Retried
	n.Exhausted += c.Exhausted
	n.NoEndpoint += c.NoEndpoint
	for _, ev := range c.ExhaustedEvents {
		n.ExhaustedEvents = slices.DeleteFunc(n.ExhaustedEvents, func(x EventExample) bool { return x.EventID == ev.EventID })
		n.ExhaustedEvents = append(n.ExhaustedEvents, ev)
	}
	if len(n.ExhaustedEvents) > ReportExamples {
		n.ExhaustedEvents = slices.Delete(n.ExhaustedEvents, 0, len(n.ExhaustedEvents)-ReportExamples)
	}
}

// CountHint counts a hint of kind raised at at by request requestID or,
// for webhook hints, by event eventID.
func (r *ReportCounts) CountHint(kind, message, requestID, eventID string, at time.Time) {
	r.addHint(HintCount{Kind: kind, Count: 1, LastMessage: message, ExampleRequestIDs: nonEmpty(requestID),
		ExampleEventIDs: nonEmpty(eventID), FirstSeen: at, LastSeen: at})
}

func (r *ReportCounts) addHint(c HintCount) {
	i := slices.IndexFunc(r.Hints, func(x HintCount) bool { return x.Kind == c.Kind })
	if i < 0 {
		if len(r.Hints) >= ReportHintKinds {
			return
		}
		r.Hints = append(r.Hints, HintCount{Kind: c.Kind, FirstSeen: c.FirstSeen})
		i = len(r.Hints) - 1
	}
	n := &r.Hints[i]
	n.Count += c.Count
	if !c.LastSeen.Before(n.LastSeen) {
		n.LastMessage, n.LastSeen = c.LastMessage, c.LastSeen
	}
	if c.FirstSeen.Before(n.FirstSeen) {
		n.FirstSeen = c.FirstSeen
	}
	n.ExampleRequestIDs = addExamples(n.ExampleRequestIDs, c.ExampleRequestIDs)
	n.ExampleEventIDs = addExamples(n.ExampleEventIDs, c.ExampleEventIDs)
}

// Merge adds d's counts to r: d holds what was counted after r (counts not
// stored yet), so its examples and messages are the newer ones.
func (r *ReportCounts) Merge(d *ReportCounts) {
	if d == nil {
		return
	}
	for _, c := range d.Requests {
		r.addRoute(c)
	}
	for _, c := range d.Rules {
		r.addRule(c)
	}
	for _, c := range d.Webhooks {
		r.addEndpoint(c)
	}
	for _, c := range d.Hints {
		r.addHint(c)
	}
}

// Clone is a deep copy of r.
func (r *ReportCounts) Clone() *ReportCounts {
	c := &ReportCounts{TenantID: r.TenantID, Requests: slices.Clone(r.Requests), Rules: slices.Clone(r.Rules),
		Webhooks: slices.Clone(r.Webhooks), Hints: slices.Clone(r.Hints)}
	for i := range c.Rules {
		c.Rules[i].ExamplePaymentIDs = slices.Clone(c.Rules[i].ExamplePaymentIDs)
	}
	for i := range c.Webhooks {
		c.Webhooks[i].ExhaustedEvents = slices.Clone(c.Webhooks[i].ExhaustedEvents)
	}
	for i := range c.Hints {
		c.Hints[i].ExampleRequestIDs = slices.Clone(c.Hints[i].ExampleRequestIDs)
		c.Hints[i].ExampleEventIDs = slices.Clone(c.Hints[i].ExampleEventIDs)
	}
	return c
}

// addExamples appends the ids of add (newer) to ids, each once, keeping the
// newest ReportExamples; ids is not shared with add.
func addExamples(ids, add []string) []string {
	for _, id := range add {
		ids = slices.DeleteFunc(ids, func(x string) bool { return x == id })
		ids = append(ids, id)
	}
	if len(ids) > ReportExamples {
		ids = slices.Delete(ids, 0, len(ids)-ReportExamples)
	}
	return ids
}

func nonEmpty(id string) []string {
	if id == "" {
		return nil
	}
	return []string{id}
}

// ReportHint is one hint a request raised, as the report counts it.
type ReportHint struct {
	Kind    string
	Message string
}
