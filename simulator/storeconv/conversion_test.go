package storeconv_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

// devLayout makes the store at path, written by this build, one of the
// builds before the first release: its catalog marked with marker under the
// key they kept it in, with no format number, and every key of each tenant
// file naming its tenant ("t:<tenant>:..."), as their keys did.
func devLayout(t *testing.T, path, marker string) {
	t.Helper()
	editFile(t, path, [2]string{storeconv.KeyFormat, ""}, [2]string{"format", marker})
	dir := path + ".tenants"
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	esc := strings.NewReplacer("%", "%25", ":", "%3A", "/", "%2F")
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".db") {
			continue
		}
		tid, err := url.PathUnescape(strings.TrimSuffix(e.Name(), ".db"))
		require.NoError(t, err)
		f := filepath.Join(dir, e.Name())
		var pairs [][2]string
		db, err := buntdb.Open(f)
		require.NoError(t, err)
		require.NoError(t, db.View(func(tx *buntdb.Tx) error {
			return tx.Ascend("", func(k, v string) bool {
				pairs = append(pairs, [2]string{k, v})
				return true
			})
		}))
		require.NoError(t, db.Update(func(tx *buntdb.Tx) error {
			for _, p := range pairs {
				if _, err := tx.Delete(p[0]); err != nil {
					return err
				}
				if _, _, err := tx.Set("t:"+esc.Replace(tid)+":"+p[0], p[1], nil); err != nil {
					return err
				}
			}
			return nil
		}))
		require.NoError(t, db.Close())
	}
}

// editFile applies pairs (an empty value deletes the key) to the buntdb
// file at path, the store closed.
func editFile(t *testing.T, path string, pairs ...[2]string) {
	t.Helper()
	db, err := buntdb.Open(path)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *buntdb.Tx) error {
		for _, p := range pairs {
			if p[1] == "" {
				if _, err := tx.Delete(p[0]); err != nil {
					return err
				}
				continue
			}
			if _, _, err := tx.Set(p[0], p[1], nil); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())
}

// fileKeys lists the keys of the buntdb file at path.
func fileKeys(t *testing.T, path string) []string {
	t.Helper()
	db, err := buntdb.Open(path)
	require.NoError(t, err)
	defer db.Close()
	var keys []string
	require.NoError(t, db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, _ string) bool { keys = append(keys, k); return true })
	}))
	return keys
}

// fileValue is the value at key in the buntdb file at path ("" for none).
func fileValue(t *testing.T, path, key string) string {
	t.Helper()
	db, err := buntdb.Open(path)
	require.NoError(t, err)
	defer db.Close()
	var v string
	require.NoError(t, db.View(func(tx *buntdb.Tx) error {
		v, _ = tx.Get(key)
		return nil
	}))
	return v
}

func openStore(t *testing.T, path string, log *slog.Logger) *store.DB {
	t.Helper()
	db, err := store.Open(path, store.FsyncNever, store.Options{Log: log})
	require.NoError(t, err)
	return db
}

// A new store is format 1 from the start; a catalog of a later build's
// format, or of a format no build wrote, is refused with what to do, and
// left as it was.
func TestFormatNumber(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	require.NoError(t, openStore(t, path, nil).Close())
	assert.Equal(t, "1", fileValue(t, path, storeconv.KeyFormat))
	assert.Empty(t, fileValue(t, path, "layout"))

	for _, tt := range []struct{ format, want string }{
		{"2", "written by a later build"},
		{"abc", `its format "abc" is not one this build knows`},
	} {
		t.Run(tt.format, func(t *testing.T) {
			editFile(t, path, [2]string{storeconv.KeyFormat, tt.format})
			_, err := store.Open(path, store.FsyncNever, store.Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), path)
			assert.Equal(t, tt.format, fileValue(t, path, storeconv.KeyFormat), "left as it was")
		})
	}
}

// putTenantSession stores tenant t1 (key k1) and its client session cs1
// of client token tok.
func putTenantSession(tx simulator.Tx, tok string) error {
	if err := tx.PutTenant(&simulator.Tenant{ID: "t1", APIKeys: []simulator.APIKey{{Key: "k1"}}}); err != nil {
		return err
	}
	return tx.PutSession(&simulator.ClientSession{ID: "cs1", TenantID: "t1", ClientToken: tok})
}

// A store of the tenant-file layout before format numbers (its catalog
// marked "cbor1") is converted at the next open: the catalog's lookup
// table of tokens goes into the tenants' files (tokens that carry their
// tenant resolve; others are dropped and counted), an event's body kept
// apart (evb:) and an id entry holding the event's whole key are rewritten,
// the catalog gets the format number. A second open does not convert.
func TestConvertTenantFileLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openStore(t, path, nil)
	tok := simulator.WithTenant("t1", "cst_old")
	created := time.UnixMicro(1700000000123456).UTC()
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		if err := putTenantSession(tx, tok); err != nil {
			return err
		}
		return tx.AppendEvent(&simulator.Event{ID: "e1", TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "p1",
			CreatedAt: created, Status: simulator.DeliveryDelivered})
	}))
	tenantFile := db.TenantFile("t1")
	require.NoError(t, db.Close())
	evtKey := "t:t1:evt:" + stampOf(created) + ":e1"
	devLayout(t, path, "cbor1")
	editFile(t, path, [2]string{"layout", "tenant-files/1"},
		[2]string{"ctok:" + tok, "t1/cs1"}, [2]string{"ctok:cst_legacy", "t1/cs1"}, [2]string{"ch3ds:ch_legacy", "t1/p1"})
	editFile(t, tenantFile, [2]string{"t:t1:ctok:" + tok, ""}, [2]string{"t:t1:evi:e1", evtKey},
		[2]string{"t:t1:evb:e1", `{"old":true}`})
	before, err := os.ReadFile(tenantFile)
	require.NoError(t, err)

	var logs bytes.Buffer
	db = openStore(t, path, slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		cs, err := tx.SessionByToken(tok)
		require.NoError(t, err)
		require.NotNil(t, cs, "a token of the catalog's table that carries its tenant")
		assert.Equal(t, "cs1", cs.ID)
		e, err := tx.Event("t1", "e1")
		require.NoError(t, err)
		require.NotNil(t, e)
		assert.JSONEq(t, `{"old":true}`, string(e.Body), "the body kept apart")
		return nil
	}))
	require.NoError(t, db.Close())
	assert.Contains(t, logs.String(), "converting the store to format 1")
	assert.Contains(t, logs.String(), "tokens=2", "the tokens that do not carry their tenant are counted")
	assert.Equal(t, "1", fileValue(t, path, storeconv.KeyFormat))
	for _, k := range []string{"layout", "ctok:" + tok, "ctok:cst_legacy", "ch3ds:ch_legacy"} {
		assert.Empty(t, fileValue(t, path, k), k)
	}
	assert.Equal(t, stampOf(created), fileValue(t, tenantFile, "evi:e1"))
	assert.Empty(t, fileValue(t, tenantFile, "t:t1:evb:e1"))
	assert.Empty(t, fileValue(t, tenantFile, "t:t1:evi:e1"), "keys no longer name their tenant")
	kept, err := os.ReadFile(tenantFile + storeconv.BackupSuffix)
	require.NoError(t, err, "a tenant file written to is kept as it was")
	assert.Equal(t, before, kept)

	logs.Reset()
	require.NoError(t, openStore(t, path, slog.New(slog.NewTextHandler(&logs, nil))).Close())
	assert.NotContains(t, logs.String(), "converting")
}

// A store of the builds before the first release whose catalog said
// format "1" under the key they kept it in, and whose tenant files' keys
// named their tenant, is converted at the next open: the same reads, keys
// that no longer name their tenant, the format number under its key.
func TestConvertTenantPrefixedKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openStore(t, path, nil)
	tok := simulator.WithTenant("t1", "cst_x")
	created := time.UnixMicro(1700000000123456).UTC()
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		if err := putTenantSession(tx, tok); err != nil {
			return err
		}
		if err := tx.PutPayment(&simulator.Payment{ID: "p1", TenantID: "t1", Date: created, Status: simulator.StatusAuthorized,
			Amount: 1200, CurrencyCode: "EUR"}); err != nil {
			return err
		}
		return tx.AppendEvent(&simulator.Event{ID: "e1", TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "p1",
			CreatedAt: created, Status: simulator.DeliveryPending, Body: []byte(`{"b":1}`)})
	}))
	tenantFile := db.TenantFile("t1")
	require.NoError(t, db.Close())
	devLayout(t, path, "1")
	require.NotEmpty(t, fileValue(t, tenantFile, "t:t1:pay:p1"), "the layout of those builds")

	var logs bytes.Buffer
	db = openStore(t, path, slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		cs, err := tx.SessionByToken(tok)
		require.NoError(t, err)
		require.NotNil(t, cs)
		p, err := tx.Payment("t1", "p1")
		require.NoError(t, err)
		require.NotNil(t, p)
		assert.Equal(t, int64(1200), p.Amount)
		pg, err := tx.ListPayments("t1", simulator.PaymentQuery{Limit: 10, CurrencyCode: []string{"EUR"}})
		require.NoError(t, err)
		require.Len(t, pg.Payments, 1)
		e, err := tx.Event("t1", "e1")
		require.NoError(t, err)
		require.NotNil(t, e)
		assert.JSONEq(t, `{"b":1}`, string(e.Body))
		pend, err := tx.PendingEvents("t1")
		require.NoError(t, err)
		assert.Len(t, pend, 1, "the outbox's queue")
		return nil
	}))
	require.NoError(t, db.Close())
	assert.Contains(t, logs.String(), "converting the store to format 1")
	assert.Equal(t, "1", fileValue(t, path, storeconv.KeyFormat))
	assert.Empty(t, fileValue(t, path, "format"), "the marker of those builds goes")
	for _, k := range fileKeys(t, tenantFile) {
		assert.False(t, strings.HasPrefix(k, "t:"), k)
	}
	assert.NotEmpty(t, fileValue(t, tenantFile, "pay:p1"))
}

func stampOf(t time.Time) string { return fmt.Sprintf("%020d", t.UnixMicro()) }

// A tenant file that does not open does not stop the conversion: it is
// left as it is with an ERROR line, and the other tenants are served.
func TestConvertSkipsBrokenTenantFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db := openStore(t, path, nil)
	for _, tid := range []string{"t1", "t2"} {
		require.NoError(t, db.Update(func(tx simulator.Tx) error {
			return tx.PutSession(&simulator.ClientSession{ID: "cs1", TenantID: tid, ClientToken: simulator.WithTenant(tid, "cst_x")})
		}))
	}
	broken := db.TenantFile("t2")
	require.NoError(t, db.Close())
	devLayout(t, path, "cbor1")
	editFile(t, path, [2]string{"layout", "tenant-files/1"})
	require.NoError(t, os.WriteFile(broken, []byte("not a buntdb file\n"), 0o600))

	var logs bytes.Buffer
	db = openStore(t, path, slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { _ = db.Close() })
	assert.Contains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "a tenant file that cannot be opened is left as it is")
	assert.Contains(t, logs.String(), broken)
	var cs *simulator.ClientSession
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { cs, err = tx.Session("t1", "cs1"); return }))
	assert.NotNil(t, cs, "the other tenant is served")
	err := db.View(func(tx simulator.Tx) error { _, err := tx.Session("t2", "cs1"); return err })
	var se *simulator.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, simulator.Code("TenantUnavailable"), se.Code)
	got, err := os.ReadFile(broken)
	require.NoError(t, err)
	assert.Equal(t, "not a buntdb file\n", string(got), "left as it was")
}
