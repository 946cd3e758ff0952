package simulator

import "time"

// Event types of the outbox (webhooks).
const (
	EventPaymentStatus = "PAYMENT.STATUS"
	EventPaymentRefund = "PAYMENT.REFUND"
	EventDisputeOpened = "DISPUTE.OPENED"
)

// Delivery statuses of an event.
const (
	DeliveryPending   = "PENDING"
	DeliveryDelivered = "DELIVERED"
	DeliveryExhausted = "EXHAUSTED"
)

// Event is one outbox entry, written in the same transaction as the change
// that caused it. Its content is fixed when it is made: Payment is a snapshot.
type Event struct {
	ID        string            `json:"id"`
	TenantID  string            `json:"tenantId"`
	Type      string            `json:"eventType"`
	PaymentID string            `json:"paymentId"`
	CreatedAt time.Time         `json:"createdAt"`
	Payment   *Payment          `json:"payment,omitempty"`
	Refund    *Transaction      `json:"refund,omitempty"`
	Dispute   *Dispute          `json:"dispute,omitempty"`
	Status    string            `json:"status"`
	Attempts  []DeliveryAttempt `json:"attempts,omitempty"`
}

// DeliveryAttempt is one try at delivering an event.
type DeliveryAttempt struct {
	At               time.Time `json:"at"`
	StatusCode       int       `json:"statusCode"`
	LatencyMs        int64     `json:"latencyMs"`
	Error            string    `json:"error,omitempty"`
	ResponseBodyHead string    `json:"responseBodyHead,omitempty"`
}

// Dispute is a dispute opened on a payment.
type Dispute struct {
	ID            string    `json:"id"`
	PaymentID     string    `json:"paymentId"`
	Reason        string    `json:"reason"`
	Amount        int64     `json:"amount"`
	TransactionID string    `json:"transactionId"`
	OpenedAt      time.Time `json:"openedAt"`
}

// newEvent makes an outbox event of type typ about p. The store encodes the
// event (and so the payment as it is now) when it is appended, which fixes
// its content: append it once p holds the state the event is about.
func (s *Service) newEvent(typ string, p *Payment, now time.Time) *Event {
	return &Event{
		ID: s.IDs.NewID(IDUUID), TenantID: p.TenantID, Type: typ, PaymentID: p.ID,
		CreatedAt: now, Payment: p, Status: DeliveryPending,
	}
}
