package service

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// newEvent makes an outbox event of type typ about p.
func (s *Service) newEvent(typ string, p *simulator.Payment, now time.Time) *simulator.Event {
	ev := &simulator.Event{}
	s.initEvent(ev, typ, p, now)
	return ev
}

// initEvent makes *ev an outbox event of type typ about p.
func (s *Service) initEvent(ev *simulator.Event, typ string, p *simulator.Payment, now time.Time) {
	*ev = simulator.Event{
		ID: simulator.NewEventID(s.ids, now), TenantID: p.TenantID, Type: typ, PaymentID: p.ID,
		CreatedAt: now, Status: simulator.DeliveryPending,
	}
}

// appendEvent appends ev to the outbox in tx with what its body is
// rendered from: p as it is now, d for a DISPUTE.* event, and the tenant's
// webhook version as it is in tx. The observers (observe.EventMade) and
// the dispatcher (WebhookRunner.Appended) are told after the commit.
func (s *Service) appendEvent(tx simulator.Tx, ev *simulator.Event, p *simulator.Payment, d *simulator.Dispute) error {
	t, err := tx.Tenant(ev.TenantID)
	if err != nil {
		return err
	}
	return s.appendEventOf(tx, t, ev, p, d)
}

// appendEventOf is appendEvent with ev's tenant t as read in tx (nil: gone),
// for a transaction that appends several events.
func (s *Service) appendEventOf(tx simulator.Tx, t *simulator.Tenant, ev *simulator.Event, p *simulator.Payment, d *simulator.Dispute) error {
	s.prepareEvent(t, ev, p, d)
	if err := tx.AppendEvent(ev); err != nil {
		return err
	}
	s.eventAppended(tx, ev)
	return nil
}

// putPaymentWithEvent stores p with ev, an event of p as stored now, as
// tx.PutPayment(p) after appendEventOf(tx, t, ev, p, nil) would, with p
// encoded once (simulator.Tx.PutPaymentWithEvent).
func (s *Service) putPaymentWithEvent(tx simulator.Tx, t *simulator.Tenant, ev *simulator.Event, p *simulator.Payment) error {
	s.prepareEvent(t, ev, p, nil)
	if err := tx.PutPaymentWithEvent(p, ev); err != nil {
		return err
	}
	s.eventAppended(tx, ev)
	return nil
}

// prepareEvent gives ev what it is rendered from (p, d), its tenant t's
// webhook version, and its delivery status when t has no endpoint.
func (s *Service) prepareEvent(t *simulator.Tenant, ev *simulator.Event, p *simulator.Payment, d *simulator.Dispute) {
	ev.Payment, ev.Dispute = p, d
	if d != nil {
		ev.DisputeID = d.ID
	}
	if t != nil {
		ev.Version = t.WebhookAPIVersion()
	}
	s.exhaustWithoutEndpoint(t, ev)
}

// eventAppended tells the observers and the dispatcher of ev once tx
// commits.
func (s *Service) eventAppended(tx simulator.Tx, ev *simulator.Event) {
	// The closure keeps what it tells, not the event (a Happening would be
	// one more allocation per event).
	tid, id, typ, pid, status, last := ev.TenantID, ev.ID, ev.Type, ev.PaymentID, ev.Status, lastAttempt(ev)
	tx.AfterCommit(func() {
		s.observers.Publish(observe.Happening{Kind: observe.EventMade, TenantID: tid, EventID: id, EventType: typ,
			PaymentID: pid, After: status, Attempt: last})
		if s.webhooks != nil {
			s.webhooks.Appended(tid, status == simulator.DeliveryPending)
		}
	})
}

// EventBody is the body ev's latest attempt sent, or before any attempt
// the body every attempt will send but for signedAt (empty); nil without
// a renderer.
func (s *Service) EventBody(ev *simulator.Event) (json.RawMessage, error) {
	if s.renderer == nil {
		return ev.Body, nil
	}
	for i := len(ev.Attempts) - 1; i >= 0; i-- {
		if ev.Attempts[i].SignedAt != "" {
			return s.renderer.Sent(ev, ev.Attempts[i])
		}
	}
	return s.renderer.Body(ev)
}

// SentBody is the body attempt a of ev sent; nil when it sent nothing (no
// endpoint) or without a renderer.
func (s *Service) SentBody(ev *simulator.Event, a simulator.DeliveryAttempt) (json.RawMessage, error) {
	if s.renderer == nil {
		return nil, nil
	}
	return s.renderer.Sent(ev, a)
}

// exhaustWithoutEndpoint makes ev, about to be appended, EXHAUSTED with the
// one attempt the dispatcher would record ("no endpoint", at the event's
// time, nothing sent) when its tenant t (as in the write transaction) has
// no webhook URL and a dispatcher is attached: the event never enters the pending queue, so
// delivering it costs no second write transaction. It stays replayable once
// an endpoint is set and is not sent retroactively (docs/webhooks.md).
// Without a dispatcher (the service alone) events stay PENDING for whoever
// attempts them. Waiters on the tenant's webhooks are woken now:
// their next read waits for this write transaction to end.
func (s *Service) exhaustWithoutEndpoint(t *simulator.Tenant, ev *simulator.Event) {
	if s.webhooks == nil || ev.Status != simulator.DeliveryPending || t == nil || t.WebhookURL != "" {
		return
	}
	ev.Status, ev.NextAt = simulator.DeliveryExhausted, time.Time{}
	ev.Attempts = append(ev.Attempts, simulator.DeliveryAttempt{At: ev.CreatedAt, Error: simulator.ErrNoEndpoint})
	s.webhooksNotify(ev.TenantID)
}

// validEventQuery checks the filters of an event listing.
func validEventQuery(q simulator.EventQuery) []simulator.FieldError {
	var errs []simulator.FieldError
	if q.Type != "" && !slices.Contains(simulator.EventTypes, q.Type) {
		errs = append(errs, simulator.FieldError{Path: "$.type", Description: "type must be one of PAYMENT.STATUS, PAYMENT.REFUND, DISPUTE.OPENED, DISPUTE.STATUS"})
	}
	if q.Status != "" && q.Status != simulator.DeliveryPending && q.Status != simulator.DeliveryDelivered && q.Status != simulator.DeliveryExhausted {
		errs = append(errs, simulator.FieldError{Path: "$.status", Description: "status must be PENDING, DELIVERED or EXHAUSTED"})
	}
	if q.Limit < 0 || q.Limit > 1000 {
		errs = append(errs, simulator.FieldError{Path: "$.limit", Description: "limit must be between 1 and 1000"})
	}
	return errs
}
