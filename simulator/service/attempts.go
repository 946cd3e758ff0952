package service

import (
	"context"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// ApproveResult is the 200 answer of approve.
type ApproveResult struct {
	AttemptID string
	PaymentID string
}

// ApproveAttempt approves a payment attempt: the payment is created in the
// same store transaction as the attempt's change, and its authorization runs
// in the background (a job). Errors, in this order: PaymentAttemptNotFound,
// ClientSessionNotManual, IdempotencyKeyAlreadyExists, PaymentAttemptExpired,
// InvalidPaymentAttemptTransition; RequestValidationError when the session
// lacks amount, currency or orderId (the attempt stays as it was).
func (s *Service) ApproveAttempt(ctx context.Context, t *simulator.Tenant, id string) (ApproveResult, error) {
	var res ApproveResult
	var pid string
	err := s.update(ctx, func(tx simulator.Tx) error {
		a, cs, err := attemptFor(tx, t, id)
		if err != nil {
			return err
		}
		var prior *simulator.Payment
		if a.PaymentID != "" {
			if prior, err = tx.Payment(t.ID, a.PaymentID); err != nil {
				return err
			}
		}
		now := s.now(t)
		if err := a.CheckApprove(cs, prior, now); err != nil {
			return err
		}
		in, err := tx.Instrument(t.ID, a.Token)
		if err != nil {
			return err
		}
		if in == nil || in.Used || in.Invalidated {
			return simulator.Errorf(simulator.CodeInvalidPaymentAttemptTransition, "The payment method of this attempt can no longer be used")
		}
		p, err := s.buildPayment(t, in, cs, PaymentRequest{})
		if err != nil {
			return err
		}
		p.AttemptID = a.ID
		if err := applyOneShot(tx, t.ID, p); err != nil {
			return err
		}
		a.Status, a.PaymentID, a.UpdatedAt = simulator.AttemptApproved, p.ID, now
		in.Used = true
		if err := tx.PutAttempt(a); err != nil {
			return err
		}
		if err := tx.PutInstrument(in); err != nil {
			return err
		}
		res, pid = ApproveResult{AttemptID: a.ID, PaymentID: p.ID}, p.ID
		return s.insertPayment(tx, t, p)
	})
	if err != nil {
		return res, err
	}
	s.waits.notify(pid)
	s.Kick()
	return res, nil
}

// attemptFor loads an attempt of tenant t and its session. Errors: PaymentAttemptNotFound.
func attemptFor(tx simulator.Tx, t *simulator.Tenant, id string) (*simulator.Attempt, *simulator.ClientSession, error) {
	a, err := tx.Attempt(t.ID, id)
	if err != nil {
		return nil, nil, err
	}
	if a == nil {
		return nil, nil, simulator.Errorf(simulator.CodePaymentAttemptNotFound, "The payment attempt could not be found")
	}
	cs, err := tx.Session(t.ID, a.SessionID)
	return a, cs, err
}

// AbortAttempt aborts an awaiting attempt: no payment, the token invalidated.
// Errors: PaymentAttemptNotFound, PaymentAttemptExpired, InvalidPaymentAttemptTransition.
func (s *Service) AbortAttempt(t *simulator.Tenant, id string) (*simulator.Attempt, error) {
	var out *simulator.Attempt
	err := s.store.Update(func(tx simulator.Tx) error {
		a, _, err := attemptFor(tx, t, id)
		if err != nil {
			return err
		}
		now := s.now(t)
		if err := a.CheckAbort(now); err != nil {
			return err
		}
		a.Status, a.UpdatedAt = simulator.AttemptAborted, now
		if in, err := tx.Instrument(t.ID, a.Token); err != nil {
			return err
		} else if in != nil {
			in.Invalidated = true
			if err := tx.PutInstrument(in); err != nil {
				return err
			}
		}
		out = a
		return tx.PutAttempt(a)
	})
	return out, err
}

// Attempt reads an attempt (the caller's own), with expiry applied at the
// tenant's now.
// Errors: PaymentAttemptNotFound.
func (s *Service) Attempt(t *simulator.Tenant, id string) (*simulator.Attempt, error) {
	var a *simulator.Attempt
	err := s.store.View(func(tx simulator.Tx) (err error) { a, err = tx.Attempt(t.ID, id); return })
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, simulator.Errorf(simulator.CodePaymentAttemptNotFound, "The payment attempt could not be found")
	}
	a.Lapse(s.now(t))
	return a, nil
}

// ExpireAttempt expires an awaiting attempt now (control plane).
// Errors: PaymentAttemptNotFound, InvalidPaymentAttemptTransition.
func (s *Service) ExpireAttempt(t *simulator.Tenant, id string) (*simulator.Attempt, error) {
	var out *simulator.Attempt
	err := s.store.Update(func(tx simulator.Tx) error {
		a, _, err := attemptFor(tx, t, id)
		if err != nil {
			return err
		}
		if err := a.Expire(s.now(t)); err != nil {
			return err
		}
		out = a
		return tx.PutAttempt(a)
	})
	return out, err
}

// expireAttemptJob is the attempt TTL firing.
func (s *Service) expireAttemptJob(tx simulator.Tx, t *simulator.Tenant, j *simulator.Job, now time.Time) error {
	a, err := tx.Attempt(t.ID, j.AttemptID)
	if err != nil || a == nil {
		return err
	}
	if a.Lapse(now) {
		return tx.PutAttempt(a)
	}
	return nil
}
