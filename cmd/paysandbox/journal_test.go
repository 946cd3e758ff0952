package main

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// journal reads GET /_sandbox/requests with the query q.
func journal(a *testApp, q string) []map[string]any {
	a.t.Helper()
	r := a.must(200, "GET", "/_sandbox/requests?"+q, nil, "X-API-VERSION:")
	var out []map[string]any
	for _, e := range r.JSON["data"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

func hintKinds(e map[string]any) []string {
	var out []string
	for _, h := range e["hints"].([]any) {
		out = append(out, h.(map[string]any)["kind"].(string))
	}
	return out
}

// useNewTenant creates a tenant and switches the app's default key to it.
func (a *testApp) useNewTenant() (id, key string) {
	a.t.Helper()
	r := a.must(201, "POST", "/_sandbox/tenants", map[string]any{}, "X-API-VERSION:")
	a.Key = r.Str("apiKey")
	return r.Str("tenantId"), a.Key
}

// TestJournal: the shape, redaction per route, paymentId matching, the
// filters, bad queries, and reset clearing it.
func TestJournal(t *testing.T) {
	a := newTestApp(t)
	tenantID, key := a.useNewTenant()
	ct := a.session(plainSession(1000))
	tok := a.tokenize(ct, numOK).Str("token")
	pay := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tok}, "X-Idempotency-Key: k-1")
	pid := pay.Str("id")
	a.must(409, "POST", "/payments/"+pid+"/capture", map[string]any{"amount": 5}, "X-Idempotency-Key: k-1") // one key space per tenant
	a.req("GET", "/payments/nope", nil)

	all := journal(a, "")
	require.GreaterOrEqual(t, len(all), 5)
	first := all[len(all)-1]
	assert.Equal(t, "POST", first["method"])
	assert.Equal(t, "/_sandbox/tenants", first["path"])
	for _, k := range []string{"at", "method", "path", "status", "latencyMs", "tenantId", "requestId", "requestBody", "responseBody", "hints"} {
		assert.Contains(t, first, k)
	}
	assert.Equal(t, tenantID, first["tenantId"])
	assert.NotContains(t, first["responseBody"], key, "the new tenant's API key is redacted")
	assert.Contains(t, first["responseBody"], `"apiKey":"[REDACTED]"`)
	assert.Contains(t, first["responseBody"], `"signingSecret":"[REDACTED]"`)

	for _, e := range all {
		body := e["requestBody"].(string) + e["responseBody"].(string)
		assert.NotContains(t, body, numOK, "card number in %s %s", e["method"], e["path"])
		assert.NotContains(t, body, `"123"`, "cvv in %s", e["path"])
		assert.NotContains(t, body, ct, "client token in %s", e["path"])
		_, err := time.Parse(time.RFC3339Nano, e["at"].(string))
		assert.NoError(t, err)
	}
	var tokenize map[string]any
	for _, e := range all {
		if e["path"] == "/client/payment-instruments" {
			tokenize = e
		}
	}
	require.NotNil(t, tokenize, "client requests are journaled under the session's tenant")
	assert.Contains(t, tokenize["requestBody"], `"number":"[REDACTED]"`)
	assert.Contains(t, tokenize["requestBody"], `"cvv":"[REDACTED]"`)
	assert.Contains(t, tokenize["requestBody"], `"cardholderName":"Jane Doe"`, "what is not secret stays")

	byPayment := journal(a, "paymentId="+pid)
	var paths []string
	for _, e := range byPayment {
		paths = append(paths, e["method"].(string)+" "+e["path"].(string))
	}
	assert.Equal(t, []string{"POST /payments/" + pid + "/capture", "POST /payments"}, paths, "the path id and the created payment's id")

	assert.Len(t, journal(a, "limit=1"), 1)
	for _, e := range journal(a, "status=4xx") {
		assert.GreaterOrEqual(t, e["status"], float64(400))
	}
	assert.Len(t, journal(a, "status=201"), 1)
	assert.Empty(t, journal(a, "since="+url.QueryEscape(testEpoch.Add(time.Hour).Format(time.RFC3339))))
	assert.Len(t, journal(a, "since="+url.QueryEscape(testEpoch.Format(time.RFC3339))), len(journal(a, "")))

	bad := a.req("GET", "/_sandbox/requests?limit=0&status=abc&since=yesterday", nil, "X-API-VERSION:")
	require.Equal(t, 422, bad.Status, "%s", bad.Body)
	var paths422 []string
	for _, e := range bad.Err()["validationErrors"].([]any)[0].(map[string]any)["errors"].([]any) {
		paths422 = append(paths422, e.(map[string]any)["path"].(string))
	}
	assert.Equal(t, []string{"$.limit", "$.status", "$.since"}, paths422)

	a.must(200, "POST", "/_sandbox/reset", nil, "X-API-VERSION:")
	assert.Empty(t, journal(a, ""), "reset clears the journal")
	assert.Empty(t, a.must(200, "GET", "/_sandbox/hints", nil, "X-API-VERSION:").JSON["data"])
}

// TestJournalPaymentIDs: approve's merchantPaymentId and an error's paymentId
// also find their entries.
func TestJournalPaymentIDs(t *testing.T) {
	a := newTestApp(t)
	a.useNewTenant()
	ct := manualSession(a, nil)
	att, _ := newAttempt(a, ct, numOK)
	ap := a.must(200, "POST", "/payment-attempts/"+att+"/approve", nil)
	pid := ap.Str("merchantPaymentId")
	require.NotEmpty(t, pid)
	es := journal(a, "paymentId="+pid)
	require.Len(t, es, 1)
	assert.Equal(t, "/payment-attempts/"+att+"/approve", es[0]["path"])

	ct2 := a.session(plainSession(500))
	tok := a.tokenize(ct2, numOK).Str("token")
	p := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tok}, "X-Idempotency-Key: same")
	ct3 := a.session(plainSession(500))
	tok3 := a.tokenize(ct3, numOK).Str("token")
	a.must(409, "POST", "/payments", map[string]any{"paymentMethodToken": tok3}, "X-Idempotency-Key: same")
	es = journal(a, "paymentId="+p.Str("id"))
	require.Len(t, es, 2)
	assert.Equal(t, float64(409), es[0]["status"], "the 409 names the payment the key was used for")
}

// TestHints: each kind the server can see from requests, on the entry and in
// the summary with its fix; webhook-non-2xx through RecordWebhookHint.
func TestHints(t *testing.T) {
	a := newTestApp(t)
	tenantID, _ := a.useNewTenant()
	p := a.pay(1000, numOK) // no idempotency key
	pid := p.Str("id")
	for i := 0; i < 5; i++ { // the manual clock stands still: 5 GETs within 1s
		a.must(200, "GET", "/payments/"+pid, nil)
	}
	r := a.must(200, "GET", "/payments?orderId=order-1&limt=5&status=AUTHORIZED", nil)
	warn := r.Header.Get("Sandbox-Warning")
	assert.Contains(t, warn, "orderId ignored (did you mean order_id?)")
	assert.Contains(t, warn, "limt ignored (did you mean limit?)")
	assert.NotContains(t, warn, "status")
	assert.Empty(t, a.must(200, "GET", "/payments?order_id=order-1", nil).Header.Get("Sandbox-Warning"))
	a.must(200, "POST", "/payments/"+pid+"/capture", map[string]any{}, "X-Idempotency-Key: cap-1")
	a.App.Server.Journal().RecordWebhookHint(tenantID, "evt-9", 503, "")

	es := journal(a, "")
	byPath := map[string][]string{}
	for _, e := range es {
		k := e["method"].(string) + " " + e["path"].(string)
		byPath[k] = append(byPath[k], hintKinds(e)...)
	}
	assert.Equal(t, []string{"missing-idempotency-key"}, byPath["POST /payments"])
	assert.Equal(t, []string{"tight-polling"}, byPath["GET /payments/"+pid])
	assert.Equal(t, []string{"unknown-query-param"}, byPath["GET /payments"])
	assert.Empty(t, byPath["POST /payments/"+pid+"/capture"], "a key was sent")

	h := a.must(200, "GET", "/_sandbox/hints", nil, "X-API-VERSION:")
	kinds := map[string]map[string]any{}
	for _, s := range h.JSON["data"].([]any) {
		m := s.(map[string]any)
		kinds[m["kind"].(string)] = m
		assert.NotEmpty(t, m["fix"])
		assert.Equal(t, float64(1), m["count"], m["kind"])
	}
	assert.Len(t, kinds, 4)
	assert.Equal(t, []any{"evt-9"}, kinds["webhook-non-2xx"]["latestEventIds"])
	assert.Len(t, kinds["tight-polling"]["latestRequestIds"], 1)

	other := a.must(201, "POST", "/_sandbox/tenants", map[string]any{}, "X-API-VERSION:")
	a.Key = other.Str("apiKey")
	assert.Empty(t, a.must(200, "GET", "/_sandbox/hints", nil, "X-API-VERSION:").JSON["data"], "hints are per tenant")
}

// TestJournalSize: the ring keeps journal_size entries.
func TestJournalSize(t *testing.T) {
	cfg := testConfig()
	cfg.JournalSize = 3
	a := startApp(t, cfg)
	for i := 0; i < 5; i++ {
		a.must(200, "GET", "/_sandbox/clock", nil, "X-API-VERSION:")
	}
	assert.Len(t, journal(a, "limit=3"), 3)
	assert.Equal(t, 422, a.req("GET", "/_sandbox/requests?limit=4", nil, "X-API-VERSION:").Status, "limit is at most the size")
}

// TestAttemptsList: GET /_sandbox/payment-attempts, newest first, by status.
func TestAttemptsList(t *testing.T) {
	a := newTestApp(t)
	a.useNewTenant()
	first := freshAttempt(a, numOK)
	a.Clock.Advance(time.Second)
	second := freshAttempt(a, numOK)
	a.must(200, "POST", "/payment-attempts/"+first+"/abort", nil)
	list := func(q string) []string {
		r := a.must(200, "GET", "/_sandbox/payment-attempts"+q, nil, "X-API-VERSION:")
		var ids []string
		for _, e := range r.JSON["data"].([]any) {
			ids = append(ids, e.(map[string]any)["paymentAttemptId"].(string))
		}
		return ids
	}
	assert.Equal(t, []string{second, first}, list(""))
	assert.Equal(t, []string{second}, list("?status=AWAITING_APPROVAL"))
	assert.Equal(t, []string{first}, list("?status=ABORTED"))
	a.Clock.Advance(time.Hour)
	assert.Equal(t, []string{second}, list("?status=EXPIRED"), "expiry applies at the tenant's now")
	assert.Equal(t, 422, a.req("GET", "/_sandbox/payment-attempts?status=DONE", nil, "X-API-VERSION:").Status)
}

// TestTenantAdmin: list and delete with the admin key; 401 without it, and
// 401 when the sandbox has no admin key at all.
func TestTenantAdmin(t *testing.T) {
	plain := newTestApp(t)
	for _, h := range []string{"X-Admin-Key:", "X-Admin-Key: anything"} {
		assert.Equal(t, "Unauthorized", plain.req("GET", "/_sandbox/tenants", nil, h).ErrorID())
		assert.Equal(t, "Unauthorized", plain.req("DELETE", "/_sandbox/tenants/default", nil, h).ErrorID())
	}

	cfg := testConfig()
	cfg.AdminKey = "adm"
	a := startApp(t, cfg)
	created := a.must(201, "POST", "/_sandbox/tenants", map[string]any{"ttl": "1h"}, "X-API-VERSION:", "X-Admin-Key: adm")
	id := created.Str("tenantId")
	for _, h := range []string{"X-Admin-Key:", "X-Admin-Key: wrong"} {
		assert.Equal(t, 401, a.req("GET", "/_sandbox/tenants", nil, h).Status)
		assert.Equal(t, 401, a.req("DELETE", "/_sandbox/tenants/"+id, nil, h).Status)
	}
	r := a.must(200, "GET", "/_sandbox/tenants", nil, "X-Admin-Key: adm")
	raw, _ := json.Marshal(r.JSON)
	assert.Contains(t, string(raw), id)
	assert.NotContains(t, string(raw), created.Str("apiKey"), "no keys in the list")
	assert.NotContains(t, string(raw), created.Str("signingSecret"))
	assert.Equal(t, 2, len(r.JSON["data"].([]any)))
	a.must(200, "DELETE", "/_sandbox/tenants/"+id, nil, "X-Admin-Key: adm")
	a.Key = created.Str("apiKey")
	assert.Equal(t, 401, a.req("GET", "/_sandbox/clock", nil).Status, "its key is gone")
	assert.Equal(t, "NotFound", a.req("DELETE", "/_sandbox/tenants/"+id, nil, "X-Admin-Key: adm").ErrorID())
}

// TestNoDefaultTenant: --no-default-tenant keeps the public key out, also
// on a store where the default tenant exists from an earlier start.
func TestNoDefaultTenant(t *testing.T) {
	cfg := testConfig()
	cfg.DB = t.TempDir() + "/p.db"
	a := startApp(t, cfg)
	a.pay(100, numOK)
	require.NoError(t, a.Close())

	cfg.DefaultTenant = ptrTo(false)
	b := startApp(t, cfg)
	r := b.req("GET", "/_sandbox/clock", nil)
	assert.Equal(t, 401, r.Status)
	assert.Equal(t, simulator.DefaultAPIKey, b.Key)
	c := b.must(201, "POST", "/_sandbox/tenants", map[string]any{})
	b.Key = c.Str("apiKey")
	b.must(200, "GET", "/_sandbox/clock", nil)
	assert.True(t, strings.HasPrefix(b.Key, "sk_"))
}
