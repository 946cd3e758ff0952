package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// TestChangesPerTenant: a committed write notifies exactly the tenants whose
// records it wrote (an id with the key separators included), after the
// commit; reads and rolled-back writes notify nobody.
func TestChangesPerTenant(t *testing.T) {
	tenants := []string{"a", "a:b", "c"}
	tests := []struct {
		name string
		run  func(t *testing.T, db *store.DB) error
		want []string // the tenants notified
	}{
		{"a payment of a", func(t *testing.T, db *store.DB) error {
			return db.Update(func(tx simulator.Tx) error {
				p := payment("p1", simulator.StatusAuthorized)
				p.TenantID = "a"
				return tx.PutPayment(p)
			})
		}, []string{"a"}},
		{"a tenant's data and another tenant's record in one transaction", func(t *testing.T, db *store.DB) error {
			return db.Update(func(tx simulator.Tx) error {
				if err := tx.ClaimIdempotency("a:b", "k", "p"); err != nil {
					return err
				}
				if err := tx.PutJob(&simulator.Job{ID: "j", TenantID: "a:b", Kind: simulator.JobSettle, Due: time.Unix(1, 0), RealDue: time.Unix(1, 0)}); err != nil {
					return err
				}
				return tx.PutTenant(&simulator.Tenant{ID: "c"})
			})
		}, []string{"a:b", "c"}},
		{"the tenant record", func(t *testing.T, db *store.DB) error {
			return db.Update(func(tx simulator.Tx) error { return tx.PutTenant(&simulator.Tenant{ID: "c", ClockOffset: time.Hour}) })
		}, []string{"c"}},
		{"a rolled-back write", func(t *testing.T, db *store.DB) error {
			err := db.Update(func(tx simulator.Tx) error {
				p := payment("p2", simulator.StatusAuthorized)
				p.TenantID = "a"
				if err := tx.PutPayment(p); err != nil {
					return err
				}
				return errors.New("roll back")
			})
			require.Error(t, err)
			return nil
		}, nil},
		{"a read", func(t *testing.T, db *store.DB) error {
			return db.View(func(tx simulator.Tx) error { _, err := tx.Payment("a", "p1"); return err })
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			chans := map[string]<-chan struct{}{}
			for _, tid := range tenants {
				chans[tid] = db.Changes().Next(tid)
			}
			require.NoError(t, tc.run(t, db))
			var got []string
			for _, tid := range tenants {
				select {
				case <-chans[tid]:
					got = append(got, tid)
				default:
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestChangesAfterCommit: a watcher woken by a write reads that write.
func TestChangesAfterCommit(t *testing.T) {
	db := openDB(t)
	changed := db.Changes().Next("t1")
	seen := make(chan *simulator.Payment)
	go func() {
		<-changed
		var p *simulator.Payment
		_ = db.View(func(tx simulator.Tx) (err error) { p, err = tx.Payment("t1", "p1"); return })
		seen <- p
	}()
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(payment("p1", simulator.StatusSettled)) }))
	p := <-seen
	require.NotNil(t, p)
	assert.Equal(t, simulator.StatusSettled, p.Status)
}
