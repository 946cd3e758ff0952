package service_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator/service"
)

// countingRunner is a WebhookRunner that counts what the service tells it;
// the methods a clock advance or a delivery would call are not expected
// (the embedded nil interface panics if they are).
type countingRunner struct {
	service.WebhookRunner
	made    *service.Service
	wakes   int
	pending int
}

func (r *countingRunner) Wake() { r.wakes++ }

func (r *countingRunner) Appended(_ string, pending bool) {
	if pending {
		r.pending++
	}
}

// NewService returns the service fully wired: Config.Webhooks is called
// once, with the service NewService returns, and that runner is the one the
// service announces events to and wakes (Service.Kick) when it stores a job.
func TestNewServiceWiresItsWebhookRunner(t *testing.T) {
	r := &countingRunner{}
	calls := 0
	e := newSvcEnvConfig(t, nil, service.Config{Webhooks: func(s *service.Service) service.WebhookRunner {
		calls++
		r.made = s
		return r
	}})
	require.Equal(t, 1, calls)
	assert.Same(t, e.svc, r.made, "the runner is made with the service NewService returns")
	tn, err := e.svc.SetWebhookURL(e.t, "http://127.0.0.1:1/hooks") // events stay PENDING
	require.NoError(t, err)
	e.t = tn

	tests := []struct {
		name    string
		act     func()
		woken   bool
		pending int
	}{
		{"Kick wakes the runner", func() { e.svc.Kick() }, true, 0},
		{"a stored job wakes it and its event is announced", func() { e.pending(t, 1000, "4111111111111111") }, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wakes, pending := r.wakes, r.pending
			tc.act()
			assert.Equal(t, tc.woken, r.wakes > wakes, "woken")
			assert.Equal(t, tc.pending, r.pending-pending, "events announced PENDING")
		})
	}
}
