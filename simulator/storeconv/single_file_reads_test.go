package storeconv_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

// The single-file fixture (testdata/single_file.aof) is a data file of the
// layout before tenant files, written by that code through the service
// (single_file_gen_test.go, build tag gensinglefile); single_file.json holds
// what that code read from it through simulator.Tx, and the ids it read
// (the manifest), so that any later store can be asked the same questions.

// singleFileManifest names what the reads ask for, per tenant.
type singleFileManifest struct {
	Tenants []string `json:"tenants"`
	// APIKeys of live tenants, of the expired tenant, and an unknown one.
	APIKeys         []string `json:"apiKeys"`
	ExpiredKeys     []string `json:"expiredKeys"`
	ClientTokens    []string `json:"clientTokens"`
	ChallengeTokens []string `json:"challengeTokens"`

	Sessions        map[string][]string `json:"sessions"`
	Instruments     map[string][]string `json:"instruments"`
	Customers       map[string][]string `json:"customers"`
	Payments        map[string][]string `json:"payments"`
	IdempotencyKeys map[string][]string `json:"idempotencyKeys"`
	Attempts        map[string][]string `json:"attempts"`
	Events          map[string][]string `json:"events"`
	Disputes        map[string][]string `json:"disputes"`
	Jobs            map[string][]string `json:"jobs"`
}

// singleFileGolden is testdata/single_file.json.
type singleFileGolden struct {
	Manifest singleFileManifest         `json:"manifest"`
	Reads    map[string]json.RawMessage `json:"reads"`
}

// singleFileReads asks db every question of m; the answers by name.
func singleFileReads(t *testing.T, db simulator.Store, m singleFileManifest) map[string]any {
	t.Helper()
	out := map[string]any{}
	far := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		put := func(name string, v any, err error) {
			require.NoError(t, err, name)
			out[name] = v
		}
		tns, err := tx.Tenants()
		slices.SortFunc(tns, func(a, b *simulator.Tenant) int { return strings.Compare(a.ID, b.ID) })
		put("tenants", tns, err)
		for _, k := range m.APIKeys {
			v, err := tx.TenantByAPIKey(k)
			put("apikey/"+k, v, err)
		}
		for _, k := range m.ExpiredKeys {
			v, err := tx.ExpiredTenantByAPIKey(k)
			put("expired/"+k, v, err)
		}
		for _, tok := range m.ClientTokens {
			v, err := tx.SessionByToken(tok)
			put("token/"+tok, v, err)
		}
		for _, tok := range m.ChallengeTokens {
			v, err := tx.PaymentByChallenge(tok)
			put("challenge/"+tok, v, err)
		}
		for _, tid := range m.Tenants {
			p := tid + "/"
			v, err := tx.Tenant(tid)
			put(p+"tenant", v, err)
			for _, id := range m.Sessions[tid] {
				v, err := tx.Session(tid, id)
				put(p+"session/"+id, v, err)
			}
			for _, id := range m.Instruments[tid] {
				v, err := tx.Instrument(tid, id)
				put(p+"instrument/"+id, v, err)
			}
			for _, c := range m.Customers[tid] {
				v, err := tx.InstrumentsByCustomer(tid, c)
				put(p+"customer/"+c, v, err)
			}
			for _, id := range m.Payments[tid] {
				v, err := tx.Payment(tid, id)
				put(p+"payment/"+id, v, err)
				evs, err := tx.Events(tid, simulator.EventQuery{PaymentID: id})
				put(p+"payment/"+id+"/events", evs, err)
				ds, err := tx.Disputes(tid, id)
				put(p+"payment/"+id+"/disputes", ds, err)
			}
			for _, k := range m.IdempotencyKeys[tid] {
				v, err := tx.Idempotency(tid, k)
				put(p+"idempotency/"+k, v, err)
			}
			for _, id := range m.Attempts[tid] {
				v, err := tx.Attempt(tid, id)
				put(p+"attempt/"+id, v, err)
			}
			for _, id := range m.Events[tid] {
				v, err := tx.Event(tid, id)
				put(p+"event/"+id, v, err)
				if v != nil {
					out[p+"event/"+id+"/inputs"] = []any{v.Payment, v.Dispute}
				}
				r, err := tx.EventRecord(tid, id)
				put(p+"event-record/"+id, r, err)
			}
			for _, id := range m.Disputes[tid] {
				v, err := tx.Dispute(tid, id)
				put(p+"dispute/"+id, v, err)
			}
			for _, id := range m.Jobs[tid] {
				v, err := tx.Job(tid, id)
				put(p+"job/"+id, v, err)
			}
			pg, err := tx.ListPayments(tid, simulator.PaymentQuery{Limit: 100})
			put(p+"list", pg, err)
			pg, err = tx.ListPayments(tid, simulator.PaymentQuery{Limit: 2})
			put(p+"list/page1", pg, err)
			if err == nil && pg.Next != nil {
				pg, err = tx.ListPayments(tid, simulator.PaymentQuery{Limit: 2, Cursor: pg.Next})
				put(p+"list/page2", pg, err)
			}
			pg, err = tx.ListPayments(tid, simulator.PaymentQuery{Limit: 100, Status: []simulator.PaymentStatus{simulator.StatusAuthorized}, CurrencyCode: []string{"EUR"}})
			put(p+"list/authorized-eur", pg, err)
			pg, err = tx.ListPayments(tid, simulator.PaymentQuery{Limit: 100, CustomerID: []string{"cust-1"}})
			put(p+"list/cust-1", pg, err)
			as, err := tx.Attempts(tid)
			slices.SortFunc(as, func(a, b *simulator.Attempt) int { return strings.Compare(a.ID, b.ID) })
			put(p+"attempts", as, err)
			evs, err := tx.Events(tid, simulator.EventQuery{})
			put(p+"events", evs, err)
			pe, err := tx.PendingEvents(tid)
			put(p+"pending", pe, err)
			ds, err := tx.Disputes(tid, "")
			put(p+"disputes", ds, err)
			js, err := tx.DueJobs(tid, far, 0)
			put(p+"jobs", js, err)
		}
		return nil
	}))
	for _, tid := range m.Tenants { // the observers' records, read through their port
		mn := &observe.MigrationNotes{}
		_, err := db.(observe.Store).LoadObserved(tid, observe.MigrationKind, mn)
		require.NoError(t, err)
		mn.TenantID = tid
		out[tid+"/migration-notes"] = mn
	}
	return out
}

// singleFileFixture copies testdata/single_file.aof to a temporary PATH.
func singleFileFixture(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "single_file.aof"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	require.NoError(t, os.WriteFile(path, src, 0o600))
	return path
}

// checkSingleFileReads compares what db reads with what the single-file
// layout's code read from the fixture.
func checkSingleFileReads(t *testing.T, db simulator.Store) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "single_file.json"))
	require.NoError(t, err)
	var want singleFileGolden
	require.NoError(t, json.Unmarshal(raw, &want))
	got := singleFileReads(t, db, want.Manifest)
	require.Len(t, got, len(want.Reads))
	for name, w := range want.Reads {
		// a token that does not carry its tenant no longer resolves: the
		// conversion drops it from the catalog's lookup table
		kind, tok, _ := strings.Cut(name, "/")
		if _, ok := simulator.TenantOfToken(tok); !ok && (kind == "token" || kind == "challenge") {
			w = json.RawMessage("null")
		}
		g, err := json.Marshal(got[name])
		require.NoError(t, err)
		// an event written again by the store names its payment's status,
		// which the layout that wrote the fixture did not record
		var gv any
		require.NoError(t, json.Unmarshal(g, &gv))
		dropMember(gv, "paymentStatus")
		g, err = json.Marshal(gv)
		require.NoError(t, err)
		assert.JSONEq(t, string(w), string(g), name)
	}
}

// The move to tenant files keeps everything the store reads: the catalog
// and the tenant files, put back together in one file (their hints and
// layout marker left out), read through the store as the fixture was.
func TestUpgradeToTenantFilesLosesNothing(t *testing.T) {
	path := singleFileFixture(t)
	n, err := storeconv.MoveToTenantFiles(path)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	merged := filepath.Join(t.TempDir(), "merged.db")
	out, err := buntdb.Open(merged)
	require.NoError(t, err)
	files := []string{path}
	ents, err := os.ReadDir(store.TenantsDir(path))
	require.NoError(t, err)
	for _, e := range ents {
		files = append(files, filepath.Join(store.TenantsDir(path), e.Name()))
	}
	for _, f := range files {
		in, err := buntdb.Open(f)
		require.NoError(t, err)
		require.NoError(t, in.View(func(rtx *buntdb.Tx) error {
			return out.Update(func(wtx *buntdb.Tx) error {
				var err error
				_ = rtx.Ascend("", func(k, v string) bool {
					if strings.HasPrefix(k, "hint:") || k == "layout" {
						return true
					}
					_, _, err = wtx.Set(k, v, nil)
					return err == nil
				})
				return err
			})
		}))
		require.NoError(t, in.Close())
	}
	require.NoError(t, out.Close())
	db, err := store.Open(merged, store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	checkSingleFileReads(t, db)
}

// A data file of the single-file layout opens (the store moves it to
// tenant files first) and every record reads back through simulator.Tx as
// that layout's code read it: tenants by id and API key, the expired
// tenant's key, sessions by old client token, payments by old 3DS challenge
// token, payments, lists and their pages, instruments by customer,
// idempotency keys, attempts, events (with what their bodies are rendered
// from), pending events, disputes, jobs and migration notes.
func TestUpgradeToTenantFilesReadsBack(t *testing.T) {
	path := singleFileFixture(t)
	db, err := store.Open(path, store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	require.DirExists(t, store.TenantsDir(path), "the single file was moved to tenant files")
	require.FileExists(t, path+storeconv.LayoutBackupSuffix, "the single file is kept")
	checkSingleFileReads(t, db)
}
