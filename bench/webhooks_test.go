package bench

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The webhook bench runs end to end (small) and reports every delivery.
func TestWebhookBenchRuns(t *testing.T) {
	var out bytes.Buffer
	res, err := Webhooks(context.Background(), WebhookOptions{Events: 300, Payments: 30, Steady: 20, Interval: time.Millisecond}, &out)
	require.NoError(t, err)
	assert.Equal(t, 300, res.Delivered)
	assert.Equal(t, 20, res.LagSamples)
	assert.Contains(t, out.String(), "webhook deliveries: 300")
}

// BenchmarkWebhookDeliveries reports deliveries per second to a local receiver.
func BenchmarkWebhookDeliveries(b *testing.B) {
	var out bytes.Buffer
	res, err := Webhooks(context.Background(), WebhookOptions{Events: max(b.N, 1000), Payments: 1000, Steady: 200}, &out)
	require.NoError(b, err)
	b.ReportMetric(res.PerSecond, "deliveries/s")
	b.ReportMetric(float64(res.LagMedian.Microseconds())/1000, "lag-median-ms")
}
