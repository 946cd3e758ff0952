package service

import (
	"slices"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// Attempts lists the tenant's payment attempts newest first (by creation,
// then id), with expiry applied at the tenant's now; status, when not empty,
// keeps only attempts in that status.
func (s *Service) Attempts(t *simulator.Tenant, status simulator.AttemptStatus) ([]*simulator.Attempt, error) {
	list, _, err := s.AttemptsAndUnreadable(t, status)
	return list, err
}

// AttemptsAndUnreadable is Attempts, and the keys of the attempts left out
// because their records do not decode.
func (s *Service) AttemptsAndUnreadable(t *simulator.Tenant, status simulator.AttemptStatus) ([]*simulator.Attempt, []string, error) {
	var all []*simulator.Attempt
	var unreadable []string
	if err := s.store.View(func(tx simulator.Tx) (err error) {
		all, err = tx.Attempts(t.ID)
		unreadable = unreadableKeys(tx)
		return
	}); err != nil {
		return nil, nil, err
	}
	now := s.now(t)
	out := make([]*simulator.Attempt, 0, len(all))
	for _, a := range all {
		a.Lapse(now)
		if status == "" || a.Status == status {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b *simulator.Attempt) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, unreadable, nil
}

// Tenants lists every tenant, oldest first (tenant administration).
func (s *Service) Tenants() ([]*simulator.Tenant, error) {
	var all []*simulator.Tenant
	err := s.store.View(func(tx simulator.Tx) (err error) { all, err = tx.Tenants(); return })
	slices.SortFunc(all, func(a, b *simulator.Tenant) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return all, err
}

// DeleteTenantByID removes a tenant and all its data (tenant administration).
// Errors: NotFound when there is no such tenant.
func (s *Service) DeleteTenantByID(id string) (*simulator.Tenant, error) {
	var t *simulator.Tenant
	if err := s.store.View(func(tx simulator.Tx) (err error) { t, err = tx.Tenant(id); return }); err != nil {
		return nil, err
	}
	if t == nil {
		return nil, simulator.Errorf(simulator.CodeNotFound, "No tenant %q", id).WithRecovery("List the tenants with GET /_sandbox/tenants.")
	}
	return t, s.DeleteTenant(t)
}

// unreadableKeys are the keys of the records tx's lists left out because
// they do not decode.
func unreadableKeys(tx simulator.Tx) []string {
	var keys []string
	for _, r := range tx.Unreadable() {
		keys = append(keys, r.Key)
	}
	return keys
}

// lossAcceptor is the store's side of AcceptLoss (a store that keeps its
// tenants in files and knows how far each reaches).
type lossAcceptor interface {
	AcceptLoss(tenantID string) (lost string, err error)
}

// AcceptLoss accepts the loss of tenant id's data that its file no longer
// has (missing, or ending before its last fsynced commit): the tenant then
// opens with what its file has, empty when it is missing, instead of
// answering TenantUnavailable. It answers the loss accepted ("": the file
// had lost nothing). Errors: NotFound (no such tenant).
func (s *Service) AcceptLoss(id string) (string, error) {
	var t *simulator.Tenant
	if err := s.store.View(func(tx simulator.Tx) (err error) { t, err = tx.Tenant(id); return }); err != nil {
		return "", err
	}
	if t == nil {
		return "", simulator.Errorf(simulator.CodeNotFound, "No tenant %q", id).WithRecovery("List the tenants with GET /_sandbox/tenants.")
	}
	la, ok := s.store.(lossAcceptor)
	if !ok {
		return "", nil
	}
	return la.AcceptLoss(id)
}

// RevokeAPIKey removes key from its tenant, if any tenant has it, keeping the
// tenant and its data (--no-default-tenant on a store that has the default
// tenant from an earlier start). It reports whether a key was removed.
func (s *Service) RevokeAPIKey(key string) (bool, error) {
	removed := false
	err := s.store.Update(func(tx simulator.Tx) error {
		t, err := tx.TenantByAPIKey(key)
		if err != nil || t == nil {
			return err
		}
		t.APIKeys = slices.DeleteFunc(t.APIKeys, func(k simulator.APIKey) bool { return k.Key == key })
		removed = true
		return tx.PutTenant(t)
	})
	return removed, err
}
