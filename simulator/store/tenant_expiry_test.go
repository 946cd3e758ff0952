package store_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestTenantExpiryIndex: the expiry index follows the tenant record (set,
// moved, cleared, deleted with the tenant), so the scheduler never sees a
// stale expiry.
func TestTenantExpiryIndex(t *testing.T) {
	db := openDB(t)
	t0 := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	far := t0.Add(1000 * time.Hour)
	put := func(id string, exp time.Time) {
		require.NoError(t, db.Update(func(tx simulator.Tx) error {
			return tx.PutTenant(&simulator.Tenant{ID: id, APIKeys: []simulator.APIKey{{Key: "k-" + id}}, ExpiresAt: exp})
		}))
	}
	check := func(name string, wantIDs []string, wantNext time.Time) {
		t.Helper()
		require.NoError(t, db.View(func(tx simulator.Tx) error {
			ids, err := tx.ExpiringTenants(far, 0)
			require.NoError(t, err)
			assert.Equal(t, wantIDs, ids, name)
			next, err := tx.NextTenantExpiry()
			require.NoError(t, err)
			assert.Equal(t, wantNext, next, name)
			return nil
		}))
	}
	put("a", t0.Add(2*time.Hour))
	put("b", t0.Add(time.Hour))
	put("c", time.Time{})
	check("set: earliest first, no ttl not listed", []string{"b", "a"}, t0.Add(time.Hour))
	put("b", t0.Add(3*time.Hour))
	check("moved: the old entry goes", []string{"a", "b"}, t0.Add(2*time.Hour))
	put("a", time.Time{})
	check("cleared", []string{"b"}, t0.Add(3*time.Hour))
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("b", true) }))
	check("deleted with the tenant", nil, time.Time{})
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		ids, err := tx.ExpiringTenants(t0, 0)
		assert.Empty(t, ids, "until bounds the walk")
		return err
	}))
}

// TestExpiredTenantRecords: records are found by each key, pruned by age
// (at or before the bound) and by count (oldest first), and their keys go
// with them.
func TestExpiredTenantRecords(t *testing.T) {
	db := openDB(t)
	t0 := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	for i, id := range []string{"x1", "x2", "x3", "x4"} {
		at := t0.Add(time.Duration(i) * time.Hour)
		require.NoError(t, db.Update(func(tx simulator.Tx) error {
			return tx.PutExpiredTenant(&simulator.ExpiredTenant{TenantID: id, APIKeys: []string{"k-" + id, "k2-" + id}, ExpiredAt: at, DeletedAt: at})
		}))
	}
	found := func(key string) string {
		var x *simulator.ExpiredTenant
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { x, err = tx.ExpiredTenantByAPIKey(key); return }))
		if x == nil {
			return ""
		}
		return x.TenantID
	}
	assert.Equal(t, "x2", found("k2-x2"))
	prune := func(keep int, before time.Time) (oldest time.Time) {
		require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { oldest, err = tx.PruneExpiredTenants(keep, before); return }))
		return oldest
	}
	assert.Equal(t, t0.Add(time.Hour), prune(10, t0), "deleted at the bound: pruned")
	assert.Empty(t, found("k-x1"))
	assert.Empty(t, found("k2-x1"))
	assert.Equal(t, t0.Add(3*time.Hour), prune(1, t0), "beyond keep: the oldest go")
	assert.Empty(t, found("k-x2"))
	assert.Empty(t, found("k-x3"))
	assert.Equal(t, "x4", found("k-x4"))
	assert.Equal(t, t0.Add(3*time.Hour), prune(1, t0), "the count followed: nothing more to drop")
	assert.True(t, prune(0, t0).IsZero(), "none left")
}
