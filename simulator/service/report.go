package service

import (
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// RecordRequest counts one request of tenant t in its CI report: its route
// template ("POST /payments/{id}"), its status and the hints it raised.
// Like every report count it is kept in memory and stored within the flush
// interval (countLog): the request writes nothing.
func (s *Service) RecordRequest(t *simulator.Tenant, route string, status int, requestID string, hints []simulator.ReportHint) {
	var at time.Time
	if len(hints) > 0 {
		at = s.Now(t)
	}
	s.countReport(t.ID, func(r *simulator.ReportCounts) {
		r.CountRequest(route, status)
		for _, h := range hints {
			r.CountHint(h.Kind, h.Message, requestID, "", at)
		}
	})
}

// RecordEventHint counts a hint raised by event eventID of tenant tid (a
// failed webhook delivery) at at, on the tenant clock.
func (s *Service) RecordEventHint(tid, kind, message, eventID string, at time.Time) {
	s.countReport(tid, func(r *simulator.ReportCounts) { r.CountHint(kind, message, "", eventID, at) })
}

// countRule counts, once tx commits, payment p as decided by rule at now
// ("": by no rule, the default processor's behaviour).
func (s *Service) countRule(tx simulator.Tx, tid, rule, paymentID string, now time.Time) {
	tx.AfterCommit(func() {
		s.countReport(tid, func(r *simulator.ReportCounts) { r.CountRule(rule, paymentID, now) })
	})
}

// countDelivery counts, once tx commits, what attempt a did to event ev of
// tenant tid (its status before the attempt was before), sent to url.
func (s *Service) countDelivery(tx simulator.Tx, tid, url, before string, ev *simulator.Event, a simulator.DeliveryAttempt) {
	var outcome string
	switch {
	case ev.Status == simulator.DeliveryDelivered && before != simulator.DeliveryDelivered:
		outcome = simulator.OutcomeDelivered
	case ev.Status == simulator.DeliveryExhausted && before == simulator.DeliveryPending && a.Error == simulator.ErrNoEndpoint:
		outcome = simulator.OutcomeNoEndpoint
	case ev.Status == simulator.DeliveryExhausted && before == simulator.DeliveryPending:
		outcome = simulator.OutcomeExhausted
	case ev.Status == simulator.DeliveryPending && !a.OK() && !a.Replay && a.Chaos != "duplicate":
		outcome = simulator.OutcomeRetried
	default:
		return
	}
	ex := simulator.EventExample{EventID: ev.ID, EventType: ev.Type, PaymentID: ev.PaymentID, Error: a.Error}
	tx.AfterCommit(func() {
		s.countReport(tid, func(r *simulator.ReportCounts) { r.CountDelivery(url, outcome, ex) })
	})
}

// Report is what the CI report of a tenant shows: its counts, its
// migration notes, and the names of its rules in force (those never
// matched are the ones the counts lack).
type Report struct {
	Counts       *simulator.ReportCounts
	Migration    *simulator.MigrationNotes
	RulesInForce []string
}

// Report reads tenant t's CI report, the counts not stored yet included.
// It writes nothing.
func (s *Service) Report(t *simulator.Tenant) (*Report, error) {
	out := &Report{}
	err := s.readCounts(t.ID, func(tx simulator.Tx) (err error) {
		if out.Counts, err = tx.ReportCounts(t.ID); err != nil {
			return err
		}
		out.Migration, err = tx.MigrationNotes(t.ID)
		return err
	}, func(p *tenantCounts) {
		if p != nil {
			out.Counts.Merge(p.rep)
			out.Migration.Merge(p.mig)
		}
	})
	if err != nil {
		return nil, err
	}
	if rb := s.rules(); rb != nil {
		out.RulesInForce = rb.RuleNames(t.Scenarios)
	}
	return out, nil
}
