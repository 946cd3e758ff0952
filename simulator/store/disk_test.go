package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

func openFile(t *testing.T, path, fsync string) *DB {
	t.Helper()
	db, err := Open(path, fsync, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func putTenant(t *testing.T, db *DB, id, hook string) {
	t.Helper()
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		return tx.PutTenant(&simulator.Tenant{ID: id, WebhookURL: hook})
	}))
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Size()
}

// TestDiskCommits: under every policy a commit is in the file when Update
// returns (a kill -9 loses nothing); with "always" every commit is covered by
// an fsync before Update returns, concurrent writers sharing them.
func TestDiskCommits(t *testing.T) {
	for _, policy := range []string{FsyncAlways, FsyncEverySecond, FsyncNever} {
		t.Run(policy, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			db := openFile(t, path, policy)
			var wg sync.WaitGroup
			for w := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 20 {
						id := fmt.Sprintf("w%d-%d", w, i)
						putTenant(t, db, id, "http://x")
						raw, err := os.ReadFile(path)
						assert.NoError(t, err)
						assert.Contains(t, string(raw), "tenant:"+id, "in the file when Update returns")
					}
				}()
			}
			wg.Wait()
			n := db.disk.commits.Load()
			assert.Equal(t, uint64(160), n)
			if policy == FsyncAlways {
				db.disk.gmu.Lock()
				assert.GreaterOrEqual(t, db.disk.synced, n, "every commit was synced before its Update returned")
				db.disk.gmu.Unlock()
			}
		})
	}
}

// TestDiskShrink: the file is rewritten down to its live records when the
// rule says so (idle rule called directly; growth rule at Close), writes
// after a shrink land in the new file, and everything reads back after a
// reopen.
func TestDiskShrink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db := openFile(t, path, FsyncEverySecond)
	big := "http://" + strings.Repeat("x", 4000)
	for i := range 600 { // ~2.4 MB of overwrites of one record
		putTenant(t, db, "a", fmt.Sprintf("%s/%d", big, i))
	}
	before := fileSize(t, path)
	require.NoError(t, db.disk.shrinkIf(func(size, base int64) bool { return true }))
	after := fileSize(t, path)
	assert.Less(t, after, before/10, "shrunk to the live record")

	putTenant(t, db, "b", "http://after-shrink")
	for i := range 600 {
		putTenant(t, db, "a", fmt.Sprintf("%s/%d", big, 1000+i))
	}
	grown := fileSize(t, path)
	require.NoError(t, db.Close())
	assert.Less(t, fileSize(t, path), grown/10, "shrunk at close after growing")

	db2 := openFile(t, path, FsyncEverySecond)
	for id, want := range map[string]string{"a": big + "/1599", "b": "http://after-shrink"} {
		tn, err := db2.ReadTenant(id)
		require.NoError(t, err)
		require.NotNil(t, tn, id)
		assert.Equal(t, want, tn.WebhookURL)
	}
}

// TestDiskShrinkAfterPrune: a file whose events were pruned (by the webhook
// retention) is shrunk at Close even though it barely grew: the deleted
// records count toward the rule.
func TestDiskShrinkAfterPrune(t *testing.T) {
	catalog := filepath.Join(t.TempDir(), "db")
	path := filepath.Join(TenantsDir(catalog), TenantFileName("t1")) // the tenant's file
	db := openFile(t, catalog, FsyncNever)
	body := `{"pad":"` + strings.Repeat("x", 600) + `"}`
	at := time.UnixMicro(1700000000000000).UTC()
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		for i := range 3000 {
			e := &simulator.Event{ID: fmt.Sprintf("e%d", i), TenantID: "t1", PaymentID: "p1", Type: simulator.EventPaymentStatus,
				CreatedAt: at.Add(time.Duration(i) * time.Millisecond), Status: simulator.DeliveryExhausted, Body: []byte(body)}
			if err := tx.AppendEvent(e); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())
	full := fileSize(t, path)

	db = openFile(t, catalog, FsyncNever) // compact as opened: growth alone would not shrink it
	for {
		var n int
		require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { n, _, err = tx.PruneEvents("t1", 100, time.Time{}, ""); return }))
		if n == 0 {
			break
		}
	}
	assert.Less(t, fileSize(t, path), full+full/4, "deleting appends little")
	f, err := db.reg.acquire("t1", false)
	require.NoError(t, err)
	assert.Greater(t, f.disk.pruned.Load(), full/2)
	db.reg.release(f)
	require.NoError(t, db.Close())
	assert.Less(t, fileSize(t, path), full/10, "shrunk to the 100 events left")
}

// TestCloseOutOfTimeSkipsTheShrink: a close whose context is done flushes
// and closes every file without rewriting the ones that grew (a catalog of
// overwrites, a tenant file of pruned events); each keeps the marker
// instead, and its next open deletes the marker and shrinks it at its
// first tick. With time left the same close shrinks them (TestDiskShrink,
// TestDiskShrinkAfterPrune).
func TestCloseOutOfTimeSkipsTheShrink(t *testing.T) {
	catalog := filepath.Join(t.TempDir(), "db")
	tenantFile := filepath.Join(TenantsDir(catalog), TenantFileName("t1"))
	db, err := Open(catalog, FsyncNever, Options{})
	require.NoError(t, err)
	big := "http://" + strings.Repeat("x", 4000)
	for i := range 600 { // ~2.4 MB of overwrites of one record
		putTenant(t, db, "a", fmt.Sprintf("%s/%d", big, i))
	}
	body := `{"pad":"` + strings.Repeat("x", 600) + `"}`
	at := time.UnixMicro(1700000000000000).UTC()
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		for i := range 3000 {
			e := &simulator.Event{ID: fmt.Sprintf("e%d", i), TenantID: "t1", PaymentID: "p1", Type: simulator.EventPaymentStatus,
				CreatedAt: at.Add(time.Duration(i) * time.Millisecond), Status: simulator.DeliveryExhausted, Body: []byte(body)}
			if err := tx.AppendEvent(e); err != nil {
				return err
			}
		}
		return nil
	}))
	for {
		var n int
		require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { n, _, err = tx.PruneEvents("t1", 100, time.Time{}, ""); return }))
		if n == 0 {
			break
		}
	}
	grown := map[string]int64{catalog: fileSize(t, catalog), tenantFile: fileSize(t, tenantFile)}

	spent, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, db.CloseContext(spent))
	for path, size := range grown {
		assert.GreaterOrEqual(t, fileSize(t, path), size, "%s is not rewritten by a close out of time", path)
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Contains(t, string(raw), kShrinkDue, "%s is marked for its next open", path)
	}

	db = openFile(t, catalog, FsyncNever)
	f, err := db.reg.acquire("t1", false)
	require.NoError(t, err)
	defer db.reg.release(f)
	for path, d := range map[string]*disk{catalog: db.disk, tenantFile: f.disk} {
		require.Eventually(t, func() bool { return fileSize(t, path) < grown[path]/4 }, 20*time.Second, 50*time.Millisecond,
			"%s is shrunk after its next open", path)
		assert.False(t, d.due.Load())
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.NotContains(t, string(raw), kShrinkDue, "the marker is gone")
	}
	tn, err := db.ReadTenant("a")
	require.NoError(t, err)
	require.NotNil(t, tn)
	assert.Equal(t, big+"/599", tn.WebhookURL)
}
