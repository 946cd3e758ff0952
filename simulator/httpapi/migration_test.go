package httpapi_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// variantTexts lists the descriptions of a migration item's variants.
func variantTexts(it map[string]any) []string {
	var out []string
	vs, _ := it["variants"].([]any)
	for _, v := range vs {
		out = append(out, v.(map[string]any)["description"].(string))
	}
	return out
}

// migrationItems reads GET /_sandbox/migration by kind.
func migrationItems(t *testing.T, a *testAPI) map[string]map[string]any {
	t.Helper()
	r := a.must(200, "GET", "/_sandbox/migration", nil, "X-API-VERSION:")
	out := map[string]map[string]any{}
	for _, x := range r.JSON["items"].([]any) {
		it := x.(map[string]any)
		out[it["kind"].(string)] = it
	}
	return out
}

// TestMigrationNotes: requests made with an older version record the 2.4
// differences they hit, per tenant; the same requests on 2.4 record none;
// counts survive a restart and are not hints.
func TestMigrationNotes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	a, stop := startAPI(t, apiOptions{Path: path, Fsync: "always"})
	attempt := "/payment-attempts/00000000-0000-4000-8000-000000000001/approve"
	first := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(1000), numOK)}, "X-Idempotency-Key: mk")

	// 2.4: nothing to note.
	a.req("POST", attempt, nil)
	a.req("POST", "/payments/"+first.Str("id")+"/capture", nil, "X-Idempotency-Key: mk")
	a.req("POST", "/client-session", map[string]any{"orderId": "o", "approvalMode": "MANUAL"})
	assert.Empty(t, migrationItems(t, a))

	old := a.req("POST", attempt, nil, ver(simulator.V22))
	a.req("POST", attempt, nil, ver(simulator.V23))
	idem := a.req("POST", "/payments/"+first.Str("id")+"/capture", nil, ver(simulator.V22), "X-Idempotency-Key: mk")
	a.req("POST", "/client-session", map[string]any{"orderId": "o", "approvalMode": "MANUAL"}, ver(simulator.V23))
	a.payFull(1000, numOK, nil, ver(simulator.V23))
	part := a.pay(1000, numOK).Str("id")
	a.must(200, "POST", "/payments/"+part+"/capture", map[string]any{"amount": 100}, ver(simulator.V23))

	items := migrationItems(t, a)
	require.Contains(t, items, simulator.DiffAttemptRoutes)
	assert.EqualValues(t, 2, items[simulator.DiffAttemptRoutes]["count"])
	assert.Contains(t, items[simulator.DiffAttemptRoutes]["exampleRequestIds"], old.Header.Get("X-Request-Id"))
	require.Contains(t, items, simulator.DiffIdempotency400)
	assert.Equal(t, []string{"This reused idempotency key answers 409 IdempotencyKeyAlreadyExists on 2.4, 400 TransactionRequestIdempotencyKeyAlreadyExists on 2.2"},
		variantTexts(items[simulator.DiffIdempotency400]))
	assert.Equal(t, []any{idem.Header.Get("X-Request-Id")}, items[simulator.DiffIdempotency400]["exampleRequestIds"])
	assert.Contains(t, variantTexts(items[simulator.DiffNewFields])[0], "$.approvalMode")
	assert.Contains(t, variantTexts(items[simulator.DiffComputedType])[0], "ECOMMERCE")
	assert.EqualValues(t, 1, items[simulator.DiffCaptureIdentity]["count"])
	assert.Contains(t, variantTexts(items[simulator.DiffAnswerShape])[0], "authorizationCode")
	for _, it := range items {
		assert.Equal(t, noteOf(t, it["kind"].(string)), it["description"], "a note is described by its kind's row")
		assert.NotEmpty(t, it["firstSeen"])
		assert.NotEmpty(t, it["lastSeen"])
	}
	hints, _ := a.must(200, "GET", "/_sandbox/hints", nil).JSON["data"].([]any)
	for _, h := range hints {
		assert.NotContains(t, items, h.(map[string]any)["kind"], "migration notes are not hints")
	}

	stop()
	b, _ := startAPI(t, apiOptions{Path: path, Fsync: "always"})
	again := migrationItems(t, b)
	assert.EqualValues(t, 2, again[simulator.DiffAttemptRoutes]["count"], "counts persist")
	assert.Empty(t, migrationItems(t, b.asNewTenant()), "per tenant")
}

// TestMigrationNotesCommitNothing: the migration notes a request made with
// an older version hits are counted without a store write of their own (a
// read commits nothing, a write once), GET /_sandbox/migration shows them
// at once, and a flush stores them in one write.
func TestMigrationNotesCommitNothing(t *testing.T) {
	p := newPipeline(t)
	ct := p.must("POST", "/client-session", plainSession(1000), "clientToken")
	tk := p.must("POST", "/client/payment-instruments", card(numOK), "token", "X-Client-Token", ct)
	id := p.must("POST", "/payments", map[string]any{"paymentMethodToken": tk}, "id")

	assert.Zero(t, p.commits("GET", "/payments/"+id, nil, "X-API-VERSION", "2.2"), "a read made with 2.2")
	ct = p.must("POST", "/client-session", plainSession(1000), "clientToken")
	tk = p.must("POST", "/client/payment-instruments", card(numOK), "token", "X-Client-Token", ct)
	assert.EqualValues(t, 1, p.commits("POST", "/payments", map[string]any{"paymentMethodToken": tk}, "X-API-VERSION", "2.2", "X-Idempotency-Key", "k22"),
		"a payment made with 2.2 (computed paymentType noted)")

	before := p.st.updates.Load()
	w := p.do("GET", "/_sandbox/migration", nil)
	require.Equal(t, 200, w.Code, w.Body.String())
	assert.Equal(t, before, p.st.updates.Load())
	var got struct {
		Items []observe.MigrationNote `json:"items"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &got))
	kinds := map[string]int64{}
	for _, it := range got.Items {
		kinds[it.Kind] = it.Count
	}
	assert.EqualValues(t, 2, kinds[simulator.DiffAnswerShape], "the read's note (and the payment's answer's) seen at once")
	assert.EqualValues(t, 1, kinds[simulator.DiffComputedType])

	require.NoError(t, p.svc.FlushCounts())
	assert.Equal(t, before+1, p.st.updates.Load(), "one write for the tenant's counts")
	require.NoError(t, p.svc.FlushCounts())
	assert.Equal(t, before+1, p.st.updates.Load(), "nothing left to write")
	w = p.do("GET", "/_sandbox/migration", nil)
	var again struct {
		Items []observe.MigrationNote `json:"items"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &again))
	assert.Equal(t, got.Items, again.Items, "stored counts read as the counted ones")
}

// TestMigrationTimeoutResolved: a timeout the scheduler resolves as a
// decline, on a payment made with 2.2, answers statusReason type
// APPLICATION_ERROR where 2.4 answers GATEWAY_TIMEOUT; it is noted for the
// request that created the payment (and got the 504). The same on 2.4
// notes nothing.
func TestMigrationTimeoutResolved(t *testing.T) {
	a := newTestAPI(t).asNewTenant()
	r := a.putRules("rules:\n  - name: quick-timeout\n    when: { amount: 1234 }\n    timeout: { resolveTo: DECLINED, after: 10s, holdFor: 10ms }\n")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	cur := a.payFull(1234, visa, nil)
	require.Equal(t, 504, cur.Status, "%s", cur.Body)
	old := a.payFull(1234, visa, nil, ver(simulator.V22))
	require.Equal(t, 504, old.Status, "%s", old.Body)
	before := migrationItems(t, a)
	assert.NotContains(t, before, simulator.DiffGatewayTimeout, "noted when it resolves")

	a.advance("10s")
	for id, want := range map[string]string{cur.Err()["paymentId"].(string): "GATEWAY_TIMEOUT", old.Err()["paymentId"].(string): "APPLICATION_ERROR"} {
		p := a.must(200, "GET", "/payments/"+id, nil)
		require.Equal(t, "DECLINED", p.Str("status"))
		assert.Equal(t, want, sub(p.JSON, "statusReason")["type"])
	}
	items := migrationItems(t, a)
	require.Contains(t, items, simulator.DiffGatewayTimeout)
	n := items[simulator.DiffGatewayTimeout]
	assert.EqualValues(t, 1, n["count"], "the 2.4 payment notes nothing")
	assert.Equal(t, []string{"This payment's timeout resolved with statusReason type APPLICATION_ERROR on 2.2; on 2.4 the type is GATEWAY_TIMEOUT"}, variantTexts(n))
	assert.Equal(t, []any{old.Header.Get("X-Request-Id")}, n["exampleRequestIds"])
}

// TestMigrationRequestCut: a request made with 2.2 that a timeout rule
// holds past 25 s is cut there (on 2.4 it would wait for the configured
// request timeout), and noted so, whichever of the rule's own 504 and the
// request timeout's answers first. It waits 25 s of real time.
func TestMigrationRequestCut(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the 25 s request timeout of 2.1-2.3")
	}
	t.Parallel()
	a, _ := startAPI(t, apiOptions{RequestTimeout: 30 * time.Second})
	a = a.asNewTenant()
	r := a.putRules("rules:\n  - name: hold\n    when: { amount: 1234 }\n    timeout: { resolveTo: FAILED, after: 1m }\n")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	old := a.payFull(1234, visa, nil, ver(simulator.V22))
	require.Equal(t, 504, old.Status, "%s", old.Body)
	a.advance("1m")

	// The timer's 504 reaches the client while the held handler is still
	// waking up: the request's notes are recorded when its work ends, a
	// moment later on a loaded machine.
	var items map[string]map[string]any
	require.Eventually(t, func() bool {
		items = migrationItems(t, a)
		_, ok := items[simulator.DiffRequestTimeout]
		return ok
	}, 10*time.Second, 20*time.Millisecond, "the request-timeout note is recorded once the request's work ends")
	rid := old.Header.Get("X-Request-Id")
	assert.Equal(t, []string{"This request was cut at 25s on 2.2; on 2.4 it would have waited up to 30s"}, variantTexts(items[simulator.DiffRequestTimeout]))
	assert.Equal(t, []any{rid}, items[simulator.DiffRequestTimeout]["exampleRequestIds"])
	require.Contains(t, items, simulator.DiffGatewayTimeout)
	assert.Equal(t, []any{rid}, items[simulator.DiffGatewayTimeout]["exampleRequestIds"])
}

// noteOf is the description of a difference kind's row.
func noteOf(t *testing.T, kind string) string {
	t.Helper()
	for _, d := range simulator.VersionDifferences {
		if d.Kind == kind {
			return d.Description
		}
	}
	t.Fatalf("no difference %s", kind)
	return ""
}

// TestMigrationReport: each variant of a kind shows with its count (the
// vaulted card's UNSCHEDULED apart from the one-offs' ECOMMERCE); the
// answer carries the older versions' dates, and a tenant whose webhook
// version is older lists what its bodies lack against 2.4.
func TestMigrationReport(t *testing.T) {
	a := newTestAPI(t).asNewTenant()
	pt := tokenIn(a, map[string]any{"orderId": "o"}, numOK)
	vt := a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-v"}).Str("token")
	a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": vt, "amount": 100, "currencyCode": "EUR", "customerId": "cust-v", "orderId": "o-v"}, ver(simulator.V23))
	a.payFull(1000, numOK, nil, ver(simulator.V23))
	a.payFull(1000, numOK, nil, ver(simulator.V22))

	r := a.must(200, "GET", "/_sandbox/migration", nil, "X-API-VERSION:")
	assert.Equal(t, "2026-06-01T00:00:00.000000Z", r.Str("deprecation"))
	assert.Equal(t, "2027-06-01T00:00:00.000000Z", r.Str("sunset"))
	assert.Equal(t, map[string]any{"version": "2.4", "differences": []any{}}, r.JSON["webhooks"])
	ct := migrationItems(t, a)[simulator.DiffComputedType]
	assert.EqualValues(t, 3, ct["count"])
	counts := map[string]any{}
	for _, v := range ct["variants"].([]any) {
		v := v.(map[string]any)
		counts[v["description"].(string)] = v["count"]
	}
	assert.Equal(t, map[string]any{
		"paymentType UNSCHEDULED was computed here on 2.3 and will be blank on 2.4 unless the request or its session gives one": 1.0,
		"paymentType ECOMMERCE was computed here on 2.3 and will be blank on 2.4 unless the request or its session gives one":   1.0,
		"paymentType ECOMMERCE was computed here on 2.2 and will be blank on 2.4 unless the request or its session gives one":   1.0,
	}, counts)

	a.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": "http://127.0.0.1:9/hook", "version": "2.1"})
	r = a.must(200, "GET", "/_sandbox/migration", nil, "X-API-VERSION:")
	wh := r.JSON["webhooks"].(map[string]any)
	assert.Equal(t, "2.1", wh["version"])
	var members []any
	for _, d := range wh["differences"].([]any) {
		members = append(members, d.(map[string]any)["member"])
	}
	assert.Equal(t, []any{"version", "payment.transactions[].authorizationCode", "payment.transactions[].events", "payment.customer", "payment.paymentMethod.isVaulted"}, members)
}
