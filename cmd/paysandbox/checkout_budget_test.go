package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// keyUsage is what one kind of key holds in a file: how many keys, their
// bytes and their values' bytes.
type keyUsage struct{ Keys, KeyBytes, ValueBytes int }

func (u *keyUsage) add(o keyUsage) {
	u.Keys, u.KeyBytes, u.ValueBytes = u.Keys+o.Keys, u.KeyBytes+o.KeyBytes, u.ValueBytes+o.ValueBytes
}

// keyKind is a key's kind in keys.go's layout: the tenant part dropped and
// the ids, stamps and tokens after the kind's name, "pay:<id>" (and
// "t:<tenant>:pay:<id>" of the layouts before format 1)
// -> "pay".
var tenantKeyPrefix = regexp.MustCompile(`^t:[^:]+:`)

func keyKind(k string) string {
	k = tenantKeyPrefix.ReplaceAllString(k, "")
	if i := strings.IndexByte(k, ':'); i >= 0 {
		return k[:i]
	}
	return k
}

// fileUsage counts the live keys of a closed buntdb file by kind (a copy is
// opened, so the file itself stays as the store left it).
func fileUsage(t *testing.T, path string) map[string]keyUsage {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	cp := filepath.Join(t.TempDir(), "copy.db")
	require.NoError(t, os.WriteFile(cp, b, 0o600))
	db, err := buntdb.Open(cp)
	require.NoError(t, err)
	defer db.Close()
	out := map[string]keyUsage{}
	require.NoError(t, db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			u := out[keyKind(k)]
			u.add(keyUsage{1, len(k), len(v)})
			out[keyKind(k)] = u
			return true
		})
	}))
	return out
}

// perTenant are the kinds of the observers' records (observed.go), one per
// tenant whose size is bounded whatever the number of checkouts: they
// change with a checkout but are not a checkout's.
var perTenant = map[string]bool{"rep": true, "mig": true}

// TestCheckoutBudget measures what one checkout stores: a card payment
// authorized and captured, with its client session and its token, once
// every webhook event it made is delivered, in its tenant's file, with and
// without X-Idempotency-Key on the merchant's writes (the POST and the
// capture). It runs serve's composition root on a db file with the real
// clock and random ids (production's id lengths) and a receiver that
// answers 200, closes it, and counts the live keys of each tenant's file
// against those of a tenant that made no checkout. `go test
// ./cmd/paysandbox -run TestCheckoutBudget -v` prints the table per key
// kind that docs/performance.md's budget per checkout quotes.
func TestCheckoutBudget(t *testing.T) {
	rc := newReceiver(t, answer(200))
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "budget.db")
	app, err := Open(cfg, AppOptions{LogOut: io.Discard, Clock: clock.Real{}, IDs: simulator.RandomIDs{}})
	require.NoError(t, err)
	require.NoError(t, app.Start())
	a := &testApp{App: app, t: t, Key: simulator.DefaultAPIKey, http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}}}
	t.Cleanup(func() { a.http.CloseIdleConnections(); _ = app.Close() })

	newTenant := func() (*testApp, string) {
		r := a.must(201, "POST", "/_sandbox/tenants", nil, "X-API-KEY:")
		c := *a
		c.Key = r.Str("apiKey")
		c.setEndpoint(rc.URL)
		return &c, r.Str("tenantId")
	}
	checkout := func(ta *testApp, idemKey string) string {
		session := map[string]any{"orderId": "order-1001", "currencyCode": "EUR", "amount": 1000,
			"customerId": "cust-1", "customer": map[string]any{"emailAddress": "jane@example.com"}}
		tok := ta.tokenize(ta.session(session), visa).Str("token")
		var pay, capture []string
		if idemKey != "" {
			pay, capture = []string{"X-Idempotency-Key: " + idemKey + "-pay"}, []string{"X-Idempotency-Key: " + idemKey + "-capture"}
		}
		p := ta.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tok}, pay...)
		require.Equal(t, "AUTHORIZED", p.Str("status"))
		id := p.Str("id")
		ta.must(200, "POST", "/payments/"+id+"/capture", map[string]any{}, capture...)
		ta.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
		require.Eventually(t, func() bool {
			evs := ta.events(id)
			for _, e := range evs {
				if e["status"] != "DELIVERED" {
					return false
				}
			}
			return len(evs) > 0
		}, 20*time.Second, 20*time.Millisecond, "every event of the payment is delivered")
		return id
	}

	_, empty := newTenant()
	plainApp, plain := newTenant()
	keyedApp, keyed := newTenant()
	checkout(plainApp, "")
	checkout(keyedApp, "order-1001")
	a.http.CloseIdleConnections()
	require.NoError(t, app.Close())

	t.Logf("the catalog's keys by kind (none is a checkout's): %v", fileUsage(t, cfg.DB))
	dir := store.TenantsDir(cfg.DB)
	base := fileUsage(t, filepath.Join(dir, store.TenantFileName(empty)))
	for _, tc := range []struct{ name, tenant string }{{"without X-Idempotency-Key", plain}, {"with X-Idempotency-Key", keyed}} {
		got := fileUsage(t, filepath.Join(dir, store.TenantFileName(tc.tenant)))
		kinds := make([]string, 0, len(got))
		for k := range got {
			kinds = append(kinds, k)
		}
		for k := range base {
			if _, ok := got[k]; !ok {
				kinds = append(kinds, k)
			}
		}
		sort.Strings(kinds)
		var total keyUsage
		var table strings.Builder
		fmt.Fprintf(&table, "%-10s %5s %9s %11s\n", "kind", "keys", "key bytes", "value bytes")
		for _, k := range kinds {
			d := keyUsage{got[k].Keys - base[k].Keys, got[k].KeyBytes - base[k].KeyBytes, got[k].ValueBytes - base[k].ValueBytes}
			if d == (keyUsage{}) {
				continue
			}
			note := ""
			if perTenant[k] {
				note = " (one record per tenant, bounded: not in the total)"
			} else {
				total.add(d)
			}
			fmt.Fprintf(&table, "%-10s %5d %9d %11d%s\n", k, d.Keys, d.KeyBytes, d.ValueBytes, note)
		}
		fmt.Fprintf(&table, "%-10s %5d %9d %11d\n", "checkout", total.Keys, total.KeyBytes, total.ValueBytes)
		t.Logf("one checkout %s, beyond an empty tenant's file:\n%s", tc.name, table.String())

		for _, kind := range []string{"pay", "payx", "cs", "pi", "evt"} {
			assert.Positive(t, got[kind].Keys-base[kind].Keys, "the checkout stored its %s keys", kind)
		}
		assert.Equal(t, tc.tenant == keyed, got["idem"].Keys > 0, "an idempotency claim only for the key sent")
		assert.Zero(t, got["evi"].Keys, "the events' ids carry their keys")
		assert.Zero(t, got["ctok"].Keys, "the client token names its session")
	}
}
