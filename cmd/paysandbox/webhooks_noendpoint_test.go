package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// A tenant without an endpoint: its events are EXHAUSTED when the request
// that made them answers (no wait for the dispatcher), listed in the shape
// the dispatcher's "no endpoint" attempt had, and a wait blocked before an
// event exists is woken by the commit that appends it.
func TestWebhookNoEndpointOnAppend(t *testing.T) {
	a := newTestApp(t)
	pid := a.pay(1000, "4111111111111111").Str("id")
	evs := a.events(pid)
	require.Len(t, evs, 2)
	for _, ev := range evs {
		assert.Equal(t, "EXHAUSTED", ev["status"])
		at := ev["attempts"].([]any)
		require.Len(t, at, 1)
		assert.Equal(t, map[string]any{"at": ev["createdAt"], "statusCode": float64(0), "latencyMs": float64(0), "error": "no endpoint"}, at[0])
	}

	a.must(200, "POST", "/payments/"+pid+"/capture", map[string]any{}, "X-API-VERSION: 2.4")
	done := make(chan *resp, 1)
	go func() {
		done <- a.req("GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&type=PAYMENT.REFUND&status=EXHAUSTED&timeout=20s", nil)
	}()
	require.Eventually(t, func() bool { return a.Svc.Held().Open(simulator.DefaultTenantID) == 1 }, 20e9, 1e6, "the wait blocks")
	a.must(200, "POST", "/payments/"+pid+"/refund", map[string]any{"amount": 100}, "X-API-VERSION: 2.4")
	w := <-done
	require.Equal(t, 200, w.Status, "woken by the refund's commit")
	assert.Equal(t, "PAYMENT.REFUND", w.Str("eventType"))
	assert.Equal(t, "no endpoint", w.JSON["attempts"].([]any)[0].(map[string]any)["error"])
}
