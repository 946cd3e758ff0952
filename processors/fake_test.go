package processors_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
)

func payment(amount int64, number string, meta map[string]any) *simulator.Payment {
	return &simulator.Payment{Amount: amount, CurrencyCode: "EUR", OrderID: "o", Metadata: meta,
		Card: simulator.CardInfo{Fingerprint: simulator.CardFingerprint(number), First6: number[:6], Network: "VISA"}}
}

func TestFakeTenantRules(t *testing.T) {
	ctx := context.Background()
	docs := map[string]string{"t1": "rules:\n  - { name: all-fail, authorize: { status: FAILED } }\n"}
	f := processors.NewFake(nil, func(id string) string { return docs[id] })

	t1, t2 := &simulator.Tenant{ID: "t1"}, &simulator.Tenant{ID: "t2"}
	d := f.Authorize(ctx, t1, payment(1000, "4111111111111111", nil))
	assert.Equal(t, "all-fail", d.Rule)
	assert.Equal(t, simulator.StatusFailed, d.Steps[0].Status)
	assert.Equal(t, "STRIPE", d.Steps[0].Account.Name, "processors left out come from the server's file")

	d = f.Authorize(ctx, t2, payment(4051, "4111111111111111", nil))
	assert.Equal(t, "soft-decline-then-fallback", d.Rule, "a tenant without rules has the server's")
	require.Len(t, d.Steps, 2)

	// A sandboxScenario that names no rule (rules changed since creation) counts as none.
	d = f.Authorize(ctx, t2, payment(1000, "4111111111111111", map[string]any{"sandboxScenario": "gone"}))
	assert.Equal(t, "", d.Rule)
	assert.Error(t, f.CheckScenario("", map[string]any{"sandboxScenario": "gone"}))
	assert.NoError(t, f.CheckScenario("", map[string]any{"sandboxScenario": "capture-fails"}))
	assert.NoError(t, f.CheckScenario(docs["t1"], map[string]any{"sandboxScenario": "all-fail"}))
}

func TestFakeCaptureAndRefundFollowThePlan(t *testing.T) {
	ctx := context.Background()
	tn := &simulator.Tenant{ID: "t"} // its rules (Scenarios), changed below
	f := processors.NewFake(nil, nil)
	p := payment(7042, "4111111111111111", nil)
	d := f.Authorize(ctx, tn, p)
	p.Plan = &simulator.Plan{Rule: d.Rule, Capture: d.Capture, Refund: d.Refund, Account: &d.Steps[0].Account}
	assert.Equal(t, simulator.CaptureDecision{Status: simulator.StatusSettling, SettleAfter: time.Hour, SettleTo: simulator.StatusSettled}, f.Capture(ctx, tn, p, 7042))

	// Rules change (a reload with none); the stored plan still decides.
	f.SetServer(processors.DefaultDoc())
	tn.Scenarios = "rules: []\n"
	assert.Equal(t, simulator.StatusSettling, f.Capture(ctx, tn, p, 7042).Status)
	assert.Equal(t, simulator.StatusSettled, f.Refund(ctx, tn, p, 1).Status)

	// Without a capture outcome, the authorizing account's mode counts.
	adyen := simulator.ProcessorAccount{Name: "ADYEN", AsyncCapture: true, SettleAfter: 30 * time.Second}
	p.Plan = &simulator.Plan{Account: &adyen}
	assert.Equal(t, simulator.CaptureDecision{Status: simulator.StatusSettling, SettleAfter: 30 * time.Second, SettleTo: simulator.StatusSettled}, f.Capture(ctx, tn, p, 1))
}

func TestFakeCheckAndRenderRules(t *testing.T) {
	f := processors.NewFake(nil, nil)
	n, problems := f.CheckRules([]byte("rules:\n  - { name: a, authorize: { processor: BRAINTREE, status: AUTHORIZED } }\n"))
	assert.Equal(t, 1, n)
	assert.Empty(t, problems)
	_, problems = f.CheckRules([]byte("rules:\n  - { name: a, latency: fast }\n"))
	assert.Equal(t, []simulator.ScenarioProblem{{Line: 2, Message: `latency "fast" is not a duration like 30s, 1500ms or 2h`}}, problems)
	y, err := f.RenderRules("", false)
	require.NoError(t, err)
	assert.Contains(t, string(y), "defaultProcessor: STRIPE")
	ex, err := f.ExplainRules("", payment(4100, "4111111111111111", nil))
	require.NoError(t, err)
	require.NotNil(t, ex.Matched)
	assert.Equal(t, "insufficient-funds", *ex.Matched)
}
