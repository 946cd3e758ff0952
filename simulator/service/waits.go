package service

import (
	"context"
	"sync"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// waitHub wakes waiters when a payment changes.
type waitHub struct {
	mu   sync.Mutex
	subs map[string][]chan struct{}
	open int
}

// subscribe registers a wait on payment id; the channel is closed at its
// next change. The number of waits is bounded by Service.Held(), per tenant.
func (h *waitHub) subscribe(id string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[string][]chan struct{}{}
	}
	ch := make(chan struct{})
	h.subs[id] = append(h.subs[id], ch)
	h.open++
	return ch
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
// A wait that is already satisfied (or can never be) answers before the
// tenant's cap of held requests applies. At shutdown (Held.Stopping) an open
// wait answers the payment's current state: the payment when it has status,
// else WaitTimeout. Errors: PaymentError (unknown), WaitTimeout (with
// paymentId/paymentStatus: at the timeout, or at once when the payment is
// terminal in another status), TooManyRequests (the tenant's cap).
func (s *Service) WaitForStatus(ctx context.Context, t *simulator.Tenant, id string, status simulator.PaymentStatus, timeout time.Duration) (*simulator.Payment, error) {
	p, done, err := s.waitCheck(t, id, status)
	if done || timeout <= 0 {
		if !done && err == nil {
			err = simulator.Errorf(simulator.CodeWaitTimeout, "The payment did not reach %s within %s", status, timeout).WithPayment(p)
		}
		return p, err
	}
	release, err := s.held.Acquire(t.ID)
	if err != nil {
		return nil, err
	}
	defer release()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ch := s.waits.subscribe(id) // before the read, so no change is missed
		p, done, err := s.waitCheck(t, id, status)
		if done {
			s.waits.release(id, ch)
			return p, err
		}
		select {
		case <-ch:
			s.waits.release(id, nil) // notify already removed it
			continue
		case <-deadline.C:
			s.waits.release(id, ch)
			return nil, simulator.Errorf(simulator.CodeWaitTimeout, "The payment did not reach %s within %s", status, timeout).WithPayment(p)
		case <-ctx.Done():
			s.waits.release(id, ch)
			return nil, simulator.Errorf(simulator.CodeWaitTimeout, "The wait was cancelled").WithPayment(p)
		case <-s.held.Stopping():
			s.waits.release(id, ch)
			if p, done, err := s.waitCheck(t, id, status); done {
				return p, err
			} else if err == nil {
				return nil, simulator.Errorf(simulator.CodeWaitTimeout, "The sandbox is shutting down; the payment is %s", p.Status).WithPayment(p)
			}
			return nil, err
		}
	}
}

// waitCheck reads the payment and says whether the wait is over: it has the
// status (the payment), it is unknown (the error), or it is terminal in
// another status (WaitTimeout). Otherwise done is false and p is the payment.
func (s *Service) waitCheck(t *simulator.Tenant, id string, status simulator.PaymentStatus) (p *simulator.Payment, done bool, err error) {
	p, err = s.Payment(t, id)
	switch {
	case err != nil:
		return nil, true, err
	case p.Status == status:
		return p, true, nil
	case p.Status.Terminal():
		return nil, true, simulator.Errorf(simulator.CodeWaitTimeout, "The payment is %s and will not become %s", p.Status, status).WithPayment(p)
	}
	return p, false, nil
}

// Changed returns a channel closed at the tenant's next change (see
// simulator.ChangeFeed).
func (s *Service) Changed(tenantID string) <-chan struct{} { return s.store.Changes().Next(tenantID) }

// NoteChange signals a change of what the tenant sees that the store does not
// hold (the request journal), so that live views refresh.
func (s *Service) NoteChange(tenantID string) { s.store.Changes().Notify(tenantID) }
