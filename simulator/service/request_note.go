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
// guessing.
type RequestNote struct {
	mu        sync.Mutex
	paymentID string
	status    simulator.PaymentStatus
}

type requestNoteKey struct{}

// WithRequestNote returns ctx carrying a new note, and the note.
func WithRequestNote(ctx context.Context) (context.Context, *RequestNote) {
	n := &RequestNote{}
	return context.WithValue(ctx, requestNoteKey{}, n), n
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
