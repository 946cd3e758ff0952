package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// journal reads GET /_sandbox/requests with the query q.
func journal(a *testAPI, q string) []map[string]any {
	a.t.Helper()
	r := a.must(200, "GET", "/_sandbox/requests?"+q, nil, "X-API-VERSION:")
	var out []map[string]any
	for _, e := range r.JSON["data"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

// useNewTenant creates a tenant and switches the API's default key to it.
func (a *testAPI) useNewTenant() (id, key string) {
	a.t.Helper()
	r := a.must(201, "POST", "/_sandbox/tenants", map[string]any{}, "X-API-VERSION:")
	a.Key = r.Str("apiKey")
	return r.Str("tenantId"), a.Key
}

// TestTenantIsolation walks every route that takes an id with another
// tenant's ids: each answers as for an unknown id (the route's "not found"),
// and lists, the journal and hints show nothing of the other tenant.
func TestTenantIsolation(t *testing.T) {
	a := newTestAPI(t)
	_, keyA := a.useNewTenant()
	ct := a.session(map[string]any{"orderId": "o-a", "currencyCode": "EUR", "amount": 1000, "customerId": "cust-a"})
	tok := a.tokenize(ct, numOK).Str("token")
	vaulted := a.must(200, "POST", "/payment-instruments/"+tok+"/vault", map[string]any{"customerId": "cust-a"}).Str("token")
	pid := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": vaulted, "amount": 100, "currencyCode": "EUR", "customerId": "cust-a", "orderId": "o-a"}, "X-Idempotency-Key: a-1").Str("id")
	challenged := a.pay(1000, numChallenge).Str("id")
	att := freshAttempt(a, numOK)
	journalA := journal(a, "")
	require.NotEmpty(t, journalA)

	b := a.as(keyA)
	_, _ = b.useNewTenant() // b is now another tenant
	b.t = t
	require.NotEqual(t, keyA, b.Key)
	ctl := "X-API-VERSION:"
	tests := []struct {
		method, path string
		body         any
		status       int
		errorID      string
	}{
		{"GET", "/client-session?clientToken=" + ct, nil, 400, "ClientSessionValidationError"},
		{"PATCH", "/client-session", map[string]any{"clientToken": ct, "orderId": "x"}, 400, "ClientSessionValidationError"},
		{"POST", "/payments", map[string]any{"paymentMethodToken": vaulted, "amount": 100, "currencyCode": "EUR", "customerId": "cust-a", "orderId": "o-b"}, 400, "InvalidPaymentInstrumentToken"},
		{"GET", "/payments/" + pid, nil, 400, "PaymentError"},
		{"POST", "/payments/" + pid + "/authorize", map[string]any{"processor": map[string]any{"name": "STRIPE", "processorMerchantId": "acct_sandbox_stripe"}}, 404, "PaymentNotFoundError"},
		{"POST", "/payments/" + challenged + "/resume", map[string]any{"resumeToken": "x"}, 400, "PaymentError"},
		{"POST", "/payments/" + pid + "/capture", map[string]any{}, 400, "PaymentError"},
		{"POST", "/payments/" + pid + "/cancel", map[string]any{}, 400, "PaymentError"},
		{"POST", "/payments/" + pid + "/refund", map[string]any{}, 400, "PaymentError"},
		{"POST", "/payment-attempts/" + att + "/approve", nil, 404, "PaymentAttemptNotFound"},
		{"POST", "/payment-attempts/" + att + "/abort", nil, 404, "PaymentAttemptNotFound"},
		{"POST", "/payment-instruments/" + vaulted + "/vault", map[string]any{"customerId": "cust-a"}, 400, "InvalidPaymentInstrumentToken"},
		{"DELETE", "/payment-instruments/" + vaulted, nil, 400, "InvalidPaymentInstrumentToken"},
		{"POST", "/payment-instruments/" + vaulted + "/default", nil, 400, "InvalidPaymentInstrumentToken"},
		{"GET", "/_sandbox/payment-attempts/" + att, nil, 404, "PaymentAttemptNotFound"},
		{"POST", "/_sandbox/payment-attempts/" + att + "/expire", nil, 404, "PaymentAttemptNotFound"},
		{"GET", "/_sandbox/wait?paymentId=" + pid + "&status=AUTHORIZED&timeout=0s", nil, 400, "PaymentError"},
		{"POST", "/_sandbox/payments/" + pid + "/dispute", map[string]any{}, 400, "PaymentError"},
		{"POST", "/_sandbox/payments/" + pid + "/settle", nil, 400, "PaymentError"},
		{"POST", "/_sandbox/payments/" + challenged + "/3ds", map[string]any{"result": "AUTH_SUCCESS"}, 400, "PaymentError"},
		{"DELETE", "/_sandbox/tenants/" + journalA[0]["tenantId"].(string), nil, 401, "Unauthorized"},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := b.req(tc.method, tc.path, tc.body, "X-Idempotency-Key: b-"+tc.method+tc.path)
			assert.Equal(t, tc.status, r.Status, "%s", r.Body)
			assert.Equal(t, tc.errorID, r.ErrorID())
		})
	}

	lists := []struct{ name, path string }{
		{"payments", "/payments"},
		{"payments by order", "/payments?order_id=o-a"},
		{"instruments", "/payment-instruments?customer_id=cust-a"},
		{"attempts", "/_sandbox/payment-attempts"},
	}
	for _, l := range lists {
		t.Run("list "+l.name, func(t *testing.T) {
			r := b.must(200, "GET", l.path, nil)
			assert.Empty(t, r.JSON["data"], "%s", r.Body)
		})
	}
	t.Run("b's journal and hints name none of a's requests", func(t *testing.T) {
		for _, e := range journal(b, "paymentId="+pid) { // b's own tries at a's id only
			assert.NotEqual(t, journalA[0]["tenantId"], e["tenantId"])
		}
		raw, _ := json.Marshal(append([]any{b.must(200, "GET", "/_sandbox/requests?limit=500", nil, ctl).JSON},
			b.must(200, "GET", "/_sandbox/hints", nil, ctl).JSON))
		for _, e := range journalA {
			assert.NotContains(t, string(raw), e["requestId"].(string))
		}
	})
	t.Run("a still has everything", func(t *testing.T) {
		assert.Equal(t, "AUTHORIZED", a.must(200, "GET", "/payments/"+pid, nil).Str("status"))
		assert.Equal(t, "AWAITING_APPROVAL", a.must(200, "GET", "/_sandbox/payment-attempts/"+att, nil, ctl).Str("status"))
	})
}
