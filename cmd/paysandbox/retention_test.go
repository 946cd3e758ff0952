package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tenant without a webhook endpoint: its events, EXHAUSTED when appended,
// are kept within webhook_retention_count like delivered ones; a clock
// advance applies the bound at once (the background pass does within a
// second).
func TestWebhookRetentionWithoutEndpoint(t *testing.T) {
	cfg := testConfig()
	cfg.WebhookRetentionCount = 3
	a := startApp(t, cfg)
	var pids []string
	for range 4 {
		pids = append(pids, a.pay(1000, "4111111111111111").Str("id"))
	}
	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1s"})
	data := a.must(200, "GET", "/_sandbox/webhooks/events", nil).JSON["data"].([]any)
	require.Len(t, data, 3)
	for _, e := range data {
		assert.Equal(t, "EXHAUSTED", e.(map[string]any)["status"])
	}
	assert.Equal(t, pids[3], data[0].(map[string]any)["paymentId"], "the newest are kept")
	assert.Empty(t, a.events(pids[0]), "the oldest payment's events are gone")
}
