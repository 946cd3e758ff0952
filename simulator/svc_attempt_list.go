package simulator

import (
	"slices"
	"strings"
)

// ListAttempts returns the tenant's payment attempts, newest first, with
// expiry applied at the tenant's now; status filters them when not empty.
func (s *Service) ListAttempts(t *Tenant, status AttemptStatus) ([]*Attempt, error) {
	var all []*Attempt
	if err := s.Store.View(func(tx Tx) (err error) { all, err = tx.Attempts(t.ID); return }); err != nil {
		return nil, err
	}
	now := s.now(t)
	out := all[:0]
	for _, a := range all {
		a.Lapse(now)
		if status == "" || a.Status == status {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b *Attempt) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}
