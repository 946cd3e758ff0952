package store

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// openTenants opens a file-backed store in dir with opts, closed at the
// test's end.
func openTenants(t *testing.T, path string, opts Options) *DB {
	t.Helper()
	db, err := Open(path, FsyncNever, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func tenantPath(catalog, tid string) string {
	return filepath.Join(TenantsDir(catalog), TenantFileName(tid))
}

func payOf(tid, id string) *simulator.Payment {
	return &simulator.Payment{ID: id, TenantID: tid, Date: time.Unix(1700000000, 0).UTC(), Status: simulator.StatusAuthorized,
		Amount: 100, Transactions: []simulator.Transaction{}}
}

func putPay(t *testing.T, db *DB, tid, id string) {
	t.Helper()
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		if err := tx.PutTenant(&simulator.Tenant{ID: tid, APIKeys: []simulator.APIKey{{Key: "key-" + tid}}}); err != nil {
			return err
		}
		return tx.PutPayment(payOf(tid, id))
	}))
}

func readPay(t *testing.T, db *DB, tid, id string) (*simulator.Payment, error) {
	t.Helper()
	var p *simulator.Payment
	err := db.View(func(tx simulator.Tx) (err error) { p, err = tx.Payment(tid, id); return })
	return p, err
}

// fileKeys lists the keys of a closed buntdb file.
func fileKeys(t *testing.T, path string) []string {
	t.Helper()
	f, err := buntdb.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var keys []string
	require.NoError(t, f.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, _ string) bool { keys = append(keys, k); return true })
	}))
	return keys
}

// eventually polls cond (no bound on speed: only on the test's patience).
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Each tenant's records are in its own file, the catalog holds the tenant
// records, keys and hints only; client and challenge tokens are in their
// tenant's file.
func TestTenantFilesHoldTheirTenantOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openTenants(t, path, Options{})
	for _, tid := range []string{"t1", "a:b/c"} {
		putPay(t, db, tid, "p1")
		tok := simulator.WithTenant(tid, "cst_random")
		require.NoError(t, db.Update(func(tx simulator.Tx) error {
			if err := tx.PutSession(&simulator.ClientSession{ID: "cs1", TenantID: tid, ClientToken: tok}); err != nil {
				return err
			}
			if err := tx.PutChallenge(simulator.WithTenant(tid, "ch"), tid, "p1"); err != nil {
				return err
			}
			return tx.PutJob(&simulator.Job{ID: "j1", TenantID: tid, Kind: simulator.JobSettle, Due: time.Unix(10, 0), RealDue: time.Unix(10, 0)})
		}))
	}
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		for _, tid := range []string{"t1", "a:b/c"} {
			cs, err := tx.SessionByToken(simulator.WithTenant(tid, "cst_random"))
			require.NoError(t, err)
			require.NotNil(t, cs, tid)
			assert.Equal(t, tid, cs.TenantID)
			p, err := tx.PaymentByChallenge(simulator.WithTenant(tid, "ch"))
			require.NoError(t, err)
			require.NotNil(t, p, tid)
			assert.Equal(t, tid, p.TenantID)
		}
		cs, err := tx.SessionByToken("oldtoken")
		require.NoError(t, err)
		assert.Nil(t, cs, "a token that does not carry its tenant")
		return nil
	}))
	var cs *simulator.ClientSession
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) {
		cs, err = tx.SessionByToken(simulator.WithTenant("a:b/c", "cst_random"))
		return err
	}))
	require.NotNil(t, cs)
	require.NoError(t, db.Close())

	for _, tid := range []string{"t1", "a:b/c"} {
		keys := fileKeys(t, tenantPath(path, tid))
		require.NotEmpty(t, keys)
		for _, k := range keys {
			assert.False(t, strings.HasPrefix(k, "t:"), "%s in %s's file names its tenant", k, tid)
		}
		assert.Contains(t, keys, kTokSession(simulator.WithTenant(tid, "cst_random")))
	}
	for _, k := range fileKeys(t, path) {
		assert.False(t, strings.HasPrefix(k, "t:"), "tenant record %s in the catalog", k)
	}
	assert.Contains(t, fileKeys(t, path), "fileformat")
}

// A write transaction touches one tenant's data: a second one is an error
// naming both, and nothing of the first is committed.
func TestWriteTransactionTouchesOneTenant(t *testing.T) {
	db := openTenants(t, ":memory:", Options{})
	err := db.Update(func(tx simulator.Tx) error {
		if err := tx.PutPayment(payOf("t1", "p1")); err != nil {
			return err
		}
		return tx.PutPayment(payOf("t2", "p1"))
	})
	var two errTwoTenants
	require.ErrorAs(t, err, &two)
	assert.Contains(t, err.Error(), `"t1"`)
	assert.Contains(t, err.Error(), `"t2"`)
	p, err := readPay(t, db, "t1", "p1")
	require.NoError(t, err)
	assert.Nil(t, p, "rolled back")

	putPay(t, db, "t1", "p1")
	putPay(t, db, "t2", "p2")
	require.NoError(t, db.View(func(tx simulator.Tx) error { // a read visits several tenants
		for _, c := range [][2]string{{"t1", "p1"}, {"t2", "p2"}, {"t1", "p1"}} {
			p, err := tx.Payment(c[0], c[1])
			require.NoError(t, err)
			assert.NotNil(t, p, c)
		}
		return nil
	}))
}

// A tenant unused for IdleClose closes and reopens on the next use with
// everything readable; a Hold keeps it open however long.
func TestIdleCloseHoldAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openTenants(t, path, Options{IdleClose: 20 * time.Millisecond})
	putPay(t, db, "t1", "p1")
	putPay(t, db, "t2", "p1")
	release := db.Hold("t2")
	eventually(t, func() bool { return !db.reg.isOpen("t1") }, "t1 never closed")
	time.Sleep(100 * time.Millisecond) // many idle periods
	assert.True(t, db.reg.isOpen("t2"), "a held tenant stays open")

	p, err := readPay(t, db, "t1", "p1")
	require.NoError(t, err)
	require.NotNil(t, p, "reopened")
	assert.Equal(t, "p1", p.ID)
	assert.True(t, db.reg.isOpen("t1"))

	release()
	release() // idempotent
	eventually(t, func() bool { return !db.reg.isOpen("t2") }, "t2 never closed after its release")
	p, err = readPay(t, db, "t2", "p1")
	require.NoError(t, err)
	assert.NotNil(t, p)
}

// Work due within the idle period keeps a tenant open; ":memory:" never
// closes one.
func TestIdleCloseKeepsTenantsWithWorkDue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openTenants(t, path, Options{IdleClose: 20 * time.Millisecond})
	putPay(t, db, "t1", "p1")
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		return tx.AppendEvent(&simulator.Event{ID: "e1", TenantID: "t1", PaymentID: "p1", Type: simulator.EventPaymentStatus,
			CreatedAt: time.Unix(1700000000, 0).UTC(), Status: simulator.DeliveryPending})
	}))
	time.Sleep(100 * time.Millisecond)
	assert.True(t, db.reg.isOpen("t1"), "a tenant with pending events stays open")

	mem := openTenants(t, ":memory:", Options{IdleClose: time.Millisecond, MaxOpen: 1})
	putPay(t, mem, "t1", "p1")
	putPay(t, mem, "t2", "p1")
	time.Sleep(50 * time.Millisecond)
	assert.True(t, mem.reg.isOpen("t1"))
	assert.True(t, mem.reg.isOpen("t2"))
}

// Past MaxOpen the least recently used tenants nobody uses close; a held
// one never does, and none is refused.
func TestMaxOpenClosesLeastRecentlyUsed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openTenants(t, path, Options{IdleClose: time.Hour, MaxOpen: 2})
	putPay(t, db, "held", "p1")
	release := db.Hold("held")
	defer release()
	for _, tid := range []string{"a", "b", "c", "d"} {
		putPay(t, db, tid, "p1")
		time.Sleep(2 * time.Millisecond) // distinct last uses
	}
	eventually(t, func() bool { return len(db.reg.openFiles()) <= 2 }, "the bound was never restored")
	assert.True(t, db.reg.isOpen("held"), "a held tenant stays open")
	assert.True(t, db.reg.isOpen("d"), "the most recently used one stays open")
	for _, tid := range []string{"a", "b", "c", "d", "held"} {
		p, err := readPay(t, db, tid, "p1")
		require.NoError(t, err)
		assert.NotNil(t, p, tid)
	}
}

// After a restart, NextJob finds the earliest job of any tenant from the
// hints without a global queue; a hint left too early (its job deleted) is
// corrected, and TenantsWithPending lists the tenants with PENDING events.
func TestHintsAfterRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openTenants(t, path, Options{})
	at := time.Unix(1700000000, 0).UTC()
	job := func(tid, id string, due time.Time) *simulator.Job {
		return &simulator.Job{ID: id, TenantID: tid, Kind: simulator.JobSettle, Due: due, RealDue: due}
	}
	for _, j := range []*simulator.Job{job("t1", "j1", at.Add(2*time.Hour)), job("t2", "j2", at.Add(time.Hour)), job("t2", "j3", at.Add(3*time.Hour))} {
		require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutJob(j) }))
	}
	for i, st := range []string{simulator.DeliveryPending, simulator.DeliveryDelivered} {
		tid := []string{"t1", "t2"}[i]
		require.NoError(t, db.Update(func(tx simulator.Tx) error {
			return tx.AppendEvent(&simulator.Event{ID: "e1", TenantID: tid, PaymentID: "p1", Type: simulator.EventPaymentStatus, CreatedAt: at, Status: st})
		}))
	}
	require.NoError(t, db.Close())

	db = openTenants(t, path, Options{})
	assert.Empty(t, db.reg.openFiles(), "nothing opened at start")
	next := func() *simulator.Job {
		var j *simulator.Job
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { j, err = tx.NextJob(); return }))
		return j
	}
	require.NotNil(t, next())
	assert.Equal(t, "j2", next().ID)
	var ids []string
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { ids, err = tx.TenantsWithPending(); return }))
	assert.Equal(t, []string{"t1"}, ids)

	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteJob(job("t2", "j2", time.Time{})) }))
	assert.Equal(t, "j1", next().ID, "t2's hint was too early: the file says j3 is its next")
	h, err := db.catalogGet(kHint("t2"))
	require.NoError(t, err)
	assert.Equal(t, hint{JobDue: at.Add(3 * time.Hour)}.value(), h, "corrected in the catalog")

	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		e, err := tx.EventRecord("t1", "e1")
		if err != nil {
			return err
		}
		e.Status = simulator.DeliveryDelivered
		return tx.PutEvent(e)
	}))
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { ids, err = tx.TenantsWithPending(); return }))
	assert.Empty(t, ids, "an open tenant's file answers")
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { ids, err = tx.TenantsWithPending(); return }))
	assert.Empty(t, ids)
	assert.False(t, db.hints.get("t1").h.Pending, "the hint was corrected")
}

// A tenant whose file cannot be read answers TenantUnavailable (the log
// names the file, once: a failed retry within the hour is not logged
// again) while other tenants work; a repaired file comes back after the
// retry delay, and the log says so.
func TestCorruptTenantFileStaysLocal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openTenants(t, path, Options{})
	putPay(t, db, "bad", "p1")
	putPay(t, db, "good", "p1")
	require.NoError(t, db.Close())
	good, err := os.ReadFile(tenantPath(path, "bad"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(tenantPath(path, "bad"), []byte("*3\r\n$3\r\nset\r\ngarbage\x00\x01\x02 not a buntdb file\n"), 0o600))

	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	db = openTenants(t, path, Options{Log: log})
	for range 2 {
		_, err = readPay(t, db, "bad", "p1")
		var se *simulator.Error
		require.True(t, errors.As(err, &se), "%v", err)
		assert.Equal(t, simulator.CodeTenantUnavailable, se.Code)
		err = db.Update(func(tx simulator.Tx) error { return tx.PutPayment(payOf("bad", "p2")) })
		require.True(t, errors.As(err, &se), "%v", err)
		assert.Equal(t, simulator.CodeTenantUnavailable, se.Code)
	}
	p, err := readPay(t, db, "good", "p1")
	require.NoError(t, err)
	assert.NotNil(t, p, "another tenant works")
	tn, err := db.ReadTenantByAPIKey("key-bad")
	require.NoError(t, err)
	assert.NotNil(t, tn, "the catalog still knows the tenant")
	mu.Lock()
	assert.Equal(t, 1, strings.Count(logs.String(), tenantPath(path, "bad")), "logged once, naming the file: %s", logs.String())
	mu.Unlock()

	retryDue := func() {
		db.reg.mu.Lock()
		db.reg.m["bad"].errAt = time.Now().Add(-openRetry) // as if the retry delay passed
		db.reg.mu.Unlock()
	}
	retryDue()
	_, err = readPay(t, db, "bad", "p1")
	require.Error(t, err, "still broken at the retry")
	mu.Lock()
	assert.Equal(t, 1, strings.Count(logs.String(), tenantPath(path, "bad")), "a failed retry is not logged again within the hour: %s", logs.String())
	mu.Unlock()

	db.reg.failMu.Lock()
	db.reg.failing["bad"] = time.Now().Add(-failingWarnEvery) // as if logged an hour ago
	db.reg.failMu.Unlock()
	retryDue()
	_, err = readPay(t, db, "bad", "p1")
	require.Error(t, err)
	mu.Lock()
	assert.Equal(t, 1, strings.Count(logs.String(), "level=WARN"), "an hour on, a WARN: %s", logs.String())
	mu.Unlock()

	require.NoError(t, os.WriteFile(tenantPath(path, "bad"), good, 0o600)) // repaired
	retryDue()
	p, err = readPay(t, db, "bad", "p1")
	require.NoError(t, err)
	assert.NotNil(t, p, "a repaired file comes back")
	mu.Lock()
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	mu.Unlock()
	require.Len(t, lines, 3)
	assert.Contains(t, lines[2], "level=INFO")
	assert.Contains(t, lines[2], "opens again")
	assert.Contains(t, lines[2], tenantPath(path, "bad"))
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// Reset drops the tenant's data and keeps its settings; delete removes the
// tenant's records and its file.
func TestResetAndDeleteTenant(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openTenants(t, path, Options{})
	putPay(t, db, "t1", "p1")
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		tn, err := tx.Tenant("t1")
		if err != nil {
			return err
		}
		tn.WebhookURL = "http://hook"
		return tx.PutTenant(tn)
	}))
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t1", false) }))
	p, err := readPay(t, db, "t1", "p1")
	require.NoError(t, err)
	assert.Nil(t, p, "data gone")
	tn, err := db.ReadTenant("t1")
	require.NoError(t, err)
	require.NotNil(t, tn, "settings stay")
	assert.Equal(t, "http://hook", tn.WebhookURL)

	putPay(t, db, "t1", "p2")
	p, err = readPay(t, db, "t1", "p2")
	require.NoError(t, err)
	require.NotNil(t, p)
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t1", true) }))
	tn, err = db.ReadTenantByAPIKey("key-t1")
	require.NoError(t, err)
	assert.Nil(t, tn, "the tenant is gone")
	p, err = readPay(t, db, "t1", "p2")
	require.NoError(t, err)
	assert.Nil(t, p, "and its records")
	eventually(t, func() bool {
		entries, err := os.ReadDir(TenantsDir(path))
		return err == nil && len(entries) == 0
	}, "the tenant's file was not removed")
}

// Many writers and readers over more tenants than the bound, with a tiny
// idle period, while the loop closes and evicts: every write reads back
// (run with -race).
func TestTenantsOpenAndCloseUnderLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openTenants(t, path, Options{IdleClose: time.Millisecond, MaxOpen: 2})
	tenants := []string{"t0", "t1", "t2", "t3", "t4", "t5"}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 25 {
				tid := tenants[(w+i)%len(tenants)]
				id := fmt.Sprintf("p-%d-%d", w, i)
				assert.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(payOf(tid, id)) }))
				p, err := readPay(t, db, tid, id)
				assert.NoError(t, err)
				assert.NotNil(t, p, id)
				if i%5 == 0 {
					release := db.Hold(tid)
					time.Sleep(time.Millisecond)
					release()
				}
			}
		})
	}
	wg.Wait()
	for w := range 8 {
		for i := range 25 {
			p, err := readPay(t, db, tenants[(w+i)%len(tenants)], fmt.Sprintf("p-%d-%d", w, i))
			require.NoError(t, err)
			require.NotNil(t, p)
		}
	}
}
