package observe

import (
	"slices"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// ReportKind names the report counts' records in the Store.
const ReportKind = "rep"

// Delivery outcomes the report counts per endpoint.
const (
	OutcomeDelivered = "delivered"
	OutcomeRetried   = "retried"
	OutcomeExhausted = "exhausted"
	// OutcomeNoEndpoint: an event recorded while the tenant had no endpoint.
	OutcomeNoEndpoint = "no-endpoint"
)

// Report is the observer that keeps each tenant's CI report counts
// (ReportCounts): the requests answered by route and status, the
// rules that decided payments, the webhook outcomes per endpoint and the
// hints raised, each list bounded (ReportRoutes, ...).
type Report struct {
	tally *Tally[ReportCounts]
}

// NewReport keeps the report counts, written behind by l.
func NewReport(l *Ledger) *Report {
	return &Report{tally: NewTally(l, ReportKind,
		func(tid string) *ReportCounts { return &ReportCounts{TenantID: tid} },
		func(dst, newer *ReportCounts) { (*reportCounts)(dst).merge(newer) })}
}

// Observe counts h in its tenant's report.
func (r *Report) Observe(h Happening) {
	switch h.Kind {
	case RequestAnswered:
		r.tally.Count(h.TenantID, func(c *ReportCounts) {
			rc := (*reportCounts)(c)
			rc.countRequest(h.Route, h.Status)
			for _, hint := range h.Hints {
				rc.countHint(hint.Kind, hint.Message, h.RequestID, "", h.At)
			}
		})
	case RuleMatched:
		r.tally.Count(h.TenantID, func(c *ReportCounts) { (*reportCounts)(c).countRule(h.Rule, h.PaymentID, h.At) })
	case EventMade:
		if h.After == simulator.DeliveryExhausted { // recorded without an endpoint
			r.countDelivery(h, simulator.DeliveryPending)
		}
	case DeliveryAttempted:
		r.countDelivery(h, h.Before)
	case DeliveryHint:
		r.tally.Count(h.TenantID, func(c *ReportCounts) {
			for _, hint := range h.Hints {
				(*reportCounts)(c).countHint(hint.Kind, hint.Message, "", h.EventID, h.At)
			}
		})
	}
}

// countDelivery counts what the attempt of h did to its event, whose
// status before it was before.
func (r *Report) countDelivery(h Happening, before string) {
	outcome := deliveryOutcome(before, h.After, h.Attempt)
	if outcome == "" {
		return
	}
	ex := EventExample{EventID: h.EventID, EventType: h.EventType, PaymentID: h.PaymentID, Error: h.Attempt.Error}
	r.tally.Count(h.TenantID, func(c *ReportCounts) { (*reportCounts)(c).countDelivery(h.URL, outcome, ex) })
}

// deliveryOutcome is what the report counts of an attempt a that moved an
// event from status before to after ("": nothing).
func deliveryOutcome(before, after string, a AttemptOutcome) string {
	switch {
	case after == simulator.DeliveryDelivered && before != simulator.DeliveryDelivered:
		return OutcomeDelivered
	case after == simulator.DeliveryExhausted && before == simulator.DeliveryPending && a.Error == simulator.ErrNoEndpoint:
		return OutcomeNoEndpoint
	case after == simulator.DeliveryExhausted && before == simulator.DeliveryPending:
		return OutcomeExhausted
	case after == simulator.DeliveryPending && !a.OK && !a.Replay && a.Chaos != "duplicate":
		return OutcomeRetried
	}
	return ""
}

// Read is tenant tid's report counts, those not stored yet included.
func (r *Report) Read(tid string) (*ReportCounts, error) {
	c, err := r.tally.Read(tid)
	if err != nil {
		return nil, err
	}
	c.TenantID = tid
	return c, nil
}

// Export is tenant tid's report counts for a snapshot.
func (r *Report) Export(tid string) (*ReportCounts, error) { return r.Read(tid) }

// Import stores c (a snapshot's, checked) as tenant tid's report counts.
func (r *Report) Import(tid string, c *ReportCounts) error {
	c.TenantID = tid
	return r.tally.Import(tid, c)
}

// reportCounts are ReportCounts with the counting methods.
type reportCounts ReportCounts

// countRequest counts one request of route answered with status.
func (r *reportCounts) countRequest(route string, status int) {
	r.addRoute(RouteCount{Route: route, Status: status, Count: 1})
}

func (r *reportCounts) addRoute(c RouteCount) {
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

// countRule counts a payment decided by rule at at.
func (r *reportCounts) countRule(rule, paymentID string, at time.Time) {
	var ex [1]string
	r.addRule(RuleCount{Rule: rule, Count: 1, LastSeen: at}, nonEmpty(&ex, paymentID))
}

// addRule adds c, its examples given apart (c's own are ignored): a slice
// inside c would be moved to the heap with the strings c passes on.
func (r *reportCounts) addRule(c RuleCount, examples []string) {
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
	n.ExamplePaymentIDs = addExamples(n.ExamplePaymentIDs, examples)
	if c.LastSeen.After(n.LastSeen) {
		n.LastSeen = c.LastSeen
	}
}

// countDelivery counts one outcome (OutcomeDelivered, OutcomeRetried,
// OutcomeExhausted, OutcomeNoEndpoint) of an event sent to url; an
// exhausted event is kept as an example.
func (r *reportCounts) countDelivery(url, outcome string, ev EventExample) {
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

func (r *reportCounts) addEndpoint(c EndpointCount) {
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

// countHint counts a hint of kind raised at at by request requestID or,
// for webhook hints, by event eventID.
func (r *reportCounts) countHint(kind, message, requestID, eventID string, at time.Time) {
	var req, ev [1]string
	r.addHint(HintCount{Kind: kind, Count: 1, LastMessage: message, FirstSeen: at, LastSeen: at},
		nonEmpty(&req, requestID), nonEmpty(&ev, eventID))
}

// addHint adds c, its examples given apart (c's own are ignored), as
// addRule does.
func (r *reportCounts) addHint(c HintCount, requests, events []string) {
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
	n.ExampleRequestIDs = addExamples(n.ExampleRequestIDs, requests)
	n.ExampleEventIDs = addExamples(n.ExampleEventIDs, events)
}

// merge adds d's counts to r: d holds what was counted after r (counts not
// stored yet), so its examples and messages are the newer ones.
func (r *reportCounts) merge(d *ReportCounts) {
	if d == nil {
		return
	}
	for _, c := range d.Requests {
		r.addRoute(c)
	}
	for _, c := range d.Rules {
		r.addRule(c, c.ExamplePaymentIDs)
	}
	for _, c := range d.Webhooks {
		r.addEndpoint(c)
	}
	for _, c := range d.Hints {
		r.addHint(c, c.ExampleRequestIDs, c.ExampleEventIDs)
	}
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

// nonEmpty is id as a list in room (none when empty).
func nonEmpty(room *[1]string, id string) []string {
	if id == "" {
		return nil
	}
	room[0] = id
	return room[:]
}
