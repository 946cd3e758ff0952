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
	// Payment is the payment as it was when the event was made (refunds
	// among its transactions), Dispute the dispute of a DISPUTE.* event;
	// Tx.AppendEvent stores them as they are at that call. Events read by
	// Tx.Events (a listing) leave them nil.
	Payment *Payment `json:"-"`
	Dispute *Dispute `json:"-"`
	// PaymentStatus is the status of the payment the event announces (its
	// Payment's when it was made), kept with the event so listings show it
	// without the payment, and carried by snapshots; "" for events that
	// carry no payment and events stored by an earlier release.
	PaymentStatus PaymentStatus `json:"paymentStatus,omitempty"`
	// Version is the tenant's webhook version when the event was made: it
	// shapes the body ("": made before versions were kept, the current one).
	Version APIVersion `json:"-"`
	// Body is the rendered body an event stored in the body form carries
	// instead of Payment and Dispute, sent as stored but for signedAt (nil:
	// the event carries its inputs).
	Body   json.RawMessage `json:"body"`
	Status string          `json:"status"`
	// NextAt is when the next attempt is due on the tenant clock (PENDING only;
	// zero means at once).
	NextAt   time.Time         `json:"nextAt,omitzero"`
	Attempts []DeliveryAttempt `json:"attempts,omitempty"`
	// TraceParent is the W3C traceparent of the request or job that caused
	// the event, when tracing was on ("" otherwise): each delivery attempt
	// is a span of that trace, and the webhook request carries it on.
	TraceParent string `json:"traceParent,omitempty"`
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

// DisputeStatus is a dispute's status (vendor DisputeStatusWebhookPayload).
// A dispute opens OPEN; the control plane and a scenario's dispute.then move
// it to any of DisputeMoves, from whatever status it has.
type DisputeStatus string

// The dispute statuses.
const (
	DisputeOpen       DisputeStatus = "OPEN"
	DisputeChallenged DisputeStatus = "CHALLENGED"
	DisputeAccepted   DisputeStatus = "ACCEPTED"
	DisputeWon        DisputeStatus = "WON"
	DisputeLost       DisputeStatus = "LOST"
	DisputeExpired    DisputeStatus = "EXPIRED"
	DisputeCancelled  DisputeStatus = "CANCELLED"
)

// DisputeStatuses lists every dispute status, the one a dispute opens with
// first; DisputeMoves the ones it can be moved to.
var (
	DisputeStatuses = []DisputeStatus{DisputeOpen, DisputeChallenged, DisputeAccepted, DisputeWon, DisputeLost, DisputeExpired, DisputeCancelled}
	DisputeMoves    = DisputeStatuses[1:]
)

// IsMove reports whether a dispute can be moved to s (any status but OPEN,
// whatever its current one).
func (s DisputeStatus) IsMove() bool { return slices.Contains(DisputeMoves, s) }

// Names is a list of enum values as strings (for schemas, completion and
// messages).
func Names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// Dispute types and reasons (vendor DisputeStatusWebhookPayload).
var (
	DisputeTypes = []string{"DISPUTE", "RETRIEVAL", "PREARBITRATION"}
	// DisputeReasons are the reasons the shipped scenarios and the
	// dashboard use, the first the default. The vendor's reason is free
	// text: any other is kept as given.
	DisputeReasons = []string{"FRAUDULENT", "PRODUCT_NOT_RECEIVED", "DUPLICATE", "GENERAL"}
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
	Status              DisputeStatus `json:"status"`
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
	// it but for signedAt: rendered from ev.Payment and ev.Dispute, or a
	// stored ev.Body (the body form) as it is.
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
