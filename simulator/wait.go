package simulator

import (
	"context"
	"sync"
	"time"
)

// MaxOpenWaits bounds concurrent /_sandbox/wait calls.
const MaxOpenWaits = 1024

// waitHub wakes waiters when a payment changes.
type waitHub struct {
	mu   sync.Mutex
	subs map[string][]chan struct{}
	open int
}

func (h *waitHub) subscribe(id string) (chan struct{}, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open >= MaxOpenWaits {
		return nil, false
	}
	if h.subs == nil {
		h.subs = map[string][]chan struct{}{}
	}
	ch := make(chan struct{})
	h.subs[id] = append(h.subs[id], ch)
	h.open++
	return ch, true
}

// release ends one wait; ch (when the wait ends without a notification) is
// removed so abandoned waits do not pile up on a payment that never changes.
func (h *waitHub) release(id string, ch chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.open--
	if ch == nil {
		return
	}
	subs := h.subs[id]
	for i, c := range subs {
		if c == ch {
			subs = append(subs[:i], subs[i+1:]...)
			break
		}
	}
	if len(subs) == 0 {
		delete(h.subs, id)
	} else {
		h.subs[id] = subs
	}
}

func (h *waitHub) notify(id string) {
	h.mu.Lock()
	chs := h.subs[id]
	delete(h.subs, id)
	h.mu.Unlock()
	for _, ch := range chs {
		close(ch)
	}
}

// OpenWaits is how many /_sandbox/wait calls are waiting now.
func (s *Service) OpenWaits() int {
	s.waits.mu.Lock()
	defer s.waits.mu.Unlock()
	return s.waits.open
}

// WaitForStatus returns the payment once it has status, waiting up to timeout.
// Errors: PaymentError (unknown), WaitTimeout (with paymentId/paymentStatus:
// at the timeout, or at once when the payment is terminal in another status),
// TooManyRequests.
func (s *Service) WaitForStatus(ctx context.Context, t *Tenant, id string, status PaymentStatus, timeout time.Duration) (*Payment, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ch, ok := s.waits.subscribe(id)
		if !ok {
			return nil, Errorf(CodeTooManyRequests, "Too many open waits").WithRecovery("Retry shortly.")
		}
		p, err := s.Payment(t, id)
		if err != nil || p.Status == status {
			s.waits.release(id, ch)
			return p, err
		}
		if p.Status.Terminal() {
			s.waits.release(id, ch)
			return nil, Errorf(CodeWaitTimeout, "The payment is %s and will not become %s", p.Status, status).WithPayment(p)
		}
		select {
		case <-ch:
			s.waits.release(id, nil) // notify already removed it
		case <-deadline.C:
			s.waits.release(id, ch)
			return nil, Errorf(CodeWaitTimeout, "The payment did not reach %s within %s", status, timeout).WithPayment(p)
		case <-ctx.Done():
			s.waits.release(id, ch)
			return nil, Errorf(CodeWaitTimeout, "The wait was cancelled").WithPayment(p)
		}
	}
}
