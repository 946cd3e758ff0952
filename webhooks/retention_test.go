package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/webhooks"
)

// Events finished at append (a tenant without endpoint) are pruned to the
// retention bound like delivered ones: appending marks the tenant, and a
// clock advance prunes it at once, newest kept. Pending events of
// the same tenant, made once an endpoint is set, are never pruned.
func TestRetentionPrunesEventsExhaustedAtAppend(t *testing.T) {
	tests := []struct {
		name     string
		keep     int
		payments int
		want     int
	}{
		{"under the bound", 10, 3, 6},
		{"over the bound", 5, 12, 5},
		{"many batches", 3, simulator.PruneBatch, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newDispatchedEnv(t, nil, webhooks.Options{Timeout: time.Second, Concurrency: 2, Retention: service.Retention{Keep: tc.keep}}, service.Config{})
			for range tc.payments {
				e.pay(t, 1000, "4111111111111111")
			}
			all := e.allEvents(t)
			require.Len(t, all, min(2*tc.payments, 1000))
			_, _, err := e.svc.AdvanceClockFired(context.Background(), e.t, time.Second)
			require.NoError(t, err)
			left := e.allEvents(t)
			require.Len(t, left, tc.want)
			for i, ev := range left {
				assert.Equal(t, simulator.DeliveryExhausted, ev.Status)
				assert.Equal(t, all[i].ID, ev.ID, "the newest are kept")
			}
		})
	}
}

func TestRetentionNeverPrunesPending(t *testing.T) {
	e, d := newDispatchedEnv(t, nil, webhooks.Options{Timeout: time.Second, Concurrency: 2, Retention: service.Retention{Keep: 1, MaxAge: time.Hour}}, service.Config{})
	e.pay(t, 1000, "4111111111111111") // two EXHAUSTED
	tn, err := e.svc.SetWebhookURL(e.t, "http://127.0.0.1:1/hook")
	require.NoError(t, err)
	e.t = tn
	release := d.Hold(e.t.ID) // nothing attempts the pending events
	defer release()
	for range 3 {
		e.pay(t, 1000, "4111111111111111") // two PENDING each
	}
	e.clk.Advance(2 * time.Hour) // everything is past the age bound
	n, err := e.svc.PruneEvents(e.t, d.Retention)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	left := e.allEvents(t)
	require.Len(t, left, 6)
	for _, ev := range left {
		assert.Equal(t, simulator.DeliveryPending, ev.Status)
	}
}

// allEvents lists the tenant's events, newest first.
func (e *env) allEvents(tb testing.TB) []*simulator.Event {
	tb.Helper()
	evs, err := e.svc.Events(e.t, simulator.EventQuery{Limit: 1000})
	require.NoError(tb, err)
	return evs
}
