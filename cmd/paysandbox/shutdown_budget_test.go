package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestStopCutsWebhookAttemptsAtTheDeadline: a webhook receiver that never
// answers holds the stop until its deadline, not for the webhook timeout:
// the attempt in flight is then cut (its request ends) and recorded as
// failed, so its event is retried after a restart.
func TestStopCutsWebhookAttemptsAtTheDeadline(t *testing.T) {
	release := make(chan struct{})
	arrived, abandoned := make(chan struct{}, 8), make(chan struct{}, 8)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then a closed connection ends r's context
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
			abandoned <- struct{}{}
		}
	}))
	t.Cleanup(receiver.Close)
	t.Cleanup(func() { close(release) })
	cfg := testConfig()
	cfg.WebhookTimeout = 30 * time.Second // past the stop's deadline: only a cut ends the attempt before it
	cfg.ShutdownTimeout = 300 * time.Millisecond
	a := startApp(t, cfg)
	a.setEndpoint(receiver.URL)
	pid := a.pay(100, numOK).Str("id")
	select {
	case <-arrived:
	case <-time.After(hangGuard):
		t.Fatal("no delivery reached the receiver")
	}

	require.NoError(t, a.Shutdown())
	select {
	case <-abandoned:
	case <-time.After(hangGuard):
		t.Fatal("the attempt's request was not cut")
	}
	tn, _, err := a.Svc.Authenticate(a.Key)
	require.NoError(t, err)
	evs, err := a.Svc.Events(tn, simulator.EventQuery{PaymentID: pid})
	require.NoError(t, err)
	require.NotEmpty(t, evs)
	var cut []simulator.DeliveryAttempt
	for _, ev := range evs {
		for _, at := range ev.Attempts {
			if strings.HasPrefix(at.Error, "cut: ") {
				cut = append(cut, at)
			}
		}
		assert.NotEqual(t, simulator.DeliveryDelivered, ev.Status)
	}
	require.Len(t, cut, 1, "the attempt in flight is recorded as cut: %+v", evs)
	assert.False(t, cut[0].OK())
}
