package webhooks_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/webhooks"
)

// With a dispatcher attached (but not running, so it does nothing), the
// events of a tenant without an endpoint are appended EXHAUSTED with the one
// "no endpoint" attempt, in the transaction that made them: none is queued
// for delivery. Once an endpoint is set a replay delivers them.
func TestNoEndpointExhaustedOnAppend(t *testing.T) {
	e, _ := newDispatchedEnv(t, nil, webhooks.Options{}, service.Config{}) // attached, never run
	p := e.pay(t, 1000, "4111111111111111")

	evs := e.events(t)
	require.Len(t, evs, 2, "PENDING and AUTHORIZED")
	for _, ev := range evs {
		assert.Equal(t, simulator.DeliveryExhausted, ev.Status)
		assert.Equal(t, p.ID, ev.PaymentID)
		assert.True(t, ev.NextAt.IsZero())
		assert.Equal(t, []simulator.DeliveryAttempt{{At: ev.CreatedAt, Error: simulator.ErrNoEndpoint}}, ev.Attempts)
		body, err := e.svc.EventBody(ev)
		require.NoError(t, err)
		assert.NotEmpty(t, body, "the body is rendered as for any event")
	}
	_, pending, err := e.svc.TenantOutbox(e.t.ID)
	require.NoError(t, err)
	assert.Empty(t, pending, "nothing queued for the dispatcher")

	var got atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { got.Add(1) }))
	t.Cleanup(rc.Close)
	tn, err := e.svc.SetWebhookURL(e.t, rc.URL)
	require.NoError(t, err)
	a, err := e.svc.ReplayWebhook(context.Background(), tn, evs[0].ID)
	require.NoError(t, err)
	assert.True(t, a.OK())
	assert.EqualValues(t, 1, got.Load())
	ev, err := e.svc.Event(tn, evs[0].ID)
	require.NoError(t, err)
	assert.Equal(t, simulator.DeliveryDelivered, ev.Status)
	assert.Len(t, ev.Attempts, 2)

	e.pay(t, 1000, "4111111111111111")
	var n int
	for _, ev := range e.events(t) {
		if ev.Status == simulator.DeliveryPending {
			n++
		}
	}
	assert.Equal(t, 2, n, "with an endpoint, new events are queued")
}

// Without a dispatcher (the service alone) events stay PENDING.
func TestNoDispatcherEventsStayPending(t *testing.T) {
	e := newEnv(t, nil)
	e.pay(t, 1000, "4111111111111111")
	for _, ev := range e.events(t) {
		assert.Equal(t, simulator.DeliveryPending, ev.Status)
		assert.Empty(t, ev.Attempts)
	}
}
