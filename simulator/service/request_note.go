package service

import (
	"context"
	"sync"

	"github.com/paysandbox/paysandbox/simulator"
)

// RequestNote records, for the request that carries it, the payment the
// request has created or acted on. When the request timeout answers 504
// before the handler, the answer names that payment, so the caller knows
// what to read back (GET /payments/{id} or /_sandbox/wait) instead of
// guessing. It also carries the request's id, which a payment's later
// migration notes (a timeout resolved by the scheduler) name as their
// example request.
type RequestNote struct {
	requestID string

	mu        sync.Mutex
	paymentID string
	status    simulator.PaymentStatus
}

type requestNoteKey struct{}

// WithRequestNote returns ctx carrying a new note for request requestID,
// and the note.
func WithRequestNote(ctx context.Context, requestID string) (context.Context, *RequestNote) {
	n := &RequestNote{}
	return n.Carry(ctx, requestID), n
}

// Carry makes n, a zero note (a field of the caller's own per-request
// value, which spares it an allocation), the note of request requestID,
// and returns ctx carrying it.
func (n *RequestNote) Carry(ctx context.Context, requestID string) context.Context {
	n.requestID = requestID
	return context.WithValue(ctx, requestNoteKey{}, n)
}

// requestIDOf is the id of the request ctx's note is for ("" when none).
func requestIDOf(ctx context.Context) string {
	if n, _ := ctx.Value(requestNoteKey{}).(*RequestNote); n != nil {
		return n.requestID
	}
	return ""
}

// Payment is the payment noted so far ("" when none) and its status then.
func (n *RequestNote) Payment() (id string, status simulator.PaymentStatus) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.paymentID, n.status
}

// notePayment records p on ctx's note, if ctx carries one.
func notePayment(ctx context.Context, p *simulator.Payment) {
	n, _ := ctx.Value(requestNoteKey{}).(*RequestNote)
	if n == nil || p == nil {
		return
	}
	n.mu.Lock()
	n.paymentID, n.status = p.ID, p.Status
	n.mu.Unlock()
}
