package simulator

import (
	"encoding/json"
	"slices"
	"time"
)

// Event types of the outbox (webhooks).
const (
	EventPaymentStatus = "PAYMENT.STATUS"
	EventPaymentRefund = "PAYMENT.REFUND"
	EventDisputeOpened = "DISPUTE.OPENED"
	EventDisputeStatus = "DISPUTE.STATUS"
)

// EventTypes lists every event type.
var EventTypes = []string{EventPaymentStatus, EventPaymentRefund, EventDisputeOpened, EventDisputeStatus}

// Delivery statuses of an event.
const (
	DeliveryPending   = "PENDING"
	DeliveryDelivered = "DELIVERED"
	DeliveryExhausted = "EXHAUSTED"
)

// ErrNoEndpoint is the error recorded on events of a tenant without a webhook URL.
const ErrNoEndpoint = "no endpoint"

// Event is one outbox entry, written in the same transaction as the change
// that caused it. Its webhook body is fixed when the event is made: Payment
// and Dispute are what the body is rendered from (the EventRenderer, at
// send time and for whoever shows it), so it is byte-identical on every
// attempt and replay; only signedAt is set per attempt.
type Event struct {
	ID        string    `json:"id"`
	TenantID  string    `json:"tenantId"`
	Type      string    `json:"eventType"`
	PaymentID string    `json:"paymentId"`
	DisputeID string    `json:"disputeId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	// Payment is the payment as it was when the event was made (a
	// PAYMENT.REFUND's refund is its last transaction); Dispute is the
	// dispute of a DISPUTE.* event. Tx.AppendEvent stores them as they are
	// at that call, so the caller may go on changing them. Events read by
	// Tx.Events (a listing) leave them nil.
	Payment *Payment `json:"-"`
	Dispute *Dispute `json:"-"`
	// Body is the rendered body an event stored by an earlier release
	// carries instead of Payment and Dispute: it is sent as it is (with
	// signedAt set). Nil for the events made now.
	Body   json.RawMessage `json:"body"`
	Status string          `json:"status"`
	// NextAt is when the next attempt is due on the tenant clock (PENDING only;
	// zero means at once).
	NextAt   time.Time         `json:"nextAt,omitzero"`
	Attempts []DeliveryAttempt `json:"attempts,omitempty"`
}

// DeliveryAttempt is one try at delivering an event.
type DeliveryAttempt struct {
	At               time.Time         `json:"at"`
	StatusCode       int               `json:"statusCode"`
	LatencyMs        int64             `json:"latencyMs"`
	Error            string            `json:"error,omitempty"`
	ResponseBodyHead string            `json:"responseBodyHead,omitempty"`
	SignedAt         string            `json:"signedAt,omitempty"`
	Headers          map[string]string `json:"headers,omitempty"`
	// Replay marks an attempt made by POST .../replay; Chaos names the chaos
	// that made it (duplicate, delay, reorder), empty for ordinary attempts.
	Replay bool   `json:"replay,omitempty"`
	Chaos  string `json:"chaos,omitempty"`
}

// OK reports whether the attempt got a 2xx answer.
func (a DeliveryAttempt) OK() bool { return a.Error == "" && a.StatusCode >= 200 && a.StatusCode < 300 }

// RetryDelays are the waits before attempts 2..6, each counted from the
// previous failure on the tenant clock; after the sixth failure the event is
// EXHAUSTED.
var RetryDelays = []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute}

// NextRetry answers when the attempt after n failed attempts is due, counted
// from the last failure at failedAt; ok is false once the six attempts are spent.
func NextRetry(n int, failedAt time.Time) (time.Time, bool) {
	if n < 1 || n > len(RetryDelays) {
		return time.Time{}, false
	}
	return failedAt.Add(RetryDelays[n-1]), true
}

// Dispute statuses and types (vendor DisputeStatusWebhookPayload).
var (
	DisputeStatuses = []string{"OPEN", "CHALLENGED", "ACCEPTED", "WON", "LOST", "EXPIRED", "CANCELLED"}
	DisputeTypes    = []string{"DISPUTE", "RETRIEVAL", "PREARBITRATION"}
)

// Dispute is a dispute opened on a payment.
type Dispute struct {
	ID                  string        `json:"id"`
	TenantID            string        `json:"tenantId"`
	PaymentID           string        `json:"paymentId"`
	OrderID             string        `json:"orderId"`
	Reason              string        `json:"reason"`
	Amount              int64         `json:"amount"`
	CurrencyCode        string        `json:"currencyCode"`
	TransactionID       string        `json:"transactionId"`
	Processor           string        `json:"processor,omitempty"`
	ProcessorMerchantID string        `json:"processorMerchantId,omitempty"`
	PaymentMethodType   string        `json:"paymentMethodType,omitempty"`
	Network             string        `json:"network,omitempty"`
	Status              string        `json:"status"`
	Type                string        `json:"type"`
	OpenedAt            time.Time     `json:"openedAt"`
	UpdatedAt           time.Time     `json:"updatedAt"`
	Then                []DisputeStep `json:"then,omitempty"` // scripted steps not yet run
}

// EventRenderer renders webhook bodies from what an event carries (the
// webhooks package implements it, and is the only one to set signedAt; the
// kernel must not import it). The service asks it for whoever shows a body
// (EventBody, SentBody).
type EventRenderer interface {
	// Body is ev's webhook body with signedAt empty, as every attempt sends
	// it but for signedAt: rendered from ev.Payment and ev.Dispute, or an
	// earlier release's stored ev.Body as it is.
	Body(ev *Event) (json.RawMessage, error)
	// Sent is the body attempt a of ev sent: Body with signedAt set to
	// a.SignedAt; nil when a sent nothing (no signedAt).
	Sent(ev *Event, a DeliveryAttempt) (json.RawMessage, error)
}

// EventQuery filters GET /_sandbox/webhooks/events. Empty filters match all.
type EventQuery struct {
	PaymentID string
	Type      string
	Status    string
	Limit     int
}

// PendingRef is one PENDING event in a tenant's delivery queue.
type PendingRef struct {
	TenantID  string
	PaymentID string
	EventID   string
	CreatedAt time.Time
	NextAt    time.Time // tenant clock; zero means at once
}

// newEvent makes an outbox event of type typ about p.
func (s *Service) newEvent(typ string, p *Payment, now time.Time) *Event {
	return &Event{
		ID: s.IDs.NewID(IDUUID), TenantID: p.TenantID, Type: typ, PaymentID: p.ID,
		CreatedAt: now, Status: DeliveryPending,
	}
}

// appendEvent appends ev to the outbox in tx with what its body is
// rendered from: p as it is now, and d for a DISPUTE.* event. The
// dispatcher is told after the commit (WebhookRunner.Appended).
func (s *Service) appendEvent(tx Tx, ev *Event, p *Payment, d *Dispute) error {
	ev.Payment, ev.Dispute = p, d
	if d != nil {
		ev.DisputeID = d.ID
	}
	if err := s.exhaustWithoutEndpoint(tx, ev); err != nil {
		return err
	}
	if err := tx.AppendEvent(ev); err != nil {
		return err
	}
	if s.webhooks != nil {
		tenantID, pending := ev.TenantID, ev.Status == DeliveryPending
		tx.AfterCommit(func() { s.webhooks.Appended(tenantID, pending) })
	}
	return nil
}

// EventBody is the body ev's latest attempt sent, or before any attempt
// the body every attempt will send but for signedAt (empty); nil without
// a renderer.
func (s *Service) EventBody(ev *Event) (json.RawMessage, error) {
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
func (s *Service) SentBody(ev *Event, a DeliveryAttempt) (json.RawMessage, error) {
	if s.renderer == nil {
		return nil, nil
	}
	return s.renderer.Sent(ev, a)
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
