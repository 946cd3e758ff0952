package service

import (
	"fmt"
	"slices"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// newEvent makes an outbox event of type typ about p.
func (s *Service) newEvent(typ string, p *simulator.Payment, now time.Time) *simulator.Event {
	return &simulator.Event{
		ID: s.IDs.NewID(simulator.IDUUID), TenantID: p.TenantID, Type: typ, PaymentID: p.ID,
		CreatedAt: now, Status: simulator.DeliveryPending,
	}
}

// appendEvent renders ev's body from p as it is now (refund and d as the
// event type needs) and appends it to the outbox in tx.
func (s *Service) appendEvent(tx simulator.Tx, ev *simulator.Event, p *simulator.Payment, refund *simulator.Transaction, d *simulator.Dispute) error {
	if s.renderer != nil {
		body, err := s.renderer.RenderEvent(ev, p, refund, d)
		if err != nil {
			return fmt.Errorf("rendering %s: %w", ev.Type, err)
		}
		ev.Body = body
	}
	if d != nil {
		ev.DisputeID = d.ID
	}
	if err := s.exhaustWithoutEndpoint(tx, ev); err != nil {
		return err
	}
	if err := tx.AppendEvent(ev); err != nil {
		return err
	}
	if s.webhooks != nil { // still inside tx: see WebhookRunner.Appended
		s.webhooks.Appended(ev.TenantID, ev.Status == simulator.DeliveryPending)
	}
	return nil
}

// exhaustWithoutEndpoint makes ev, about to be appended, EXHAUSTED with the
// one attempt the dispatcher would record ("no endpoint", at the event's
// time, nothing sent) when its tenant has no webhook URL in tx and a
// dispatcher is attached: the event never enters the pending queue, so
// delivering it costs no second write transaction. It stays replayable once
// an endpoint is set and is not sent retroactively (SANDBOX.md section 7).
// Without a dispatcher (the service alone) events stay PENDING for whoever
// attempts them. Waiters on the tenant's webhooks are woken now:
// their next read waits for this write transaction to end.
func (s *Service) exhaustWithoutEndpoint(tx simulator.Tx, ev *simulator.Event) error {
	if s.webhooks == nil || ev.Status != simulator.DeliveryPending {
		return nil
	}
	t, err := tx.Tenant(ev.TenantID)
	if err != nil || t == nil || t.WebhookURL != "" {
		return err
	}
	ev.Status, ev.NextAt = simulator.DeliveryExhausted, time.Time{}
	ev.Attempts = append(ev.Attempts, simulator.DeliveryAttempt{At: ev.CreatedAt, Error: simulator.ErrNoEndpoint})
	s.webhooksNotify(ev.TenantID)
	return nil
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
