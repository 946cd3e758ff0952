package storeconv_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

// upgradeFixture copies testdata/upgrade_main.aof (written by the JSON
// record format: events of the release before bodies were rendered at send
// time, then every record kind) to a temporary file.
func upgradeFixture(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "upgrade_main.aof"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "store.db")
	require.NoError(t, os.WriteFile(path, src, 0o600))
	return path
}

// checkUpgraded compares what db reads with what the JSON format read from
// the same file (testdata/upgrade_main.json, written with the fixture by
// that code), and checks that no JSON record and no body apart (evb:) is
// left. The fixture's client and 3DS tokens do not carry their tenant: the
// conversion drops them, so they no longer resolve.
func checkUpgraded(t *testing.T, db *store.DB) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "upgrade_main.json"))
	require.NoError(t, err)
	var want map[string]any
	require.NoError(t, json.Unmarshal(raw, &want))
	var toks []string
	for k := range want {
		if strings.HasPrefix(k, "ctok:") || strings.HasPrefix(k, "ch3ds:") {
			toks = append(toks, k)
			delete(want, k)
		}
	}
	require.NotEmpty(t, toks)
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	got, err := json.Marshal(snapshot(t, db))
	require.NoError(t, err)
	var gotV any
	require.NoError(t, json.Unmarshal(got, &gotV))
	// an event made from a payment records the payment's status since the
	// JSON layout; the store writes it when it converts one
	dropMember(gotV, "paymentStatus")
	got, err = json.Marshal(gotV)
	require.NoError(t, err)
	assert.JSONEq(t, string(wantJSON), string(got))
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		for _, k := range toks {
			kind, tok, _ := strings.Cut(k, ":")
			if kind == "ctok" {
				cs, err := tx.SessionByToken(tok)
				require.NoError(t, err)
				assert.Nil(t, cs, k)
				continue
			}
			p, err := tx.PaymentByChallenge(tok)
			require.NoError(t, err)
			assert.Nil(t, p, k)
		}
		return nil
	}))
	for _, tid := range []string{"default", "t2"} {
		require.NoError(t, db.TenantRecords(tid, func(k, v string) bool {
			assert.NotContains(t, k, ":evb:", "a body apart is merged into its event")
			assert.False(t, strings.HasPrefix(v, "{"), "%s is still JSON", k)
			return true
		}))
	}
}

// A file written by the JSON record format opens, every record is
// converted, and every record and token reads back as that format read it:
// tenants and API keys, sessions by client token, instruments (vaulted, by
// customer, a card outside the catalogue), payments with transactions,
// plans and 3DS challenge tokens, attempts, disputes, jobs, idempotency
// keys, and events (with their payment and dispute, and events of an
// earlier release with their rendered body). A second start does not scan.
func TestUpgradeFromJSONRecords(t *testing.T) {
	path := upgradeFixture(t)
	db, err := store.Open(path, store.FsyncNever, store.Options{})
	require.NoError(t, err)
	checkUpgraded(t, db)
	assert.Positive(t, db.Migrated())
	var n int
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		ps, err := tx.ListPayments("t2", simulator.PaymentQuery{Limit: 10, OrderID: "o-9", CustomerID: []string{"cust-9"}})
		n = len(ps.Payments)
		return err
	}))
	assert.Equal(t, 1, n, "the list index of a migrated payment")
	require.NoError(t, db.Close())
	kept, err := os.ReadFile(path + storeconv.BackupSuffix)
	require.NoError(t, err, "the file as the earlier build left it is kept beside it")
	orig, err := os.ReadFile(filepath.Join("testdata", "upgrade_main.aof"))
	require.NoError(t, err)
	assert.Equal(t, orig, kept)

	db, err = store.Open(path, store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	checkUpgraded(t, db)
	assert.Zero(t, db.Migrated(), "a converted file is not scanned again")
}

// A migration cut after some of its batches (as by kill -9: each batch is
// one transaction) completes at the next start and loses nothing.
func TestUpgradeCutResumes(t *testing.T) {
	path := upgradeFixture(t)
	restore := storeconv.SetConvertBatch(3, 2)
	_, err := store.Open(path, store.FsyncNever, store.Options{})
	restore()
	require.Error(t, err, "cut after two batches")
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	orig, err := os.ReadFile(filepath.Join("testdata", "upgrade_main.aof"))
	require.NoError(t, err)
	require.Greater(t, len(src), len(orig), "two batches were written")
	require.True(t, bytes.HasPrefix(src, orig))

	db, err := store.Open(path, store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	checkUpgraded(t, db)
	kept, err := os.ReadFile(path + storeconv.BackupSuffix)
	require.NoError(t, err)
	assert.Equal(t, orig, kept, "the resumed migration keeps the copy taken before the first batch")
}

// dropMember deletes member name from every object in v.
func dropMember(v any, name string) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, name)
		for _, x := range v {
			dropMember(x, name)
		}
	case []any:
		for _, x := range v {
			dropMember(x, name)
		}
	}
}
