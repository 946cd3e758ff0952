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

	"github.com/paysandbox/paysandbox/simulator"
)

// logged is a store log kept for a test.
type logged struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logged) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{&l.mu, &l.b}, nil))
}

func (l *logged) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// closeTenant waits until tenant tid's file closed (idle) and its mark
// reaches the file's length.
func closeTenant(t *testing.T, db *DB, catalog, tid string) {
	t.Helper()
	eventually(t, func() bool {
		db.reg.mu.Lock()
		_, there := db.reg.m[tid] // out of the registry once its close is done
		db.reg.mu.Unlock()
		return !there
	}, tid+" never closed")
	st, err := os.Stat(tenantPath(catalog, tid))
	require.NoError(t, err)
	mark, ok := db.reg.marks.get(tid)
	require.True(t, ok, "a closed tenant with data has a mark")
	require.Equal(t, st.Size(), mark, "the mark is the closed file's length")
}

func codeOf(err error) simulator.Code { return simulator.ErrorCode(err) }

// A tenant known to have committed data whose file is missing or shorter
// than its mark answers TenantUnavailable (reads and writes alike; no new
// empty file), logged once with its path, until the loss is accepted; the
// tenant then opens with what its file has.
func TestLostTenantFileAnswersUnavailableUntilAccepted(t *testing.T) {
	cases := []struct {
		name    string
		damage  func(t *testing.T, path string)
		problem string
		left    int // payments readable after the loss is accepted
	}{
		{"removed", func(t *testing.T, path string) { require.NoError(t, os.Remove(path)) }, "its file is missing", 0},
		{"truncated to half", func(t *testing.T, path string) {
			st, err := os.Stat(path)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(path, st.Size()/2))
		}, "its file ends before its last fsynced commit", -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs logged
			path := filepath.Join(t.TempDir(), "ps.db")
			db := openTenants(t, path, Options{IdleClose: 20 * time.Millisecond, Log: logs.logger()})
			for i := range 6 {
				putPay(t, db, "t1", fmt.Sprintf("p%d", i))
			}
			closeTenant(t, db, path, "t1")
			tc.damage(t, tenantPath(path, "t1"))

			_, err := readPay(t, db, "t1", "p0")
			require.Error(t, err)
			assert.Equal(t, simulator.CodeTenantUnavailable, codeOf(err))
			assert.Contains(t, err.Error(), tc.problem)
			var se *simulator.Error
			require.True(t, errors.As(err, &se))
			assert.Contains(t, se.Recovery, "accept-loss t1", "the recovery names the command")
			err = db.Update(func(tx simulator.Tx) error { return tx.PutPayment(payOf("t1", "new")) })
			assert.Equal(t, simulator.CodeTenantUnavailable, codeOf(err), "a write is refused too: %v", err)
			var page simulator.PaymentPage
			err = db.View(func(tx simulator.Tx) (err error) {
				page, err = tx.ListPayments("t1", simulator.PaymentQuery{Limit: 10})
				return
			})
			assert.Equal(t, simulator.CodeTenantUnavailable, codeOf(err), "never an empty list")
			if tc.name == "removed" {
				_, statErr := os.Stat(tenantPath(path, "t1"))
				assert.True(t, errors.Is(statErr, os.ErrNotExist), "no empty file was made")
			}
			assert.Equal(t, 1, strings.Count(logs.String(), tenantPath(path, "t1")), "logged once, naming the file: %s", logs.String())

			lost, err := db.AcceptLoss("t1")
			require.NoError(t, err)
			assert.Contains(t, lost, tc.problem)
			_, marked := db.reg.marks.get("t1")
			assert.False(t, marked, "accepting the loss drops the mark")
			err = db.View(func(tx simulator.Tx) (err error) {
				page, err = tx.ListPayments("t1", simulator.PaymentQuery{Limit: 10})
				return
			})
			require.NoError(t, err)
			if tc.left >= 0 {
				assert.Len(t, page.Payments, tc.left)
			} else {
				assert.Less(t, len(page.Payments), 6, "a shorter file has fewer payments")
			}
			putPay(t, db, "t1", "after")
			p, err := readPay(t, db, "t1", "after")
			require.NoError(t, err)
			assert.NotNil(t, p)
			closeTenant(t, db, path, "t1") // marked again, at its new length

			again, err := db.AcceptLoss("t1")
			require.NoError(t, err)
			assert.Empty(t, again, "a whole file has nothing to accept")
		})
	}
}

// The mark is kept across restarts (it is the catalog's), and a tenant
// deleted whole leaves none.
func TestFileMarkSurvivesRestartAndGoesWithTheTenant(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ps.db")
	db, err := Open(path, FsyncEverySecond, Options{IdleClose: time.Hour})
	require.NoError(t, err)
	putPay(t, db, "t1", "p1")
	putPay(t, db, "t2", "p1")
	require.NoError(t, db.Close())
	require.NoError(t, os.Remove(tenantPath(path, "t1")))

	db = openTenants(t, path, Options{IdleClose: time.Hour})
	_, err = readPay(t, db, "t1", "p1")
	assert.Equal(t, simulator.CodeTenantUnavailable, codeOf(err), "%v", err)
	p, err := readPay(t, db, "t2", "p1")
	require.NoError(t, err)
	assert.NotNil(t, p, "another tenant is unaffected")

	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t2", true) }))
	_, marked := db.reg.marks.get("t2")
	assert.False(t, marked, "a deleted tenant's mark goes")
	cat, err := db.catalogGet(kFileMark("t2"))
	require.NoError(t, err)
	assert.Empty(t, cat)
}

// A file removed while its tenant is open is noticed at the next tick (an
// ERROR naming it) and written again from memory at close: the writes
// acknowledged after the removal are kept.
func TestFileRemovedWhileOpenIsWrittenAgainAtClose(t *testing.T) {
	for _, how := range []string{"idle close", "server close"} {
		t.Run(how, func(t *testing.T) {
			var logs logged
			path := filepath.Join(t.TempDir(), "ps.db")
			idle := time.Hour
			if how == "idle close" {
				idle = 20 * time.Millisecond
			}
			db, err := Open(path, FsyncEverySecond, Options{IdleClose: idle, Log: logs.logger()})
			require.NoError(t, err)
			t.Cleanup(func() { _ = db.Close() })
			release := db.Hold("t1") // open while the file is removed
			putPay(t, db, "t1", "p0")
			eventually(t, func() bool { _, ok := db.reg.marks.get("t1"); return ok }, "never marked")
			require.NoError(t, os.Remove(tenantPath(path, "t1")))
			for i := 1; i <= 5; i++ {
				putPay(t, db, "t1", fmt.Sprintf("p%d", i))
			}
			eventually(t, func() bool { return strings.Contains(logs.String(), "removed or replaced while open") }, "the removal was never noticed")
			assert.Contains(t, logs.String(), "level=ERROR")
			assert.Contains(t, logs.String(), tenantPath(path, "t1"))

			release()
			if how == "idle close" {
				closeTenant(t, db, path, "t1")
			} else {
				require.NoError(t, db.Close())
				db = openTenants(t, path, Options{IdleClose: time.Hour})
			}
			for i := 0; i <= 5; i++ {
				p, err := readPay(t, db, "t1", fmt.Sprintf("p%d", i))
				require.NoError(t, err)
				assert.NotNil(t, p, "p%d is kept", i)
			}
		})
	}
}

// damageValue overwrites the stored value of key in the buntdb file at path
// with as many 'x' bytes: the file still loads, the record does not decode.
func damageValue(t *testing.T, path, key string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	marker := []byte(key + "\r\n$")
	i := bytes.LastIndex(b, marker)
	require.GreaterOrEqual(t, i, 0, "%s is in the file", key)
	i += len(marker)
	j := bytes.Index(b[i:], []byte("\r\n"))
	var n int
	_, err = fmt.Sscanf(string(b[i:i+j]), "%d", &n)
	require.NoError(t, err)
	start := i + j + 2
	copy(b[start:start+n], bytes.Repeat([]byte("x"), n))
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

// A record that does not decode answers RecordUnreadable naming its key,
// from transactions and the lock-free readers alike; lists skip it and
// name it.
func TestDamagedRecordIsUnreadableAndSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ps.db")
	db, err := Open(path, FsyncEverySecond, Options{})
	require.NoError(t, err)
	for _, id := range []string{"p1", "p2", "p3"} {
		putPay(t, db, "t1", id)
	}
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		return tx.PutAttempt(&simulator.Attempt{ID: "a1", TenantID: "t1", Status: simulator.AttemptAwaiting})
	}))
	require.NoError(t, db.Close())
	damageValue(t, tenantPath(path, "t1"), kPayment("p2"))
	damageValue(t, tenantPath(path, "t1"), kAttempt("a1"))

	db = openTenants(t, path, Options{})
	_, err = readPay(t, db, "t1", "p2")
	require.Error(t, err)
	assert.Equal(t, simulator.CodeRecordUnreadable, codeOf(err))
	assert.Contains(t, err.Error(), kPayment("p2"))

	var page simulator.PaymentPage
	var unreadable []simulator.UnreadableRecord
	var attempts []*simulator.Attempt
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) {
		if page, err = tx.ListPayments("t1", simulator.PaymentQuery{Limit: 10}); err != nil {
			return err
		}
		if attempts, err = tx.Attempts("t1"); err != nil {
			return err
		}
		unreadable = tx.Unreadable()
		return nil
	}))
	require.Len(t, page.Payments, 2)
	assert.Empty(t, attempts)
	assert.Equal(t, []simulator.UnreadableRecord{
		{Key: kPayment("p2"), Kind: simulator.RecordPayment, ID: "p2"},
		{Key: kAttempt("a1"), Kind: simulator.RecordAttempt, ID: "a1"},
	}, unreadable)
}

// Nothing read from a file outlives its close: a payment read while the
// tenant was open is not served once the file was replaced by an older
// copy while closed.
func TestReadsForgetAClosedTenant(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ps.db")
	db := openTenants(t, path, Options{IdleClose: 20 * time.Millisecond})
	putPay(t, db, "t1", "p1")
	closeTenant(t, db, path, "t1")
	old, err := os.ReadFile(tenantPath(path, "t1"))
	require.NoError(t, err)

	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		p := payOf("t1", "p1")
		p.Status = simulator.StatusSettled
		return tx.PutPayment(p)
	}))
	putPay(t, db, "t1", "p2")
	for _, id := range []string{"p1", "p2"} {
		p, err := readPay(t, db, "t1", id)
		require.NoError(t, err)
		require.NotNil(t, p)
	}
	closeTenant(t, db, path, "t1")
	require.NoError(t, os.WriteFile(tenantPath(path, "t1"), old, 0o600)) // a backup restored

	_, err = readPay(t, db, "t1", "p2")
	assert.Equal(t, simulator.CodeTenantUnavailable, codeOf(err), "the older copy ends before the mark: %v", err)
	_, err = db.AcceptLoss("t1")
	require.NoError(t, err)
	p, err := readPay(t, db, "t1", "p1")
	require.NoError(t, err)
	require.NotNil(t, p)
	assert.Equal(t, simulator.StatusAuthorized, p.Status, "the restored file's payment, not the newer one read before")
	p, err = readPay(t, db, "t1", "p2")
	require.NoError(t, err)
	assert.Nil(t, p, "a payment the restored file does not have is not served")
}
