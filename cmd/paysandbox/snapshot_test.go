package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// snapshotFixture is a tenant with some of everything a snapshot carries:
// payments in several states (a 3DS challenge waiting, a capture and a
// refund, a decline), an awaiting attempt, a vaulted instrument, an
// idempotency key, a dispute, delivered events and a PENDING one that
// failed once, jobs, its own rules and a one-shot, chaos, an endpoint with
// version 2.3, migration notes, a journal with hints, a moved clock.
type snapshotFixture struct {
	a       *testApp
	fail    *atomic.Bool // the receiver answers 500
	hits    *atomic.Int64
	pending string // the PENDING event's id
}

func newSnapshotFixture(t *testing.T) *snapshotFixture {
	t.Helper()
	base := newTestApp(t)
	f := &snapshotFixture{fail: &atomic.Bool{}, hits: &atomic.Int64{}}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		f.hits.Add(1)
		if f.fail.Load() {
			w.WriteHeader(500)
		}
	}))
	t.Cleanup(recv.Close)
	a := base.asNewTenant()
	f.a = a
	a.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": recv.URL + "/hook", "version": "2.3"})

	settled := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(5000), numOK)}, "X-Idempotency-Key: idem-1").Str("id")
	a.must(200, "POST", "/payments/"+settled+"/capture", map[string]any{"amount": 5000})
	a.must(200, "POST", "/payments/"+settled+"/refund", map[string]any{"amount": 700, "reason": "damaged"})
	a.must(200, "POST", "/_sandbox/payments/"+settled+"/dispute", map[string]any{"reason": "fraud"}, "X-API-VERSION:")
	a.payFull(1000, numDecline, nil)
	a.pay(1000, numChallenge) // waits for its 3DS challenge
	require.Equal(t, 200, a.putRules("rules:\n  - name: settle-slowly\n    when: { amount: 1234 }\n    capture: { status: SETTLING, settleAfter: 5m }\n").Status)
	slow := a.pay(1234, numOK).Str("id")
	a.must(200, "POST", "/payments/"+slow+"/capture", nil) // SETTLING: a settle job in 5m
	a.payFull(1000, numOK, nil, "X-API-VERSION: 2.3")      // migration notes
	pt := a.tokenize(a.session(plainSession(1000)), numOK).Str("token")
	a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-1"})
	freshAttempt(a, numOK) // AWAITING_APPROVAL, its expiry job
	for range 5 {          // tight polling: a hint
		a.must(200, "GET", "/payments/"+settled, nil)
	}
	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1m"}, "X-API-VERSION:")
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil, "X-API-VERSION:")

	f.fail.Store(true)
	last := a.pay(1000, numOK).Str("id")
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil, "X-API-VERSION:")
	ev := a.must(200, "GET", "/_sandbox/webhooks/events?paymentId="+last, nil, "X-API-VERSION:")
	f.pending = dig(ev.JSON, "data", 0, "id").(string)
	require.Equal(t, "PENDING", dig(ev.JSON, "data", 0, "status"), "%s", ev.Body)

	a.must(200, "POST", "/_sandbox/scenarios/next", map[string]any{"rule": "settle-slowly", "times": 2}, "X-API-VERSION:")
	a.must(200, "PUT", "/_sandbox/webhooks/chaos", map[string]any{"duplicate": 0.25, "seed": 7}, "X-API-VERSION:")
	return f
}

// exportSnapshot is GET /_sandbox/snapshot of a's tenant.
func exportSnapshot(t *testing.T, a *testApp, query string) []byte {
	t.Helper()
	r := a.must(200, "GET", "/_sandbox/snapshot"+query, nil, "X-API-VERSION:")
	return r.Body
}

// importSnapshot posts a snapshot to b: the answer.
func importSnapshot(b *testApp, snap []byte) *resp {
	b.t.Helper()
	return b.req("POST", "/_sandbox/tenants", snap, "X-API-KEY:", "X-API-VERSION:")
}

// tokenFields are answers' fields an import makes anew: the tenant id and
// the client and 3DS tokens (they carry their tenant).
var tokenFields = regexp.MustCompile(`"(clientToken|challengeUrl|tenantId)":"[^"]*"`)

// apiView reads every resource of a's tenant through the API, the journal
// and hints first (reading the rest adds to the journal).
func apiView(t *testing.T, a *testApp, skipJournal int) map[string]string {
	t.Helper()
	ctl := "X-API-VERSION:"
	view := map[string]string{}
	get := func(name, path string, headers ...string) *resp {
		r := a.must(200, "GET", path, nil, headers...)
		view[name] = tokenFields.ReplaceAllString(string(r.Body), `"$1":"<token>"`)
		return r
	}
	j := a.must(200, "GET", "/_sandbox/requests?limit=500", nil, ctl)
	entries := j.JSON["data"].([]any)
	require.Greater(t, len(entries), skipJournal)
	raw, _ := json.Marshal(entries[skipJournal:])
	view["journal"] = tokenFields.ReplaceAllString(string(raw), `"$1":"<token>"`)
	get("hints", "/_sandbox/hints", ctl)
	get("clock", "/_sandbox/clock", ctl)
	get("scenarios", "/_sandbox/scenarios", ctl)
	get("next", "/_sandbox/scenarios/next", ctl)
	get("endpoint", "/_sandbox/webhooks/endpoint", ctl)
	get("migration", "/_sandbox/migration", ctl)
	get("attempts", "/_sandbox/payment-attempts", ctl)
	get("disputes", "/_sandbox/disputes", ctl)
	get("instruments", "/payment-instruments?customer_id=cust-1")
	list := get("payments", "/payments?limit=100")
	for _, p := range list.JSON["data"].([]any) {
		id := p.(map[string]any)["id"].(string)
		get("payment "+id, "/payments/"+id+"?expand=transactions.events")
	}
	evs := get("events", "/_sandbox/webhooks/events?limit=1000", ctl)
	for _, e := range evs.JSON["data"].([]any) {
		id := e.(map[string]any)["id"].(string)
		get("event "+id, "/_sandbox/webhooks/events/"+id, ctl)
	}
	return view
}

// snapshotRecords is a snapshot's records and journal, with what an import
// changes masked: the tenant id, the reissued tokens, the base-clock due
// times of jobs (the tenant-clock ones stay).
func snapshotRecords(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(doc, &m))
	var mask func(v any)
	mask = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				switch k {
				case "tenantId", "clientToken", "challengeToken", "realDue":
					x[k] = "<masked>"
				default:
					mask(val)
				}
			}
		case []any:
			for _, val := range x {
				mask(val)
			}
		}
	}
	out := map[string]any{"data": m["data"], "journal": m["journal"]}
	mask(out)
	return out
}

// TestSnapshotRoundTrip: a tenant exported from one server and imported
// into a second answers every read the same (but for the client and 3DS
// tokens, issued anew for the new tenant); its keys and secret are new and
// absent from the file; its PENDING event is held (never sent on its own,
// replayable); its clock resumes where the export left it.
func TestSnapshotRoundTrip(t *testing.T) {
	f := newSnapshotFixture(t)
	a := f.a
	snap := exportSnapshot(t, a, "")
	assert.NotContains(t, string(snap), a.Key, "no key without includeSecrets")
	assert.NotContains(t, string(snap), `"secrets"`)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(snap, &doc))
	assert.Equal(t, snapshot.Format, doc["format"])
	assert.EqualValues(t, snapshot.Version, doc["version"])
	require.Contains(t, doc, "report", "the CI report's counts travel with the tenant")
	exported := doc["report"].(map[string]any)
	assert.NotEmpty(t, exported["requests"])
	want := apiView(t, a, 1) // the export itself is the newest entry

	b := newTestApp(t)
	b.Clock.Advance(3 * time.Hour) // wall time passes between export and import
	b.asNewTenant()                // b's ids differ from a's
	r := importSnapshot(b, snap)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	nb := *b
	nb.Key = r.Str("apiKey")
	assert.NotEqual(t, a.Key, nb.Key)
	assert.NotEqual(t, doc["tenant"].(map[string]any)["id"], r.Str("tenantId"))
	assert.NotEmpty(t, r.Str("signingSecret"))
	rep := nb.must(200, "GET", "/_sandbox/report", nil)
	// what the import does not add to (requests and hints grow with nb's own)
	for _, k := range []string{"delivered", "retried", "exhausted"} {
		assert.Equal(t, dig(exported, "webhooks", 0, k), dig(rep.JSON, "webhooks", 0, k), "report webhooks %s after the round trip", k)
	}
	wr, _ := json.Marshal(exported["rules"])
	gr, _ := json.Marshal(rep.JSON["rules"])
	assert.NotEqual(t, "null", string(wr), "the exported report has its rules")
	assert.Contains(t, string(gr), "matched", "the imported report has its rules: %s", gr)
	again := exportSnapshot(t, &nb, "")
	assert.Equal(t, snapshotRecords(t, snap), snapshotRecords(t, again), "every record (sessions, instruments, idempotency keys, jobs included) as exported")
	got := apiView(t, &nb, 1)
	for name, w := range want {
		assert.Equal(t, w, got[name], "%s differs after the round trip", name)
	}
	assert.Len(t, got, len(want))

	// The imported 3DS token names the new tenant.
	pays := nb.must(200, "GET", "/payments?limit=100", nil)
	challenges := 0
	for _, p := range pays.JSON["data"].([]any) {
		one := nb.must(200, "GET", "/payments/"+dig(p, "id").(string), nil)
		if tok, _ := dig(one.JSON, "requiredAction", "clientToken").(string); tok != "" {
			challenges++
			tid, ok := simulator.TenantOfToken(tok)
			assert.True(t, ok)
			assert.Equal(t, r.Str("tenantId"), tid)
			nb.must(200, "POST", "/client/3ds/challenge", map[string]any{"result": "AUTH_SUCCESS"}, "X-Client-Token: "+tok, "X-API-KEY:", "X-API-VERSION:")
		}
	}
	assert.Equal(t, 1, challenges, "the 3DS payment came through")

	// Held: advancing the clock past every retry sends nothing of it; a
	// replay does, and a failed replay leaves it held.
	attempts := func() int {
		e := nb.must(200, "GET", "/_sandbox/webhooks/events/"+f.pending, nil, "X-API-VERSION:")
		require.Equal(t, "PENDING", e.Str("status"))
		return len(e.JSON["attempts"].([]any))
	}
	before := attempts()
	nb.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "2h"}, "X-API-VERSION:")
	nb.must(200, "POST", "/_sandbox/webhooks/deliver", nil, "X-API-VERSION:")
	assert.Equal(t, before, attempts(), "an imported PENDING event is never attempted on its own")
	nb.must(200, "POST", "/_sandbox/webhooks/events/"+f.pending+"/replay", nil, "X-API-VERSION:")
	assert.Equal(t, before+1, attempts())
	nb.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "2h"}, "X-API-VERSION:")
	assert.Equal(t, before+1, attempts(), "still held after a failed replay")
}

// TestSnapshotSecrets: with includeSecrets the snapshot carries the keys
// and secret and an import keeps them; a key already in use is refused.
func TestSnapshotSecrets(t *testing.T) {
	a := newTestApp(t).asNewTenant()
	a.pay(1000, numOK)
	snap := exportSnapshot(t, a, "?includeSecrets=true")
	assert.Contains(t, string(snap), a.Key)
	journal := a.must(200, "GET", "/_sandbox/requests", nil, "X-API-VERSION:")
	assert.NotContains(t, string(journal.Body), a.Key, "the journal keeps no secret of a snapshot it answered")

	r := importSnapshot(a, snap) // the same server: the key is a's
	assert.Equal(t, []string{"$.secrets.apiKeys[0]"}, violations(t, r, "TenantSnapshot"))

	b := newTestApp(t)
	r = importSnapshot(b, snap)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, a.Key, r.Str("apiKey"))
	nb := *b
	nb.Key = a.Key
	assert.Equal(t, a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil, "X-API-VERSION:").Body,
		nb.must(200, "GET", "/_sandbox/webhooks/endpoint", nil, "X-API-VERSION:").Body)
	assert.Equal(t, 422, a.req("GET", "/_sandbox/snapshot?includeSecrets=yes", nil, "X-API-VERSION:").Status)
}

// TestSnapshotRefused: a snapshot of an unknown version, cut short, edited
// after export or breaking a limit is a 422 naming what is wrong, and
// nothing of it is stored.
func TestSnapshotRefused(t *testing.T) {
	a := newTestApp(t).asNewTenant()
	a.pay(1000, numOK)
	snap := exportSnapshot(t, a, "")
	reseal := func(edit func(s *snapshot.Snapshot)) []byte {
		s, err := snapshot.Open(snap, 1<<30)
		require.NoError(t, err)
		edit(s)
		b, err := s.Seal()
		require.NoError(t, err)
		return b
	}
	big := map[string]any{"blob": strings.Repeat("x", simulator.MaxMetadataBytes)}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(snap)
	require.NoError(t, zw.Close())
	tests := []struct {
		name string
		body []byte
		path string
	}{
		{"unknown version", bytes.Replace(snap, []byte(`"version":2`), []byte(`"version":99`), 1), "$.version"},
		{"truncated", snap[:len(snap)/2], "$"},
		{"truncated gzip", gz.Bytes()[:gz.Len()/2], "$"},
		{"corrupted", bytes.Replace(snap, []byte(`"amount":1000`), []byte(`"amount":9000`), 1), "$.checksum"},
		{"metadata over its limit", reseal(func(s *snapshot.Snapshot) { s.Data.Payments[0].Metadata = big }), "$.data.payments[0].metadata"},
		{"free text over its limit", reseal(func(s *snapshot.Snapshot) { s.Data.Payments[0].OrderID = strings.Repeat("o", 256) }), "$.data.payments[0].orderId"},
		{"an id the store cannot key", reseal(func(s *snapshot.Snapshot) { s.Data.Attempts = nil; s.Data.Payments[0].ID = "a:b" }), "$.data.payments[0].id"},
		{"a journal body over the journal's bound", reseal(func(s *snapshot.Snapshot) {
			s.Journal.Entries[0].RequestBody = strings.Repeat("b", 5000)
		}), "$.journal.entries[0].requestBody"},
	}
	records := func() map[string]int {
		out := map[string]int{}
		tenants, err := a.Svc.Tenants()
		require.NoError(t, err)
		for _, tn := range tenants {
			id := tn.ID
			n := 0
			require.NoError(t, a.DB.TenantRecords(id, func(string, string) bool { n++; return true }))
			out[id] = n
		}
		return out
	}
	before := records()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := importSnapshot(a, tc.body)
			assert.Equal(t, []string{tc.path}, violations(t, r, "TenantSnapshot"), "%s", r.Body)
			assert.Equal(t, before, records(), "nothing stored")
		})
	}
	r := importSnapshot(a, gz.Bytes())
	assert.Equal(t, 201, r.Status, "a gzip-compressed snapshot is read: %s", r.Body)
}

// TestSnapshotBodyLimit: the import route has its own limit, well above
// the 1 MiB of every other body; past it, 413.
func TestSnapshotBodyLimit(t *testing.T) {
	cfg := testConfig()
	cfg.SnapshotMaxBytes = 3 << 20
	a := startApp(t, cfg).asNewTenant()
	a.pay(1000, numOK)
	s, err := snapshot.Open(exportSnapshot(t, a, ""), 1<<30)
	require.NoError(t, err)
	for i := range 1200 { // ~1.5 MiB of journal
		s.Journal.Entries = append(s.Journal.Entries, snapshot.Request{At: s.Tenant.Now, Method: "GET", Path: "/x", RequestID: fmt.Sprint("r", i), RequestBody: strings.Repeat("x", 1300), Hints: []snapshot.RequestHint{}})
	}
	big, err := s.Seal()
	require.NoError(t, err)
	require.Greater(t, len(big), 1<<20)
	r := importSnapshot(a, big)
	assert.Equal(t, 201, r.Status, "%s", r.Body)
	huge := append(bytes.Repeat([]byte(" "), 3<<20), big...)
	r = importSnapshot(a, huge)
	assert.Equal(t, 413, r.Status, "%.300s", r.Body)
	r = a.req("POST", "/_sandbox/tenants", map[string]any{"webhookUrl": "http://x.test/" + strings.Repeat("a", 1<<20)}, "X-API-KEY:")
	assert.Equal(t, 413, r.Status, "a creation request keeps the 1 MiB limit")
}

// TestSeedIdempotent: serve --seed loads a snapshot into the tenant its
// checksum names and logs its key; a restart on the same store adds no
// tenant and keeps the key, and so does a restart of a :memory: store.
func TestSeedIdempotent(t *testing.T) {
	src := newTestApp(t).asNewTenant()
	pid := src.pay(1000, numOK).Str("id")
	file := filepath.Join(t.TempDir(), "seed.json")
	require.NoError(t, os.WriteFile(file, exportSnapshot(t, src, ""), 0o600))

	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "db")
	cfg.Seed = []string{file, file}
	cfg.LogLevel = "info"
	keyIn := regexp.MustCompile(`seeded tenant [^\n]*apiKey=(\S+)`)
	start := func(cfg Config) (string, int) {
		var log bytes.Buffer
		app, err := Open(cfg, AppOptions{LogOut: &log, Clock: src.Clock})
		require.NoError(t, err)
		require.NoError(t, app.Start())
		tenants, err := app.Svc.Tenants()
		require.NoError(t, err)
		require.NoError(t, app.Close())
		m := keyIn.FindStringSubmatch(log.String())
		require.NotNil(t, m, "the log names the seeded tenant's key: %s", log.String())
		return m[1], len(tenants)
	}
	key1, n1 := start(cfg)
	key2, n2 := start(cfg)
	assert.Equal(t, key1, key2, "the seeded key is stable")
	assert.Regexp(t, `^sk_seed_[a-p]{32}$`, key1, "no digits: the log masks digit runs that look like card numbers")
	assert.Equal(t, n1, n2, "a restart adds no tenant")
	assert.Equal(t, 2, n1, "the default tenant and one seeded tenant (the same file twice seeds once)")

	mem := testConfig()
	mem.Seed, mem.LogLevel = []string{file}, "info"
	key3, _ := start(mem)
	key4, _ := start(mem)
	assert.Equal(t, key3, key4, "a :memory: store seeds the same tenant and key at every start")

	app := startApp(t, mem)
	app.Key = key3
	app.must(200, "GET", "/payments/"+pid, nil)
}

// TestSnapshotCLI: tenants export writes gzip for a .gz name and tenants
// import reads it (the real command line against a real server).
func TestSnapshotCLI(t *testing.T) {
	a := newTestApp(t).asNewTenant()
	a.pay(1000, numOK)
	dir := t.TempDir()
	run := func(args ...string) (int, string, string) { return cliRun(t, a, nil, args...) }
	file := filepath.Join(dir, "t.json.gz")
	code, out, errOut := run("tenants", "export", "--output", file)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "snapshot written to "+file)
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	plain, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.True(t, json.Valid(plain))
	code, out, errOut = run("tenants", "import", file, "--output", "env")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "PAYSANDBOX_API_KEY=")
}

// TestSnapshotCLISecretsNeedEveryScope: tenants export --include-secrets
// with a key lacking a scope prints the API's 403 and exits 1, writing no
// file; without --include-secrets the same key exports.
func TestSnapshotCLISecretsNeedEveryScope(t *testing.T) {
	a := tenantApp(newTestApp(t), map[string]any{"scopes": []string{"transactions:retrieve"}})
	file := filepath.Join(t.TempDir(), "t.json")
	code, out, errOut := cliRun(t, a, nil, "tenants", "export", "--include-secrets", "--output", file)
	assert.Equal(t, 1, code, out)
	assert.True(t, strings.HasPrefix(errOut, "Error: Forbidden: The API key lacks the scopes client_tokens:write, transactions:authorize, "), errOut)
	assert.Contains(t, errOut, "Exporting the tenant's keys and signing secret needs a key holding every scope")
	assert.NotContains(t, out+errOut, a.Key)
	_, err := os.Stat(file)
	assert.True(t, os.IsNotExist(err), "no file written")
	code, _, errOut = cliRun(t, a, nil, "tenants", "export", "--output", file)
	assert.Equal(t, 0, code, errOut)
}

// TestSnapshotImportAdminKey: an import follows the creation's admin key
// rule: with admin_key set, a missing or wrong X-Admin-Key is 401 and
// nothing is stored.
func TestSnapshotImportAdminKey(t *testing.T) {
	src := newTestApp(t).asNewTenant()
	snap := exportSnapshot(t, src, "")
	cfg := testConfig()
	cfg.AdminKey = "adm"
	b := startApp(t, cfg)
	count := func() int { ts, err := b.Svc.Tenants(); require.NoError(t, err); return len(ts) }
	n := count()
	r := importSnapshot(b, snap)
	assert.Equal(t, 401, r.Status, "%s", r.Body)
	r = b.req("POST", "/_sandbox/tenants", snap, "X-API-KEY:", "X-API-VERSION:", "X-Admin-Key: nope")
	assert.Equal(t, 401, r.Status, "%s", r.Body)
	assert.Equal(t, n, count())
	r = b.req("POST", "/_sandbox/tenants", snap, "X-API-KEY:", "X-API-VERSION:", "X-Admin-Key: adm")
	assert.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, n+1, count())
}

// TestSnapshotTTL: an imported tenant keeps the wall-clock lifetime its
// ttl had left at export, counted from the import.
func TestSnapshotTTL(t *testing.T) {
	a := tenantApp(newTestApp(t), map[string]any{"ttl": "2h"})
	a.Clock.Advance(30 * time.Minute)
	snap := exportSnapshot(t, a, "")
	b := newTestApp(t)
	b.Clock.Advance(5 * time.Hour)
	r := importSnapshot(b, snap)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, b.Clock.Now().Add(90*time.Minute).UTC().Format("2006-01-02T15:04:05.000000Z"), r.Str("expiresAt"))
}
