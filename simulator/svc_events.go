package simulator

import (
	"fmt"
	"slices"
	"time"
)

// newEvent makes an outbox event of type typ about p.
func (s *Service) newEvent(typ string, p *Payment, now time.Time) *Event {
	return &Event{
		ID: s.IDs.NewID(IDUUID), TenantID: p.TenantID, Type: typ, PaymentID: p.ID,
		CreatedAt: now, Status: DeliveryPending,
	}
}

// appendEvent renders ev's body from p as it is now (refund and d as the
// event type needs) and appends it to the outbox in tx.
func (s *Service) appendEvent(tx Tx, ev *Event, p *Payment, refund *Transaction, d *Dispute) error {
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
		s.webhooks.Appended(ev.TenantID, ev.Status == DeliveryPending)
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
func (s *Service) exhaustWithoutEndpoint(tx Tx, ev *Event) error {
	if s.webhooks == nil || ev.Status != DeliveryPending {
		return nil
	}
	t, err := tx.Tenant(ev.TenantID)
	if err != nil || t == nil || t.WebhookURL != "" {
		return err
	}
	ev.Status, ev.NextAt = DeliveryExhausted, time.Time{}
	ev.Attempts = append(ev.Attempts, DeliveryAttempt{At: ev.CreatedAt, Error: ErrNoEndpoint})
	s.webhooksNotify(ev.TenantID)
	return nil
}

// validEventQuery checks the filters of an event listing.
func validEventQuery(q EventQuery) []FieldError {
	var errs []FieldError
	if q.Type != "" && !slices.Contains(EventTypes, q.Type) {
		errs = append(errs, FieldError{Path: "$.type", Description: "type must be one of PAYMENT.STATUS, PAYMENT.REFUND, DISPUTE.OPENED, DISPUTE.STATUS"})
	}
	if q.Status != "" && q.Status != DeliveryPending && q.Status != DeliveryDelivered && q.Status != DeliveryExhausted {
		errs = append(errs, FieldError{Path: "$.status", Description: "status must be PENDING, DELIVERED or EXHAUSTED"})
	}
	if q.Limit < 0 || q.Limit > 1000 {
		errs = append(errs, FieldError{Path: "$.limit", Description: "limit must be between 1 and 1000"})
	}
	return errs
}
