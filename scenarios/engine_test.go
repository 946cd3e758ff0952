package scenarios_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/scenarios"
	"github.com/paysandbox/paysandbox/simulator"
)

const engineDoc = `
version: 1
defaultProcessor: STRIPE
processors:
  - { name: STRIPE, processorMerchantId: acct_s, capture: sync, authorizationCode: true }
  - { name: ADYEN, processorMerchantId: acct_a, capture: async, settleAfter: 30s }
rules:
  - name: decline-card
    when: { card: ["4000000000000002", "5100000000000008"] }
    authorize: { status: DECLINED, reason: { type: ISSUER_DECLINED, declineType: HARD_DECLINE, code: DO_NOT_HONOR, message: Declined } }
  - name: soft
    when: { amount: 4051 }
    authorize:
      - { processor: STRIPE, status: DECLINED, reason: { type: ISSUER_DECLINED, declineType: SOFT_DECLINE, code: ISSUER_TEMPORARILY_UNAVAILABLE } }
      - { processor: ADYEN, status: AUTHORIZED }
  - name: timeout
    when: { amount: 5040, currencyCode: EUR }
    timeout: { resolveTo: DECLINED, after: 2m, holdFor: 5s }
  - name: slow-settle
    when: { amount: { min: 7000, max: 7099 } }
    capture: { status: SETTLING, settleAfter: 1h }
  - name: big
    when: { amount: { min: 100000 } }
    refund: { status: PENDING, after: 1h, resolveTo: FAILED, reason: { type: APPLICATION_ERROR, code: ERROR } }
  - name: mastercard-bin
    when: { bin: "5555", network: MASTERCARD }
    threeDS: challenge
  - name: vip
    when: { customerId: vip, orderId: "vip-*" }
    dispute: { after: 10s, reason: FRAUDULENT, amount: 50, then: [{ status: CHALLENGED, after: 1h }, { status: WON, after: 2h }] }
  - name: meta
    when: { metadata: { refund: fail, tries: 3 } }
    refund: { status: FAILED }
  - name: at-adyen
    when: { processorMerchantId: acct_a }
    latency: 1500ms
  - name: catch-all-small
    when: { amount: { max: 10 } }
    authorize: { status: FAILED }
`

func mustEngine(t *testing.T) *scenarios.Engine {
	t.Helper()
	doc, err := scenarios.Load("engine.yaml", []byte(engineDoc), nil)
	require.NoError(t, err)
	return scenarios.New(doc)
}

func card(number string) (string, string) {
	return simulator.CardFingerprint(number), number[:6]
}

func req(amount int64, mods ...func(*scenarios.Request)) scenarios.Request {
	fp, f6 := card("4111111111111111")
	r := scenarios.Request{CardFingerprint: fp, First6: f6, Network: "VISA", Amount: amount, CurrencyCode: "EUR", OrderID: "order-1", CustomerID: "cust-1"}
	for _, m := range mods {
		m(&r)
	}
	return r
}

func withCard(number, network string) func(*scenarios.Request) {
	return func(r *scenarios.Request) { r.CardFingerprint, r.First6 = card(number); r.Network = network }
}

func withMeta(m map[string]any) func(*scenarios.Request) {
	return func(r *scenarios.Request) { r.Metadata = m }
}

func TestEngineDecide(t *testing.T) {
	e := mustEngine(t)
	stripe := simulator.ProcessorAccount{Name: "STRIPE", ProcessorMerchantID: "acct_s", AuthorizationCode: true}
	adyen := simulator.ProcessorAccount{Name: "ADYEN", ProcessorMerchantID: "acct_a", AsyncCapture: true, SettleAfter: 30 * time.Second}
	tests := []struct {
		name  string
		req   scenarios.Request
		rule  string
		check func(t *testing.T, d scenarios.Decision)
	}{
		{"no match: default authorizes", req(1000), "", func(t *testing.T, d scenarios.Decision) {
			assert.Equal(t, []simulator.AuthStep{{Account: stripe, Status: simulator.StatusAuthorized}}, d.Authorize.Steps)
			assert.Equal(t, simulator.ThreeDSNone, d.Authorize.ThreeDS)
			assert.Nil(t, d.Capture)
		}},
		{"card in a list, by fingerprint", req(1000, withCard("5100000000000008", "MASTERCARD")), "decline-card", func(t *testing.T, d scenarios.Decision) {
			require.Len(t, d.Authorize.Steps, 1)
			assert.Equal(t, simulator.StatusDeclined, d.Authorize.Steps[0].Status)
			assert.Equal(t, "DO_NOT_HONOR", d.Authorize.Steps[0].Reason.Code)
		}},
		{"first match wins (card before amount)", req(4051, withCard("4000000000000002", "VISA")), "decline-card", nil},
		{"soft decline then fallback", req(4051), "soft", func(t *testing.T, d scenarios.Decision) {
			require.Len(t, d.Authorize.Steps, 2)
			assert.Equal(t, stripe, d.Authorize.Steps[0].Account)
			assert.Equal(t, "SOFT_DECLINE", d.Authorize.Steps[0].Reason.DeclineType)
			assert.Equal(t, adyen, d.Authorize.Steps[1].Account)
		}},
		{"timeout with currency", req(5040), "timeout", func(t *testing.T, d scenarios.Decision) {
			assert.Equal(t, &simulator.TimeoutDecision{ResolveTo: simulator.StatusDeclined, After: 2 * time.Minute, HoldFor: 5 * time.Second}, d.Authorize.Timeout)
			assert.Equal(t, []simulator.AuthStep{{Account: stripe, Status: simulator.StatusDeclined}}, d.Authorize.Steps)
		}},
		{"timeout needs its currency", req(5040, func(r *scenarios.Request) { r.CurrencyCode = "USD" }), "", nil},
		{"amount range, low end", req(7000), "slow-settle", func(t *testing.T, d scenarios.Decision) {
			assert.Equal(t, &simulator.CaptureDecision{Status: simulator.StatusSettling, SettleAfter: time.Hour, SettleTo: simulator.StatusSettled}, d.Capture)
		}},
		{"amount range, high end", req(7099), "slow-settle", nil},
		{"amount range, just above", req(7100), "", nil},
		{"open-ended min", req(250000), "big", func(t *testing.T, d scenarios.Decision) {
			assert.Equal(t, simulator.StatusPending, d.Refund.Status)
			assert.Equal(t, simulator.StatusFailed, d.Refund.ResolveTo)
		}},
		{"bin and network", req(1000, withCard("5555555555554444", "MASTERCARD")), "mastercard-bin", func(t *testing.T, d scenarios.Decision) {
			assert.Equal(t, simulator.ThreeDSChallenge, d.Authorize.ThreeDS)
		}},
		{"bin but another network", req(1000, withCard("5555555555554444", "VISA")), "", nil},
		{"customer and order glob", req(1000, func(r *scenarios.Request) { r.CustomerID, r.OrderID = "vip", "vip-42" }), "vip", func(t *testing.T, d scenarios.Decision) {
			require.NotNil(t, d.Authorize.Dispute)
			assert.Equal(t, simulator.DisputeDecision{After: 10 * time.Second, Reason: "FRAUDULENT", Amount: 50,
				Then: []simulator.DisputeStep{{Status: "CHALLENGED", After: time.Hour}, {Status: "WON", After: 2 * time.Hour}}}, *d.Authorize.Dispute)
		}},
		{"glob does not match", req(1000, func(r *scenarios.Request) { r.CustomerID, r.OrderID = "vip", "order-42" }), "", nil},
		{"metadata: all pairs, numbers as written", req(1000, withMeta(map[string]any{"refund": "fail", "tries": json.Number("3"), "x": 1})), "meta", nil},
		{"metadata: one pair missing", req(1000, withMeta(map[string]any{"refund": "fail"})), "", nil},
		{"processorMerchantId", req(1000, func(r *scenarios.Request) { r.ProcessorMerchantID = "acct_a" }), "at-adyen", func(t *testing.T, d scenarios.Decision) {
			assert.Equal(t, 1500*time.Millisecond, d.Authorize.Latency)
		}},
		{"open-ended max", req(5), "catch-all-small", nil},
		{"sandboxScenario picks a rule whatever matches", req(1000, withCard("4000000000000002", "VISA"), withMeta(map[string]any{"sandboxScenario": "soft"})), "soft", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := e.Decide(tt.req)
			require.NoError(t, err)
			assert.Equal(t, tt.rule, d.Rule)
			assert.Equal(t, tt.rule, d.Authorize.Rule)
			if tt.check != nil {
				tt.check(t, d)
			}
		})
	}
}

func TestEngineUnknownScenario(t *testing.T) {
	e := mustEngine(t)
	for _, v := range []any{"nope", json.Number("1")} {
		_, err := e.Decide(req(1000, withMeta(map[string]any{"sandboxScenario": v})))
		var ue *scenarios.UnknownRuleError
		require.ErrorAs(t, err, &ue)
		_, err = e.Explain(req(1000, withMeta(map[string]any{"sandboxScenario": v})))
		require.ErrorAs(t, err, &ue)
	}
}

func TestEngineExplain(t *testing.T) {
	e := mustEngine(t)
	ex, err := e.Explain(req(1000))
	require.NoError(t, err)
	assert.Nil(t, ex.Matched)
	reasons := map[string]string{}
	for _, r := range ex.Rules {
		assert.False(t, r.Matched)
		reasons[r.Name] = r.Reason
	}
	assert.Equal(t, map[string]string{
		"decline-card":    "card is none of 4000000000000002, 5100000000000008",
		"soft":            "amount 1000 is not 4051",
		"timeout":         "amount 1000 is not 5040",
		"slow-settle":     "amount 1000 is not in 7000..7099",
		"big":             "amount 1000 is below 100000",
		"mastercard-bin":  "card BIN 411111 does not start with 5555",
		"vip":             `orderId "order-1" does not match "vip-*"`,
		"meta":            `metadata.refund is missing (want "fail")`,
		"at-adyen":        `processorMerchantId "" is not "acct_a"`,
		"catch-all-small": "amount 1000 is above 10",
	}, reasons)

	ex, err = e.Explain(req(7050))
	require.NoError(t, err)
	require.NotNil(t, ex.Matched)
	assert.Equal(t, "slow-settle", *ex.Matched)
	assert.Equal(t, scenarios.RuleResult{Name: "slow-settle", Matched: true, Reason: "amount 7050 is in 7000..7099"}, ex.Rules[3])

	ex, err = e.Explain(req(5, withCard("4000000000000002", "VISA")))
	require.NoError(t, err)
	assert.Equal(t, "decline-card", *ex.Matched)
	assert.Equal(t, `its conditions match too, but "decline-card" comes first`, ex.Rules[9].Reason)

	ex, err = e.Explain(req(5, withMeta(map[string]any{"sandboxScenario": "vip"})))
	require.NoError(t, err)
	assert.Equal(t, "vip", *ex.Matched)
	assert.Equal(t, "picked by metadata.sandboxScenario", ex.Rules[6].Reason)
	assert.Equal(t, `metadata.sandboxScenario picks "vip"`, ex.Rules[0].Reason)
}

func withOneShot(rule string) func(*scenarios.Request) {
	return func(r *scenarios.Request) { r.OneShot = rule }
}

// TestEngineOneShot: a request's one-shot picks its rule over every when;
// metadata.sandboxScenario wins over it; a one-shot naming no rule (the
// rules were replaced since) is ignored.
func TestEngineOneShot(t *testing.T) {
	e := mustEngine(t)
	tests := []struct {
		name string
		req  scenarios.Request
		rule string
		why  string
	}{
		{"one-shot over a matching when", req(4051, withOneShot("big")), "big", "one-shot"},
		{"one-shot over no match", req(5, withOneShot("decline-card")), "decline-card", "one-shot"},
		{"sandboxScenario wins", req(5, withOneShot("big"), withMeta(map[string]any{"sandboxScenario": "soft"})), "soft", "metadata.sandboxScenario"},
		{"unknown one-shot is ignored", req(4051, withOneShot("gone")), "soft", "amount 4051"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := e.Decide(tc.req)
			require.NoError(t, err)
			assert.Equal(t, tc.rule, d.Rule)
			assert.Contains(t, d.Why, tc.why)
			ex, err := e.Explain(tc.req)
			require.NoError(t, err)
			require.NotNil(t, ex.Matched)
			assert.Equal(t, tc.rule, *ex.Matched)
		})
	}
	ex, err := e.Explain(req(5, withOneShot("big")))
	require.NoError(t, err)
	assert.Equal(t, `the one-shot picks "big"`, ex.Rules[0].Reason)
	assert.Equal(t, []string{"decline-card", "soft", "timeout"}, e.RuleNames()[:3])
}

// TestEngineUnknownScenarioCloseNames: the error lists the rule names the
// unknown one may have meant (none for a value that is not a string).
func TestEngineUnknownScenarioCloseNames(t *testing.T) {
	e := mustEngine(t)
	for v, want := range map[any][]string{
		"decline-crad":   {"decline-card"},
		"slow":           {"slow-settle"},
		"card-decline":   {"decline-card"},
		"nope-nope-nope": {},
		json.Number("1"): nil,
	} {
		_, err := e.Decide(req(1000, withMeta(map[string]any{"sandboxScenario": v})))
		var ue *scenarios.UnknownRuleError
		require.ErrorAs(t, err, &ue)
		assert.Equal(t, want, ue.CloseNames(), "%v", v)
	}
}

const expiredDoc = `
version: 1
defaultProcessor: STRIPE
processors:
  - { name: STRIPE, processorMerchantId: acct_s, capture: sync }
rules:
  - name: expired-card
    when: { expired: true }
    authorize: { status: DECLINED, reason: { type: ISSUER_DECLINED, declineType: HARD_DECLINE, code: EXPIRED_CARD } }
  - name: big
    when: { amount: 9000 }
    authorize: { status: FAILED }
  - name: valid-visa
    when: { expired: false, network: VISA, amount: 100 }
    latency: 1ms
`

func withExpiry(month, year string) func(*scenarios.Request) {
	return func(r *scenarios.Request) { r.ExpiryMonth, r.ExpiryYear = month, year }
}

// TestEngineExpired: when.expired judges the card's expiry against the
// moment the payment is decided (its creation on the tenant's clock): a
// card expiring this month is not expired; one-shots and sandboxScenario
// win over it as over any when; explain words it.
func TestEngineExpired(t *testing.T) {
	doc, err := scenarios.Load("expired.yaml", []byte(expiredDoc), nil)
	require.NoError(t, err)
	e := scenarios.New(doc)
	at := func(r *scenarios.Request) { r.At = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) }
	tests := []struct {
		name string
		req  scenarios.Request
		rule string
		why  string
	}{
		{"expired last month", req(1000, at, withExpiry("10", "2026")), "expired-card", "the card expired 10/2026, before 11/2026"},
		{"expiring this month", req(1000, at, withExpiry("11", "2026")), "", "no rule matched"},
		{"expired beats a later rule", req(9000, at, withExpiry("01", "2020")), "expired-card", "expired 01/2020"},
		{"no expiry known", req(1000, at), "", "no rule matched"},
		{"expired: false matches a valid card", req(100, at, withExpiry("12", "2030")), "valid-visa", "the card expires 12/2030, not before 11/2026: not expired"},
		{"one-shot wins", req(1000, at, withExpiry("10", "2026"), withOneShot("big")), "big", "one-shot"},
		{"sandboxScenario wins", req(1000, at, withExpiry("10", "2026"), withMeta(map[string]any{"sandboxScenario": "big"})), "big", "metadata.sandboxScenario"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := e.Decide(tc.req)
			require.NoError(t, err)
			assert.Equal(t, tc.rule, d.Rule)
			assert.Contains(t, d.Why, tc.why)
			if tc.rule == "expired-card" {
				require.Len(t, d.Authorize.Steps, 1)
				assert.Equal(t, simulator.StatusDeclined, d.Authorize.Steps[0].Status)
				assert.Equal(t, simulator.StatusReason{Type: "ISSUER_DECLINED", DeclineType: "HARD_DECLINE", Code: "EXPIRED_CARD"}, *d.Authorize.Steps[0].Reason)
			}
		})
	}
	ex, err := e.Explain(req(1000, at, withExpiry("12", "2030")))
	require.NoError(t, err)
	assert.Nil(t, ex.Matched)
	assert.Equal(t, "the card expires 12/2030, not before 11/2026: not expired", ex.Rules[0].Reason)
	ex, err = e.Explain(req(100, at, withExpiry("10", "2026")))
	require.NoError(t, err)
	assert.Equal(t, "expired-card", *ex.Matched)
	assert.Equal(t, "the card expired 10/2026, before 11/2026", ex.Rules[0].Reason)
	assert.Equal(t, "the card expired 10/2026, before 11/2026", ex.Rules[2].Reason, "valid-visa's miss")

	y, err := doc.YAML()
	require.NoError(t, err)
	assert.Contains(t, string(y), "expired: true")
	assert.Contains(t, string(y), "expired: false")
}

func TestRequestOfExpiry(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	p := &simulator.Payment{Date: at, PaymentMethod: simulator.PaymentMethod{Data: simulator.CardData{ExpirationMonth: "03", ExpirationYear: "2026"}}}
	r := scenarios.RequestOf(p)
	assert.Equal(t, "03", r.ExpiryMonth)
	assert.Equal(t, "2026", r.ExpiryYear)
	assert.Equal(t, at, r.At)
}
