package service

import "github.com/paysandbox/paysandbox/simulator"

// An X-Idempotency-Key is claimed (Tx.ClaimIdempotency) in the write
// transaction of the change it protects, and only when the request changed
// something; these checks refuse a key an earlier request already claimed.

// checkIdempotencyKey is checkIdempotency in a read transaction of its own
// (none when there is no key).
func (s *Service) checkIdempotencyKey(t *simulator.Tenant, key string) error {
	if key == "" {
		return nil
	}
	return s.store.View(func(tx simulator.Tx) error { return checkIdempotency(tx, t, key) })
}

// checkIdempotency answers 409 when the key was used by an earlier request that had an effect.
func checkIdempotency(tx simulator.Tx, t *simulator.Tenant, key string) error {
	if key == "" {
		return nil
	}
	pid, err := tx.Idempotency(t.ID, key)
	if err != nil || pid == "" {
		return err
	}
	e := simulator.Errorf(simulator.CodeIdempotencyKeyAlreadyExists, "The idempotency key %q already exists for transaction", key)
	e.PaymentID = pid
	if p, _ := tx.Payment(t.ID, pid); p != nil {
		e.PaymentStatus = string(p.Status)
	}
	return e
}
