package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// asNewTenant is a copy of a that speaks as a fresh tenant (its own data,
// clock and rules).
func (a *testAPI) asNewTenant() *testAPI {
	a.t.Helper()
	r := a.must(201, "POST", "/_sandbox/tenants", nil, "X-API-KEY:")
	c := *a
	c.Key = r.Str("apiKey")
	return &c
}

// putRules replaces the tenant's rules with a YAML document.
func (a *testAPI) putRules(doc string) *resp {
	a.t.Helper()
	return a.req("PUT", "/_sandbox/scenarios", doc, "Content-Type: application/yaml")
}

// payFull pays amount with number in a fresh session; extra fields go on
// POST /payments. It answers whatever the API answers.
func (a *testAPI) payFull(amount int64, number string, extra map[string]any, headers ...string) *resp {
	a.t.Helper()
	tok := a.session(map[string]any{"orderId": "order-1", "currencyCode": "EUR", "amount": amount, "customerId": "cust-1"})
	body := map[string]any{"paymentMethodToken": a.tokenize(tok, number).Str("token")}
	for k, v := range extra {
		body[k] = v
	}
	return a.req("POST", "/payments", body, headers...)
}

// advance moves the tenant's clock by d through the control plane.
func (a *testAPI) advance(d string) *resp {
	a.t.Helper()
	return a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": d})
}

func (a *testAPI) payment(id string) *resp {
	a.t.Helper()
	return a.must(200, "GET", "/payments/"+id+"?expand=transactions.events", nil)
}

func sub(m map[string]any, key string) map[string]any { v, _ := m[key].(map[string]any); return v }

func txns(p map[string]any) []map[string]any {
	var out []map[string]any
	for _, t := range p["transactions"].([]any) {
		out = append(out, t.(map[string]any))
	}
	return out
}

const visa = "4111111111111111"

// TestScenarioOutcomesE2E drives each outcome of the shipped scenarios
// through the HTTP API, with clock advances instead of sleeps.
func TestScenarioOutcomesE2E(t *testing.T) {
	root := newTestAPI(t)

	t.Run("decline and fail cards", func(t *testing.T) {
		a := root.asNewTenant()
		p := a.payFull(1000, "5100000000000008", nil)
		require.Equal(t, 200, p.Status)
		assert.Equal(t, "DECLINED", p.Str("status"))
		assert.Equal(t, map[string]any{"type": "ISSUER_DECLINED", "declineType": "HARD_DECLINE", "code": "DO_NOT_HONOR", "message": "Declined"}, sub(p.JSON, "statusReason"))
		p = a.payFull(1000, "4000000000000010", nil)
		assert.Equal(t, "FAILED", p.Str("status"))
		assert.Equal(t, "APPLICATION_ERROR", sub(p.JSON, "statusReason")["type"])
	})

	t.Run("soft decline then fallback: two SALE transactions, async capture settles later", func(t *testing.T) {
		a := root.asNewTenant()
		p := a.payFull(4051, visa, nil)
		require.Equal(t, "AUTHORIZED", p.Str("status"), "%s", p.Body)
		assert.Equal(t, "ADYEN", sub(p.JSON, "processor")["name"])
		ts := txns(p.JSON)
		require.Len(t, ts, 2)
		assert.Equal(t, []any{"SALE", "STRIPE", "DECLINED", "SOFT_DECLINE"}, []any{ts[0]["type"], ts[0]["processorName"], ts[0]["processorStatus"], sub(ts[0], "processorStatusReason")["declineType"]})
		assert.Equal(t, []any{"SALE", "ADYEN", "AUTHORIZED", "sandbox_adyen"}, []any{ts[1]["type"], ts[1]["processorName"], ts[1]["processorStatus"], ts[1]["processorMerchantId"]})
		assert.NotEqual(t, ts[0]["processorTransactionId"], ts[1]["processorTransactionId"])
		assert.Nil(t, ts[1]["authorizationCode"], "ADYEN gives no authorization code")
		id := p.Str("id")
		c := a.must(200, "POST", "/payments/"+id+"/capture", nil)
		assert.Equal(t, "SETTLING", c.Str("status"))
		a.advance("29s")
		assert.Equal(t, "SETTLING", a.payment(id).Str("status"))
		a.advance("1s")
		assert.Equal(t, "SETTLED", a.payment(id).Str("status"))
	})

	t.Run("soft decline then BRAINTREE: no authorization code, sync capture", func(t *testing.T) {
		a := root.asNewTenant()
		p := a.payFull(4052, visa, nil)
		require.Equal(t, "AUTHORIZED", p.Str("status"))
		ts := txns(p.JSON)
		require.Len(t, ts, 2)
		assert.Equal(t, "BRAINTREE", ts[1]["processorName"])
		assert.Nil(t, ts[1]["authorizationCode"])
		assert.Equal(t, "SETTLED", a.must(200, "POST", "/payments/"+p.Str("id")+"/capture", nil).Str("status"))
	})

	t.Run("soft decline everywhere ends DECLINED", func(t *testing.T) {
		a := root.asNewTenant()
		p := a.payFull(4053, visa, nil)
		assert.Equal(t, "DECLINED", p.Str("status"))
		assert.Len(t, txns(p.JSON), 2)
		assert.Equal(t, "HARD_DECLINE", sub(p.JSON, "statusReason")["declineType"])
	})

	t.Run("3DS challenge, frictionless pass, frictionless fail", func(t *testing.T) {
		a := root.asNewTenant()
		p := a.payFull(1000, "4916994064252017", nil)
		require.Equal(t, "PENDING", p.Str("status"))
		assert.Equal(t, "3DS_AUTHENTICATION", sub(p.JSON, "requiredAction")["name"])
		done := a.must(200, "POST", "/_sandbox/payments/"+p.Str("id")+"/3ds", map[string]any{"result": "AUTH_SUCCESS"})
		assert.Equal(t, "AUTHORIZED", done.Str("status"))
		assert.Equal(t, "AUTH_SUCCESS", sub(sub(done.JSON, "paymentMethod"), "threeDSecureAuthentication")["responseCode"])

		p = a.payFull(1000, "5512459816707531", nil)
		assert.Equal(t, "AUTHORIZED", p.Str("status"))
		assert.Equal(t, "AUTH_SUCCESS", sub(sub(p.JSON, "paymentMethod"), "threeDSecureAuthentication")["responseCode"])

		p = a.payFull(1000, "4716429323842524", nil)
		assert.Equal(t, "DECLINED", p.Str("status"))
		assert.Equal(t, "AUTHENTICATION_REQUIRED", sub(p.JSON, "statusReason")["code"])
		assert.Equal(t, "AUTH_FAILED", sub(sub(p.JSON, "paymentMethod"), "threeDSecureAuthentication")["responseCode"])
	})

	t.Run("slow settlement, settle on demand, settlement failure, capture failure", func(t *testing.T) {
		a := root.asNewTenant()
		id := a.payFull(7042, visa, nil).Str("id")
		assert.Equal(t, "SETTLING", a.must(200, "POST", "/payments/"+id+"/capture", nil).Str("status"))
		a.advance("59m")
		assert.Equal(t, "SETTLING", a.payment(id).Str("status"))
		a.advance("1m")
		assert.Equal(t, "SETTLED", a.payment(id).Str("status"))

		id = a.payFull(7000, visa, nil).Str("id")
		a.must(200, "POST", "/payments/"+id+"/capture", nil)
		assert.Equal(t, "SETTLED", a.must(200, "POST", "/_sandbox/payments/"+id+"/settle", nil).Str("status"))

		id = a.payFull(7100, visa, nil).Str("id")
		a.must(200, "POST", "/payments/"+id+"/capture", nil)
		a.advance("1h")
		assert.Equal(t, "FAILED", a.payment(id).Str("status"))

		c := a.must(200, "POST", "/payments/"+a.payFull(7200, visa, nil).Str("id")+"/capture", nil)
		assert.Equal(t, "FAILED", c.Str("status"))
		assert.Equal(t, "The processor could not capture the payment", sub(c.JSON, "statusReason")["message"])
	})

	t.Run("refund failure, pending refund then settled, pending refund then failed", func(t *testing.T) {
		a := root.asNewTenant()
		refund := func(amount int64) (string, map[string]any) {
			id := a.payFull(amount, visa, nil).Str("id")
			a.must(200, "POST", "/payments/"+id+"/capture", nil)
			r := a.must(200, "POST", "/payments/"+id+"/refund", nil)
			ts := txns(r.JSON)
			return id, ts[len(ts)-1]
		}
		id, rf := refund(8000)
		assert.Equal(t, []any{"REFUND", "FAILED"}, []any{rf["type"], rf["processorStatus"]})
		assert.Equal(t, float64(0), sub(a.payment(id).JSON, "processor")["amountRefunded"])

		id, rf = refund(8100)
		assert.Equal(t, "PENDING", rf["processorStatus"])
		a.advance("1h")
		p := a.payment(id)
		ts := txns(p.JSON)
		assert.Equal(t, "SETTLED", ts[len(ts)-1]["processorStatus"])
		assert.Equal(t, float64(8100), sub(p.JSON, "processor")["amountRefunded"])

		id, _ = refund(8200)
		a.advance("1h")
		ts = txns(a.payment(id).JSON)
		assert.Equal(t, "FAILED", ts[len(ts)-1]["processorStatus"])
	})

	t.Run("scheduled dispute: after counts from authorization", func(t *testing.T) {
		a := root.asNewTenant()
		id := a.payFull(9000, visa, nil).Str("id")
		tid := tenantIDOf(t, a)
		jobs := disputeJobs(t, a, tid)
		require.Len(t, jobs, 1)
		created := a.payment(id).Str("date")
		at, err := time.Parse(time.RFC3339Nano, created)
		require.NoError(t, err)
		assert.Equal(t, at.Add(time.Minute), jobs[0].Due)
		assert.Equal(t, "PRODUCT_NOT_RECEIVED", jobs[0].Reason)
		a.advance("1m")
		assert.Empty(t, disputeJobs(t, a, tid), "the dispute opened")
	})
}

func tenantIDOf(t *testing.T, a *testAPI) string {
	var id string
	require.NoError(t, a.DB.View(func(tx simulator.Tx) error {
		tn, err := tx.TenantByAPIKey(a.Key)
		if tn != nil {
			id = tn.ID
		}
		return err
	}))
	return id
}

func disputeJobs(t *testing.T, a *testAPI, tid string) []*simulator.Job {
	var out []*simulator.Job
	require.NoError(t, a.DB.View(func(tx simulator.Tx) error {
		jobs, err := tx.DueJobs(tid, time.Unix(1<<40, 0), 0)
		for _, j := range jobs {
			if j.Kind == simulator.JobDispute {
				out = append(out, j)
			}
		}
		return err
	}))
	return out
}

// TestScenarioTimeoutE2E: the caller gets 504; the payment stays PENDING and
// resolves on the tenant clock; a retry with the same key gets 409 with the
// payment's id, never a second payment.
func TestScenarioTimeoutE2E(t *testing.T) {
	root, _ := startAPI(t, apiOptions{RequestTimeout: 200 * time.Millisecond}) // the shipped rules hold until request_timeout
	for _, tc := range []struct {
		amount int64
		final  string
	}{{5040, "AUTHORIZED"}, {5041, "DECLINED"}, {5042, "FAILED"}} {
		t.Run(fmt.Sprint(tc.amount), func(t *testing.T) {
			a := root.asNewTenant()
			key := fmt.Sprintf("timeout-%d", tc.amount)
			r := a.payFull(tc.amount, visa, nil, "X-Idempotency-Key: "+key)
			require.Equal(t, 504, r.Status, "%s", r.Body)
			assert.Equal(t, "RequestTimeout", r.ErrorID())
			again := a.payFull(tc.amount, visa, nil, "X-Idempotency-Key: "+key)
			require.Equal(t, 409, again.Status)
			id, _ := again.Err()["paymentId"].(string)
			require.NotEmpty(t, id)
			assert.Equal(t, "PENDING", again.Err()["paymentStatus"])
			assert.Equal(t, id, r.Err()["paymentId"], "the 504 names the payment it left PENDING")
			assert.Equal(t, "PENDING", r.Err()["paymentStatus"])
			list := a.must(200, "GET", "/payments", nil)
			assert.Len(t, list.JSON["data"], 1, "one payment, never a second")
			a.advance("1m59s")
			assert.Equal(t, "PENDING", a.payment(id).Str("status"))
			a.advance("1s")
			p := a.payment(id)
			assert.Equal(t, tc.final, p.Str("status"))
			if tc.final != "AUTHORIZED" {
				assert.Equal(t, "GATEWAY_TIMEOUT", sub(p.JSON, "statusReason")["type"])
			}
		})
	}
	t.Run("latency longer than request_timeout: 504, and the authorization goes on", func(t *testing.T) {
		a := root.asNewTenant()
		require.Equal(t, 200, a.putRules("rules:\n  - { name: slow, when: { orderId: \"slow-*\" }, latency: 400ms }\n").Status)
		tok := a.session(map[string]any{"orderId": "slow-1", "currencyCode": "EUR", "amount": 1000})
		r := a.req("POST", "/payments", map[string]any{"paymentMethodToken": a.tokenize(tok, visa).Str("token")}, "X-Idempotency-Key: slow-1")
		require.Equal(t, 504, r.Status, "%s", r.Body)
		again := a.req("POST", "/payments", map[string]any{"paymentMethodToken": "x"}, "X-Idempotency-Key: slow-1")
		require.Equal(t, 409, again.Status)
		id, _ := again.Err()["paymentId"].(string)
		assert.Equal(t, id, r.Err()["paymentId"], "the 504 names the payment")
		w := a.must(200, "GET", "/_sandbox/wait?paymentId="+id+"&status=AUTHORIZED&timeout=10s", nil)
		assert.Equal(t, "AUTHORIZED", w.Str("status"))
	})
	t.Run("holdFor answers 504 sooner than request_timeout", func(t *testing.T) {
		a := newTestAPI(t).asNewTenant() // request_timeout 5s
		r := a.putRules("rules:\n  - name: quick-timeout\n    when: { amount: 1234 }\n    timeout: { resolveTo: DECLINED, after: 10s, holdFor: 10ms }\n")
		require.Equal(t, 200, r.Status, "%s", r.Body)
		p := a.payFull(1234, visa, nil)
		require.Equal(t, 504, p.Status)
		assert.Equal(t, "RequestTimeout", p.ErrorID())
		id, _ := p.Err()["paymentId"].(string)
		require.NotEmpty(t, id, "%s", p.Body)
		a.advance("10s")
		assert.Equal(t, "DECLINED", a.payment(id).Str("status"))
	})
}

// TestScenarioRulesAPI: per-tenant rules at run time.
func TestScenarioRulesAPI(t *testing.T) {
	root := newTestAPI(t)
	a := root.asNewTenant()

	get := a.must(200, "GET", "/_sandbox/scenarios", nil)
	assert.True(t, strings.HasPrefix(get.Header.Get("Content-Type"), "application/yaml"))
	assert.Contains(t, string(get.Body), "name: generic-decline")
	js := a.must(200, "GET", "/_sandbox/scenarios", nil, "Accept: application/json")
	assert.Equal(t, "STRIPE", js.JSON["defaultProcessor"])

	bad := a.putRules("rules:\n  - name: a\n    when: { amount: { min: 10, max: 1 } }\n  - name: a\n    authorize: { status: MAYBE }\n")
	require.Equal(t, 422, bad.Status, "%s", bad.Body)
	assert.Equal(t, "ScenarioValidationError", bad.ErrorID())
	ve := bad.Err()["validationErrors"].([]any)[0].(map[string]any)
	assert.Equal(t, "ScenarioDocument", ve["model"])
	assert.Equal(t, []any{
		map[string]any{"path": "line 3", "description": "line 3: amount min 10 is greater than max 1, so the rule can never match"},
		map[string]any{"path": "line 4", "description": `line 4: rule name "a" is used twice (first on line 2)`},
		map[string]any{"path": "line 5", "description": `line 5: authorize status "MAYBE" is not one of AUTHORIZED, DECLINED, FAILED`},
	}, ve["errors"])

	ok := a.putRules("rules:\n  - name: settle-slowly\n    when: { amount: 1234 }\n    capture: { status: SETTLING, settleAfter: 5m }\n")
	require.Equal(t, 200, ok.Status, "%s", ok.Body)
	assert.Equal(t, float64(1), ok.JSON["rules"])
	js = a.must(200, "GET", "/_sandbox/scenarios", nil, "Accept: application/json")
	assert.Len(t, js.JSON["processors"], 3, "processors left out come from the server's file")
	assert.Len(t, js.JSON["rules"], 1)

	// Another tenant still has the server's rules.
	other := root.asNewTenant()
	assert.Equal(t, "DECLINED", other.payFull(1000, "4000000000000002", nil).Str("status"))
	assert.Equal(t, "AUTHORIZED", a.payFull(1000, "4000000000000002", nil).Str("status"), "the tenant's rules replace the server's")

	// The rule is chosen at creation and governs capture even after the rules change.
	id := a.payFull(1234, visa, nil).Str("id")
	a.must(200, "DELETE", "/_sandbox/scenarios", nil)
	assert.Equal(t, "SETTLING", a.must(200, "POST", "/payments/"+id+"/capture", nil).Str("status"))
	a.advance("5m")
	assert.Equal(t, "SETTLED", a.payment(id).Str("status"))
	ex := a.must(200, "GET", "/_sandbox/payments/"+id+"/explain", nil)
	assert.Equal(t, "settle-slowly", ex.JSON["matched"])
	assert.Equal(t, "amount 1234 is 1234", ex.JSON["reason"])
	assert.Equal(t, "DECLINED", a.payFull(1000, "4000000000000002", nil).Str("status"), "DELETE went back to the server's rules")

	// Stored with the tenant: they survive reset.
	require.Equal(t, 200, a.putRules("rules: []\n").Status)
	a.must(200, "POST", "/_sandbox/reset", nil)
	assert.Equal(t, "AUTHORIZED", a.payFull(1000, "4000000000000002", nil).Str("status"))
	assert.Equal(t, "rules: []\n", func() string {
		r := a.must(200, "GET", "/_sandbox/scenarios", nil)
		return string(r.Body[strings.Index(string(r.Body), "rules:"):])
	}())
}

// TestScenarioExplainAndPick: explain a request; metadata.sandboxScenario.
func TestScenarioExplainAndPick(t *testing.T) {
	a := newTestAPI(t).asNewTenant()
	ex := a.must(200, "POST", "/_sandbox/scenarios/explain", map[string]any{"amount": 7050, "currencyCode": "EUR", "orderId": "o", "card": visa})
	assert.Equal(t, "slow-settlement", ex.JSON["matched"])
	rules := ex.JSON["rules"].([]any)
	assert.Equal(t, map[string]any{"name": "expired-card", "matched": false, "reason": "the card's expiry is not known, so it counts as not expired"}, rules[0])
	assert.Equal(t, map[string]any{"name": "generic-decline", "matched": false, "reason": "card is none of 4000000000000002, 5100000000000008"}, rules[1])
	for _, r := range rules {
		r := r.(map[string]any)
		if r["name"] == "soft-decline-then-fallback" {
			assert.Equal(t, "amount 7050 is not 4051", r["reason"])
		}
	}
	ex = a.must(200, "POST", "/_sandbox/scenarios/explain", map[string]any{"amount": 1000})
	assert.Nil(t, ex.JSON["matched"])
	bad := a.req("POST", "/_sandbox/scenarios/explain", map[string]any{"amount": "x", "card": 4})
	require.Equal(t, 422, bad.Status)
	// A token brings its card, and its session fills in what the body leaves out.
	tok := a.tokenize(a.session(map[string]any{"orderId": "o", "currencyCode": "EUR", "amount": 8100}), "4000000000000002").Str("token")
	ex = a.must(200, "POST", "/_sandbox/scenarios/explain", map[string]any{"paymentMethodToken": tok})
	assert.Equal(t, "generic-decline", ex.JSON["matched"])
	ex = a.must(200, "POST", "/_sandbox/scenarios/explain", map[string]any{"paymentMethodToken": tok, "metadata": map[string]any{"sandboxScenario": "refund-pending"}})
	assert.Equal(t, "refund-pending", ex.JSON["matched"])
	assert.Equal(t, 422, a.req("POST", "/_sandbox/scenarios/explain", map[string]any{"metadata": map[string]any{"sandboxScenario": "nope"}}).Status)

	// sandboxScenario picks a rule by name; an unknown name is a 422 at $.metadata.sandboxScenario.
	p := a.payFull(1000, visa, map[string]any{"metadata": map[string]any{"sandboxScenario": "generic-decline"}})
	assert.Equal(t, "DECLINED", p.Str("status"))
	r := a.payFull(1000, visa, map[string]any{"metadata": map[string]any{"sandboxScenario": "nope"}})
	require.Equal(t, 422, r.Status)
	fe := r.Err()["validationErrors"].([]any)[0].(map[string]any)["errors"].([]any)[0].(map[string]any)
	assert.Equal(t, "$.metadata.sandboxScenario", fe["path"])

	// Approve checks the merged metadata (session's), and a refused approve leaves the attempt as it was.
	ct := manualSession(a, map[string]any{"metadata": map[string]any{"sandboxScenario": "nope"}})
	att, _ := newAttempt(a, ct, visa)
	r = attApprove(a, att)
	require.Equal(t, 422, r.Status, "%s", r.Body)
	assert.Equal(t, "AWAITING_APPROVAL", attGet(a, att).Str("status"))
	ct = manualSession(a, map[string]any{"metadata": map[string]any{"sandboxScenario": "insufficient-funds"}})
	att, _ = newAttempt(a, ct, visa)
	pid := attApprove(a, att).Str("merchantPaymentId")
	runDueNow(a)
	assert.Equal(t, "DECLINED", a.payment(pid).Str("status"))

	// Vault verify goes through the same rules.
	tok = a.tokenize(a.session(map[string]any{"currencyCode": "EUR"}), "4000000000000002").Str("token")
	v := a.req("POST", "/payment-instruments/"+tok+"/vault", map[string]any{"customerId": "c", "verify": true})
	assert.Equal(t, 400, v.Status)
	assert.Equal(t, "FailedVerification", v.ErrorID())
}

// payExpiring pays 1000 with a visa expiring month/year, in a fresh session.
func (a *testAPI) payExpiring(month, year string, extra map[string]any) *resp {
	a.t.Helper()
	ct := a.session(map[string]any{"orderId": "order-1", "currencyCode": "EUR", "amount": 1000, "customerId": "cust-1"})
	tok := a.must(200, "POST", "/client/payment-instruments", cardWith(visa, map[string]any{"expirationMonth": month, "expirationYear": year}), "X-Client-Token: "+ct).Str("token")
	body := map[string]any{"paymentMethodToken": tok}
	for k, v := range extra {
		body[k] = v
	}
	return a.must(200, "POST", "/payments", body)
}

// TestScenarioExpiredCardE2E: the shipped rules decline a card whose expiry
// month ended before the tenant clock's month (EXPIRED_CARD, hard decline,
// its webhook as for any decline); a card expiring this month is not
// expired, until the clock moves past it; one-shots, sandboxScenario and a
// tenant's own rules (which lack the rule unless they list it) win; vault
// verify and explain see it.
func TestScenarioExpiredCardE2E(t *testing.T) {
	root := newTestAPI(t) // the tenant clock starts in November 2026
	expired := map[string]any{"type": "ISSUER_DECLINED", "declineType": "HARD_DECLINE", "code": "EXPIRED_CARD", "message": "Expired card"}

	t.Run("declined, explained, webhook", func(t *testing.T) {
		a := root.asNewTenant()
		p := a.payExpiring("10", "2026", nil)
		assert.Equal(t, "DECLINED", p.Str("status"))
		assert.Equal(t, expired, sub(p.JSON, "statusReason"))
		ex := a.must(200, "GET", "/_sandbox/payments/"+p.Str("id")+"/explain", nil)
		assert.Equal(t, "expired-card", ex.Str("matched"))
		assert.Equal(t, "the card expired 10/2026, before 11/2026", ex.Str("reason"))
		types := func(pid string) []any {
			var out []any
			for _, e := range a.must(200, "GET", "/_sandbox/webhooks/events?paymentId="+pid, nil).JSON["data"].([]any) {
				out = append(out, e.(map[string]any)["eventType"])
			}
			return out
		}
		assert.Equal(t, types(a.payFull(1000, "4000000000000002", nil).Str("id")), types(p.Str("id")), "the events of any decline")
	})
	t.Run("this month is not expired; next month it is", func(t *testing.T) {
		a := root.asNewTenant()
		assert.Equal(t, "AUTHORIZED", a.payExpiring("11", "2026", nil).Str("status"))
		a.advance("240h") // December 2026
		assert.Equal(t, "DECLINED", a.payExpiring("11", "2026", nil).Str("status"))
		assert.Equal(t, "AUTHORIZED", a.payExpiring("12", "2026", nil).Str("status"))
	})
	t.Run("one-shot and sandboxScenario win", func(t *testing.T) {
		a := root.asNewTenant()
		a.must(200, "POST", "/_sandbox/scenarios/next", map[string]any{"rule": "insufficient-funds"})
		assert.Equal(t, "INSUFFICIENT_FUNDS", dig(a.payExpiring("01", "2020", nil).JSON, "statusReason", "code"))
		p := a.payExpiring("01", "2020", map[string]any{"metadata": map[string]any{"sandboxScenario": "dispute-card"}})
		assert.Equal(t, "AUTHORIZED", p.Str("status"))
		assert.Equal(t, expired, sub(a.payExpiring("01", "2020", nil).JSON, "statusReason"), "after them, the rule again")
	})
	t.Run("a tenant's own rules have it only if they list it", func(t *testing.T) {
		a := root.asNewTenant()
		require.Equal(t, 200, a.putRules("version: 1\nrules:\n  - name: big\n    when: { amount: 9999 }\n    authorize: { status: FAILED }\n").Status)
		assert.Equal(t, "AUTHORIZED", a.payExpiring("01", "2020", nil).Str("status"))
		require.Equal(t, 200, a.putRules("version: 1\nrules:\n  - name: mine\n    when: { expired: true }\n    authorize: { status: DECLINED, reason: { type: ISSUER_DECLINED, declineType: HARD_DECLINE, code: EXPIRED_CARD } }\n").Status)
		p := a.payExpiring("01", "2020", nil)
		assert.Equal(t, "DECLINED", p.Str("status"))
		assert.Equal(t, "mine", a.must(200, "GET", "/_sandbox/payments/"+p.Str("id")+"/explain", nil).Str("matched"))
	})
	t.Run("explain a card or a token, vault verify", func(t *testing.T) {
		a := root.asNewTenant()
		ex := a.must(200, "POST", "/_sandbox/scenarios/explain", map[string]any{"amount": 1000, "card": visa, "expirationMonth": "10", "expirationYear": "2026"})
		assert.Equal(t, "expired-card", ex.JSON["matched"])
		ex = a.must(200, "POST", "/_sandbox/scenarios/explain", map[string]any{"amount": 1000, "card": visa, "expirationMonth": "12", "expirationYear": "2030"})
		assert.Nil(t, ex.JSON["matched"])
		assert.Equal(t, map[string]any{"name": "expired-card", "matched": false, "reason": "the card expires 12/2030, not before 11/2026: not expired"}, ex.JSON["rules"].([]any)[0])
		ct := a.session(map[string]any{"currencyCode": "EUR"})
		tok := a.must(200, "POST", "/client/payment-instruments", cardWith(visa, map[string]any{"expirationMonth": "10", "expirationYear": "2026"}), "X-Client-Token: "+ct).Str("token")
		assert.Equal(t, "expired-card", a.must(200, "POST", "/_sandbox/scenarios/explain", map[string]any{"paymentMethodToken": tok}).JSON["matched"])
		v := a.req("POST", "/payment-instruments/"+tok+"/vault", map[string]any{"customerId": "c", "verify": true})
		requireError(t, v, 400, "FailedVerification")
	})
}
