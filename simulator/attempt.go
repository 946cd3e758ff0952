package simulator

import "time"

// AttemptStatus is the state of a payment attempt.
type AttemptStatus string

// Attempt states (docs/api.md, Payment attempt).
const (
	AttemptAwaiting AttemptStatus = "AWAITING_APPROVAL"
	AttemptApproved AttemptStatus = "APPROVED"
	AttemptAborted  AttemptStatus = "ABORTED"
	AttemptExpired  AttemptStatus = "EXPIRED"
)

// Attempt is a payment attempt of a MANUAL session, awaiting the merchant's decision.
type Attempt struct {
	ID        string        `json:"id"`
	TenantID  string        `json:"tenantId"`
	SessionID string        `json:"sessionId"`
	Token     string        `json:"token"`
	Status    AttemptStatus `json:"status"`
	CreatedAt time.Time     `json:"createdAt"`
	ExpiresAt time.Time     `json:"expiresAt"`
	UpdatedAt time.Time     `json:"updatedAt"`
	PaymentID string        `json:"paymentId,omitempty"`
}

// Lapse applies expiry at now: an awaiting attempt past its ExpiresAt becomes
// EXPIRED. It reports whether the attempt changed.
func (a *Attempt) Lapse(now time.Time) bool {
	if a.Status == AttemptAwaiting && !now.Before(a.ExpiresAt) {
		// it expired at its expiry time, whenever that is noticed (a read, an
		// approve, the expiry job, or a clock advance that jumped past it)
		a.Status, a.UpdatedAt = AttemptExpired, a.ExpiresAt
		return true
	}
	return false
}

// CheckApprove is the approve row of the lifecycle table (docs/api.md), in
// its order: session MANUAL, payment exists, expired, current and awaiting.
// Existence (404) is the caller's. p is the attempt's payment when it has one.
func (a *Attempt) CheckApprove(s *ClientSession, p *Payment, now time.Time) error {
	a.Lapse(now)
	switch {
	case s == nil || s.ApprovalMode != ApprovalManual:
		return Errorf(CodeClientSessionNotManual, "The client session of this payment attempt is not in MANUAL approval mode")
	case a.PaymentID != "":
		e := Errorf(CodeIdempotencyKeyAlreadyExists, "The payment attempt %s was already approved", a.ID)
		e.PaymentID = a.PaymentID
		if p != nil {
			e.PaymentStatus = string(p.Status)
		}
		return e
	case a.Status == AttemptExpired:
		return Errorf(CodePaymentAttemptExpired, "The payment attempt has expired and can no longer be approved")
	case a.Status != AttemptAwaiting:
		return Errorf(CodeInvalidPaymentAttemptTransition, "A payment attempt in status %s cannot be approved", a.Status)
	case s.CurrentAttemptID != a.ID:
		return Errorf(CodeInvalidPaymentAttemptTransition, "The payment attempt is not the current attempt of its client session")
	}
	return nil
}

// Expire is the control plane's expire: an awaiting attempt (current or
// superseded) becomes EXPIRED at now; an expired one stays so. Errors:
// InvalidPaymentAttemptTransition (approved or aborted).
func (a *Attempt) Expire(now time.Time) error {
	a.Lapse(now)
	switch a.Status {
	case AttemptExpired:
		return nil
	case AttemptAwaiting:
		a.Status, a.UpdatedAt, a.ExpiresAt = AttemptExpired, now, now
		return nil
	}
	return Errorf(CodeInvalidPaymentAttemptTransition, "A payment attempt in status %s cannot expire", a.Status)
}

// CheckAbort: only an awaiting attempt (current or superseded) can be aborted.
func (a *Attempt) CheckAbort(now time.Time) error {
	a.Lapse(now)
	switch a.Status {
	case AttemptAwaiting:
		return nil
	case AttemptExpired:
		return Errorf(CodePaymentAttemptExpired, "The payment attempt has expired")
	}
	return Errorf(CodeInvalidPaymentAttemptTransition, "A payment attempt in status %s cannot be aborted", a.Status)
}
