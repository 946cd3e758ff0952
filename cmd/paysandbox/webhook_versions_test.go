package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// customerPay pays amount with a session that carries a customer, so 2.1's
// missing customer object shows.
func customerPay(a *testApp, amount int64) string {
	a.t.Helper()
	s := plainSession(amount)
	s["customer"] = map[string]any{"emailAddress": "jane@example.com"}
	pt := tokenIn(a, s, numOK)
	return a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt}).Str("id")
}

// hookOf is the body the receiver got for event id (its first delivery).
func hookOf(t *testing.T, rc *receiver, id string) map[string]any {
	t.Helper()
	for _, d := range rc.deliveries() {
		if d.Header.Get("X-Event-Id") == id {
			return d.JSON
		}
	}
	require.Failf(t, "no delivery", "event %s was not delivered", id)
	return nil
}

// waitEvent waits for paymentID's event of type typ to be delivered and
// answers its id.
func waitEvent(a *testApp, paymentID, typ string) string {
	a.t.Helper()
	return a.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+paymentID+"&type="+typ+"&timeout=10s", nil).Str("id")
}

// The tenant's webhook version shapes the bodies of PAYMENT.STATUS,
// PAYMENT.REFUND and DISPUTE.OPENED; each event keeps the version it was
// made with, on replay too, after the tenant switched.
func TestWebhookVersionShapesBodies(t *testing.T) {
	a := newTestApp(t)
	rc := newReceiver(t, answer(200))
	got := a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil)
	assert.Equal(t, "2.4", got.Str("version"), "the default")

	r := a.req("PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": rc.URL, "version": "2.5"})
	require.Equal(t, 422, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), `"$.version"`)
	assert.Contains(t, string(r.Body), "2.1, 2.2, 2.3, 2.4")

	put := a.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": rc.URL, "version": "2.2"})
	assert.Equal(t, map[string]any{"url": rc.URL, "version": "2.2"}, put.JSON)
	assert.Equal(t, "2.2", a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil).Str("version"))
	a.setEndpoint(rc.URL) // no version: kept
	assert.Equal(t, "2.2", a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil).Str("version"))

	old := customerPay(a, 1000)
	a.must(200, "POST", "/payments/"+old+"/capture", nil)
	a.must(200, "POST", "/payments/"+old+"/refund", map[string]any{"amount": 300})
	a.must(200, "POST", "/_sandbox/payments/"+old+"/dispute", map[string]any{})
	statusID := a.events(old)[0]["id"].(string)
	waitEvent(a, old, "PAYMENT.STATUS")
	refundID, disputeID := waitEvent(a, old, "PAYMENT.REFUND"), waitEvent(a, old, "DISPUTE.OPENED")

	a.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": rc.URL, "version": "2.4"})
	cur := customerPay(a, 1000)
	a.must(200, "POST", "/payments/"+cur+"/capture", nil)
	a.must(200, "POST", "/payments/"+cur+"/refund", map[string]any{"amount": 300})
	curRefund := waitEvent(a, cur, "PAYMENT.REFUND")

	for _, tc := range []struct {
		name, id, version string
		events            bool
	}{
		{"2.2 refund", refundID, "2.2", false},
		{"2.4 refund", curRefund, "2.4", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := hookOf(t, rc, tc.id)
			assert.Equal(t, tc.version, b["version"])
			p := b["payment"].(map[string]any)
			assert.Contains(t, p, "customer", "2.2 and 2.4 carry the customer")
			assert.Contains(t, p["paymentMethod"], "isVaulted")
			for _, tx := range p["transactions"].([]any) {
				tx := tx.(map[string]any)
				assert.Contains(t, tx, "processorTransactionId")
				assert.Contains(t, tx, "processorMerchantId")
				_, hasEvents := tx["events"]
				assert.Equal(t, tc.events, hasEvents)
				if tx["transactionType"] == "SALE" {
					_, hasCode := tx["authorizationCode"]
					assert.Equal(t, tc.events, hasCode)
				}
			}
		})
	}
	assert.Equal(t, "2.2", hookOf(t, rc, statusID)["version"])
	assert.Equal(t, "2.2", hookOf(t, rc, disputeID)["version"])

	// replay after the switch to 2.4: the body it was made with, 2.2
	n := len(rc.deliveries())
	a.must(200, "POST", "/_sandbox/webhooks/events/"+refundID+"/replay", nil)
	ds := rc.deliveries()
	require.Len(t, ds, n+1)
	replayed := ds[n]
	assert.Equal(t, refundID, replayed.Header.Get("X-Event-Id"))
	assert.Equal(t, "2.2", replayed.JSON["version"])
	first := hookOf(t, rc, refundID)
	delete(first, "signedAt")
	delete(replayed.JSON, "signedAt")
	assert.Equal(t, first, replayed.JSON, "the same body but for signedAt")
	detail := a.must(200, "GET", "/_sandbox/webhooks/events/"+refundID, nil)
	assert.Equal(t, "2.2", detail.JSON["body"].(map[string]any)["version"])

	// reset keeps the version
	a.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": rc.URL, "version": "2.3"})
	a.must(200, "POST", "/_sandbox/reset", nil)
	assert.Equal(t, "2.3", a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil).Str("version"))
}

// webhookVersion at tenant creation: 2.1 bodies carry no customer and no
// paymentMethod.isVaulted; a bad version is a 422 at its path.
func TestWebhookVersionAtTenantCreation(t *testing.T) {
	a := newTestApp(t)
	rc := newReceiver(t, answer(200))
	r := a.req("POST", "/_sandbox/tenants", map[string]any{"webhookVersion": "2.0"})
	require.Equal(t, 422, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), `"$.webhookVersion"`)

	created := a.must(201, "POST", "/_sandbox/tenants", map[string]any{"webhookUrl": rc.URL, "webhookVersion": "2.1"})
	assert.Equal(t, "2.1", created.Str("webhookVersion"))
	b := a.as(created.Str("apiKey"))
	got := b.must(200, "GET", "/_sandbox/webhooks/endpoint", nil)
	assert.Equal(t, map[string]any{"url": rc.URL, "version": "2.1"}, got.JSON)
	pid := customerPay(b, 1000)
	body := hookOf(t, rc, waitEvent(b, pid, "PAYMENT.STATUS"))
	assert.Equal(t, "2.1", body["version"])
	p := body["payment"].(map[string]any)
	assert.NotContains(t, p, "customer")
	assert.NotContains(t, p["paymentMethod"], "isVaulted")
	assert.Equal(t, "2.4", a.must(201, "POST", "/_sandbox/tenants", nil).Str("webhookVersion"), "the default")
}

// webhook_version in the config: the default tenant's, config tenants'
// unless they name their own, and that of tenants created without one.
func TestWebhookVersionFromConfig(t *testing.T) {
	cfg := testConfig()
	cfg.WebhookVersion = "2.3"
	cfg.Tenants = []TenantConfig{
		{ID: "old", APIKeys: []APIKeyConfig{{Key: "old-key"}}, WebhookVersion: "2.1"},
		{ID: "plain", APIKeys: []APIKeyConfig{{Key: "plain-key"}}},
	}
	a := startApp(t, cfg)
	version := func(a *testApp) string {
		return a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil).Str("version")
	}
	assert.Equal(t, "2.3", version(a))
	assert.Equal(t, "2.1", version(a.as("old-key")))
	assert.Equal(t, "2.3", version(a.as("plain-key")))
	assert.Equal(t, "2.3", a.must(201, "POST", "/_sandbox/tenants", nil).Str("webhookVersion"))
	assert.Equal(t, "2.2", a.must(201, "POST", "/_sandbox/tenants", map[string]any{"webhookVersion": "2.2"}).Str("webhookVersion"))
}

// The CLI sets and shows the webhook version: tenants create
// --webhook-version, webhooks endpoint set --version, endpoint show.
func TestCLIWebhookVersion(t *testing.T) {
	a := newTestApp(t)
	code, out, errOut := cliRun(t, a, nil, "tenants", "create", "--webhook-version", "2.2", "-o", "json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"webhookVersion": "2.2"`)
	code, _, errOut = cliRun(t, a, nil, "tenants", "create", "--webhook-version", "9")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--webhook-version "9" is not one of 2.1, 2.2, 2.3, 2.4`)

	code, out, errOut = cliRun(t, a, nil, "webhooks", "endpoint", "set", "http://127.0.0.1:9/hook", "--version", "2.1")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "version  2.1")
	code, out, errOut = cliRun(t, a, nil, "webhooks", "endpoint", "show")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "url      http://127.0.0.1:9/hook\nversion  2.1\n", out)
}
