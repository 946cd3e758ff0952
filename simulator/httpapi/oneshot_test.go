package httpapi_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
)

// TestScenariosNextRoutes: /_sandbox/scenarios/next over real HTTP: the
// answers, the checks in the API's error envelope, and the payments it
// decides (merchant and client side).
func TestScenariosNextRoutes(t *testing.T) {
	a := newTestAPI(t)
	const none = `{"rule": null, "remaining": 0}`
	assert.JSONEq(t, none, string(a.must(200, "GET", "/_sandbox/scenarios/next", nil).Body), "nothing pending")

	t.Run("refused bodies", func(t *testing.T) {
		tests := []struct {
			name  string
			body  any
			paths []string
		}{
			{"unknown rule", map[string]any{"rule": "nope"}, []string{"$.rule"}},
			{"no rule", map[string]any{"times": 2}, []string{"$.rule"}},
			{"times 0", map[string]any{"rule": "generic-decline", "times": 0}, []string{"$.times"}},
			{"times 101", map[string]any{"rule": "generic-decline", "times": 101}, []string{"$.times"}},
			{"times not a number", map[string]any{"rule": "generic-decline", "times": "3"}, []string{"$.times"}},
			{"times not whole", map[string]any{"rule": "generic-decline", "times": 1.5}, []string{"$.times"}},
			{"unknown field", map[string]any{"rule": "generic-decline", "bogus": 1}, []string{"$.bogus"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := a.req("POST", "/_sandbox/scenarios/next", tc.body)
				assert.Equal(t, tc.paths, violations(t, r, "ScenarioNextRequest"))
			})
		}
		r := a.req("POST", "/_sandbox/scenarios/next", map[string]any{"rule": "nope"})
		assert.Contains(t, string(r.Body), "generic-decline, generic-fail, three-ds-challenge", "the 422 lists the rule names")
		r = a.req("POST", "/_sandbox/scenarios/next", map[string]any{"rule": "genric-decline"})
		assert.Contains(t, string(r.Body), `\"genric-decline\" is not a rule of the scenarios in force; did you mean `+"`generic-decline`?", "a close name is suggested")
		assert.Equal(t, 400, a.req("POST", "/_sandbox/scenarios/next", "not json").Status)
		assert.Equal(t, 400, a.req("POST", "/_sandbox/scenarios/next", nil).Status, "a body is required")
		assert.JSONEq(t, none, string(a.must(200, "GET", "/_sandbox/scenarios/next", nil).Body), "nothing stored")
	})

	t.Run("decline once, then succeed on the retry", func(t *testing.T) {
		assert.JSONEq(t, `{"rule": "generic-decline", "remaining": 1, "holdsFor": "0s"}`,
			string(a.must(200, "POST", "/_sandbox/scenarios/next", map[string]any{"rule": "generic-decline"}).Body))
		first := a.pay(1000, numOK)
		assert.Equal(t, "DECLINED", first.Str("status"))
		assert.Equal(t, "HARD_DECLINE", dig(first.JSON, "statusReason", "declineType"))
		assert.Equal(t, "AUTHORIZED", a.pay(1000, numOK).Str("status"))
		assert.JSONEq(t, none, string(a.must(200, "GET", "/_sandbox/scenarios/next", nil).Body))
		ex := a.must(200, "GET", "/_sandbox/payments/"+first.Str("id")+"/explain", nil)
		assert.Equal(t, "generic-decline", ex.Str("matched"))
	})

	t.Run("client-side payments take it too", func(t *testing.T) {
		a.must(200, "POST", "/_sandbox/scenarios/next", map[string]any{"rule": "generic-fail", "times": 2})
		tok := a.session(map[string]any{"orderId": "order-c", "currencyCode": "EUR", "amount": 1000})
		pt := a.tokenize(tok, numOK).Str("token")
		r := a.must(200, "POST", "/client/payments", map[string]any{"paymentMethodToken": pt}, "X-Client-Token: "+tok, "X-API-KEY:", "X-API-VERSION:")
		assert.Equal(t, "FAILED", r.Str("status"))
		assert.JSONEq(t, `{"rule": "generic-fail", "remaining": 1, "holdsFor": "0s"}`, string(a.must(200, "GET", "/_sandbox/scenarios/next", nil).Body))
	})

	t.Run("explain shows it", func(t *testing.T) {
		ex := a.must(200, "POST", "/_sandbox/scenarios/explain", map[string]any{"amount": 1000, "currencyCode": "EUR", "card": numOK})
		assert.Equal(t, "generic-fail", ex.Str("matched"))
		assert.Equal(t, map[string]any{"rule": "generic-fail", "remaining": float64(1)}, ex.JSON["next"])
	})

	t.Run("DELETE clears, reset clears", func(t *testing.T) {
		assert.JSONEq(t, none, string(a.must(200, "DELETE", "/_sandbox/scenarios/next", nil).Body))
		assert.JSONEq(t, none, string(a.must(200, "GET", "/_sandbox/scenarios/next", nil).Body))
		a.must(200, "POST", "/_sandbox/scenarios/next", map[string]any{"rule": "generic-fail", "times": 5})
		a.must(200, "POST", "/_sandbox/reset", nil)
		assert.JSONEq(t, none, string(a.must(200, "GET", "/_sandbox/scenarios/next", nil).Body))
		ex := a.must(200, "POST", "/_sandbox/scenarios/explain", map[string]any{"amount": 1000, "card": numOK})
		assert.NotContains(t, ex.JSON, "next", "explain gains next only while one is pending")
	})

	t.Run("tenants are apart", func(t *testing.T) {
		a.must(200, "POST", "/_sandbox/scenarios/next", map[string]any{"rule": "generic-decline"})
		b := tenantApp(a, map[string]any{})
		assert.JSONEq(t, none, string(b.must(200, "GET", "/_sandbox/scenarios/next", nil).Body))
		assert.Equal(t, "AUTHORIZED", b.pay(1000, numOK).Str("status"))
		assert.JSONEq(t, `{"rule": "generic-decline", "remaining": 1, "holdsFor": "0s"}`, string(a.must(200, "GET", "/_sandbox/scenarios/next", nil).Body))
	})
}

// TestScenariosNextSurvivesRestart: a pending one-shot is stored with the
// tenant, so a restart keeps it (and a payment approved before the restart
// keeps the rule it took).
func TestScenariosNextSurvivesRestart(t *testing.T) {
	o := apiOptions{Path: filepath.Join(t.TempDir(), "next.db"), Clock: clock.NewManual(testEpoch), IDs: &idgen.Seq{}}
	a, stop := startAPI(t, o)
	a.must(200, "POST", "/_sandbox/scenarios/next", map[string]any{"rule": "generic-decline", "times": 3})
	assert.Equal(t, "DECLINED", a.pay(1000, numOK).Str("status"))
	stop()

	b, _ := startAPI(t, o)
	assert.JSONEq(t, `{"rule": "generic-decline", "remaining": 2, "holdsFor": "0s"}`, string(b.must(200, "GET", "/_sandbox/scenarios/next", nil).Body))
	assert.Equal(t, "DECLINED", b.pay(1000, numOK).Str("status"))
}

// TestScenariosNextHoldsFor: the one-shot answers and a payment's
// explanation say how long the rule holds the request that creates a
// payment: its latency plus its timeout's holdFor, or the server's request
// timeout, never past it; "0s" for a rule that answers at once.
func TestScenariosNextHoldsFor(t *testing.T) {
	a, _ := startAPI(t, apiOptions{RequestTimeout: 7 * time.Second})
	a.must(200, "PUT", "/_sandbox/scenarios", `version: 1
rules:
  - name: at-once
    when: { amount: 1 }
    authorize: { status: DECLINED }
  - name: slow
    when: { amount: 2 }
    latency: 30ms
  - name: until-request-timeout
    when: { amount: 3 }
    timeout: { resolveTo: AUTHORIZED, after: 2m }
  - name: held
    when: { amount: 4 }
    timeout: { resolveTo: DECLINED, after: 1m, holdFor: 20ms }
  - name: slow-and-held
    when: { amount: 5 }
    latency: 10ms
    timeout: { resolveTo: AUTHORIZED, after: 2m, holdFor: 20ms }
  - name: held-past-the-request-timeout
    when: { amount: 6 }
    timeout: { resolveTo: AUTHORIZED, after: 2m, holdFor: 1m }
  - name: very-slow
    when: { amount: 7 }
    latency: 1h
`, "Content-Type: application/yaml")
	for _, tc := range []struct{ rule, want string }{
		{"at-once", "0s"}, {"slow", "30ms"}, {"until-request-timeout", "7s"}, {"held", "20ms"},
		{"slow-and-held", "30ms"}, {"held-past-the-request-timeout", "7s"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			want := `{"rule": "` + tc.rule + `", "remaining": 2, "holdsFor": "` + tc.want + `"}`
			assert.JSONEq(t, want, string(a.must(200, "POST", "/_sandbox/scenarios/next", map[string]any{"rule": tc.rule, "times": 2}).Body))
			assert.JSONEq(t, want, string(a.must(200, "GET", "/_sandbox/scenarios/next", nil).Body))
		})
	}
	a.must(200, "DELETE", "/_sandbox/scenarios/next", nil)

	t.Run("a payment in a gateway timeout", func(t *testing.T) {
		r := a.payFull(4, numOK, nil)
		assert.Equal(t, 504, r.Status, "%s", r.Body)
		id := r.JSON["error"].(map[string]any)["paymentId"].(string)
		ex := a.must(200, "GET", "/_sandbox/payments/"+id+"/explain", nil)
		assert.Equal(t, "held", ex.Str("matched"))
		assert.Equal(t, "20ms", ex.Str("holdsFor"))
		assert.Equal(t, map[string]any{"resolveTo": "DECLINED", "resolveAt": simulator.FormatTime(testEpoch.Add(time.Minute)), "resolvesIn": "1m0s"}, ex.JSON["timeout"],
			"the manual clock stands at the payment's creation")
		a.advance("45s")
		ex = a.must(200, "GET", "/_sandbox/payments/"+id+"/explain", nil)
		assert.Equal(t, "15s", dig(ex.JSON, "timeout", "resolvesIn"))
		a.advance("15s")
		ex = a.must(200, "GET", "/_sandbox/payments/"+id+"/explain", nil)
		assert.NotContains(t, ex.JSON, "timeout", "resolved: no timeout in progress")
		assert.Equal(t, "20ms", ex.Str("holdsFor"))
	})

	t.Run("a payment its rule answered at once", func(t *testing.T) {
		r := a.payFull(1, numOK, nil)
		ex := a.must(200, "GET", "/_sandbox/payments/"+r.Str("id")+"/explain", nil)
		assert.Equal(t, "0s", ex.Str("holdsFor"))
		assert.NotContains(t, ex.JSON, "timeout")
	})

	t.Run("a payment whose rule's latency runs", func(t *testing.T) {
		// Not decided yet: holdsFor is the rule the rules in force give it.
		pt := a.tokenize(a.session(map[string]any{"orderId": "order-slow", "currencyCode": "EUR", "amount": 7}), numOK).Str("token")
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			req, _ := http.NewRequestWithContext(ctx, "POST", a.URL()+"/payments", strings.NewReader(`{"paymentMethodToken": "`+pt+`"}`))
			req.Header.Set("X-API-KEY", a.Key)
			req.Header.Set("X-API-VERSION", "2.4")
			req.Header.Set("Content-Type", "application/json")
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		}()
		defer func() { cancel(); <-done }() // the server ends the held request when its caller leaves
		var id string
		require.Eventually(t, func() bool {
			data, _ := a.must(200, "GET", "/payments?order_id=order-slow", nil).JSON["data"].([]any)
			if len(data) == 1 {
				id = dig(data[0], "id").(string)
			}
			return id != ""
		}, 10*time.Second, 5*time.Millisecond, "the payment is stored before its latency runs")
		ex := a.must(200, "GET", "/_sandbox/payments/"+id+"/explain", nil)
		assert.Nil(t, ex.JSON["matched"], "not decided yet")
		assert.Equal(t, "very-slow", dig(ex.JSON, "rulesInForce", "matched"))
		assert.Equal(t, "7s", ex.Str("holdsFor"), "the request timeout cuts the hour")
	})

	t.Run("a payment no rule matched", func(t *testing.T) {
		r := a.payFull(1000, numOK, nil)
		ex := a.must(200, "GET", "/_sandbox/payments/"+r.Str("id")+"/explain", nil)
		assert.NotContains(t, ex.JSON, "holdsFor")
	})
}
