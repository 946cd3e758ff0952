package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func payment(id string, status simulator.PaymentStatus) *simulator.Payment {
	return &simulator.Payment{ID: id, TenantID: "t1", Date: time.Unix(1700000000, 0).UTC(), Status: status, Amount: 100,
		Metadata: map[string]any{"k": "v"}, Transactions: []simulator.Transaction{}}
}

func read(t *testing.T, db *store.DB, tid, id string) *simulator.Payment {
	t.Helper()
	var p *simulator.Payment
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { p, err = tx.Payment(tid, id); return }))
	return p
}

// A read never serves a write that was rolled back, a deleted record, or a
// copy that a caller changed.
func TestPaymentReadsAfterRollbackDeleteAndChange(t *testing.T) {
	db := openDB(t)
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(payment("p1", simulator.StatusPending)) }))

	boom := errors.New("roll back")
	err := db.Update(func(tx simulator.Tx) error {
		require.NoError(t, tx.PutPayment(payment("p1", simulator.StatusAuthorized)))
		return boom
	})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, simulator.StatusPending, read(t, db, "t1", "p1").Status, "a rolled-back write must not be read")

	got := read(t, db, "t1", "p1")
	got.Status, got.Metadata["k"] = simulator.StatusFailed, "changed"
	again := read(t, db, "t1", "p1")
	assert.Equal(t, simulator.StatusPending, again.Status, "a caller's change must not reach the store's copy")
	assert.Equal(t, "v", again.Metadata["k"])

	assert.Nil(t, read(t, db, "t2", "p1"), "another tenant's id is unknown")
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t1", false) }))
	assert.Nil(t, read(t, db, "t1", "p1"), "reset data must be gone")
}

// Keys of one tenant never reach into another's range (ids and customer ids
// with separators, idempotency keys with any bytes).
func TestTenantScopedKeys(t *testing.T) {
	db := openDB(t)
	for _, tid := range []string{"a", "a:b"} { // one write transaction per tenant
		require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.ClaimIdempotency(tid, "k:1/\x00", "p-"+tid) }))
	}
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		for _, tid := range []string{"a", "a:b"} {
			pid, err := tx.Idempotency(tid, "k:1/\x00")
			require.NoError(t, err)
			assert.Equal(t, "p-"+tid, pid)
		}
		return nil
	}))
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("a", false) }))
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		pid, _ := tx.Idempotency("a:b", "k:1/\x00")
		assert.Equal(t, "p-a:b", pid, "resetting tenant a must not touch tenant a:b")
		return nil
	}))
}

// AfterCommit runs its functions once the transaction has committed (a read
// then sees the write), in order; never after a rollback or a read.
func TestAfterCommit(t *testing.T) {
	db := openDB(t)
	var ran []string
	seen := func(name string) func() {
		return func() { ran = append(ran, name+":"+string(read(t, db, "t1", "p1").Status)) }
	}
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		tx.AfterCommit(seen("a"))
		tx.AfterCommit(seen("b"))
		assert.Empty(t, ran, "nothing runs inside the transaction")
		return tx.PutPayment(payment("p1", simulator.StatusPending))
	}))
	assert.Equal(t, []string{"a:PENDING", "b:PENDING"}, ran)

	ran = nil
	err := db.Update(func(tx simulator.Tx) error {
		tx.AfterCommit(seen("rolled back"))
		if err := tx.PutPayment(payment("p1", simulator.StatusAuthorized)); err != nil {
			return err
		}
		return errors.New("no")
	})
	require.Error(t, err)
	require.NoError(t, db.View(func(tx simulator.Tx) error { tx.AfterCommit(seen("read")); return nil }))
	assert.Empty(t, ran)
}

// TestClosedStoreOpensNoFile: a read that comes after Close (an observer's
// timer, say) answers an error and opens no tenant file again: none is
// recreated after the directory was removed, and no tenant is reported
// missing.
func TestClosedStoreOpensNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ps.db")
	db, err := store.Open(path, store.FsyncEverySecond, store.Options{})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		return tx.PutTenant(&simulator.Tenant{ID: "t1", CreatedAt: time.Now()})
	}))
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(payment("p1", simulator.StatusAuthorized)) }))
	require.NoError(t, db.Close())
	require.NoError(t, os.RemoveAll(store.TenantsDir(path)))

	err = db.View(func(tx simulator.Tx) error { _, err := tx.Payment("t1", "p1"); return err })
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "TenantUnavailable", "a closed store is not a lost tenant")
	_, statErr := os.Stat(store.TenantsDir(path))
	assert.True(t, os.IsNotExist(statErr), "no tenant file is recreated after Close")
}
