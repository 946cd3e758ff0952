package webhooks_test

import (
	"context"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/webhooks"
)

// A clock advance is deterministic for the events the jobs it runs make,
// whatever the machine's speed: on one processor, with the background
// delivery loop and the scheduler loop running as in the server and a
// receiver that takes its time, a dispute opened at +1m and its first step
// at +1h1m are each attempted at their instant, and the step a day later
// (LOST) is not taken early by the scheduler loop running again, after the
// advance, a step the advance ran.
func TestAdvanceIsDeterministicUnderContention(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	plan := simulator.DisputeDecision{After: time.Minute, Reason: "FRAUDULENT",
		Then: []simulator.DisputeStep{{Status: "CHALLENGED", After: time.Hour}, {Status: "LOST", After: 24 * time.Hour}}}
	want := map[string][][]time.Time{ // the dispute's events by type: each one's attempt times
		simulator.EventDisputeOpened: {{epoch.Add(time.Minute)}},
		simulator.EventDisputeStatus: {{epoch.Add(time.Hour + time.Minute)}},
	}
	disputeEvents := func(e *env) map[string][][]time.Time {
		out := map[string][][]time.Time{}
		for _, ev := range e.events(t) {
			if _, ok := want[ev.Type]; ok {
				assert.Equal(t, simulator.DeliveryDelivered, ev.Status, "%s", ev.Type)
				out[ev.Type] = append(out[ev.Type], attemptTimes(ev))
			}
		}
		return out
	}
	for i := range 50 {
		func() {
			e, d := newDispatchedEnv(t, disputing{Fake: processors.NewFake(nil, nil), plan: plan}, webhooks.Options{Timeout: 5 * time.Second}, service.Config{})
			rc := newHookReceiver(t, func(http.ResponseWriter, *http.Request, sent) { time.Sleep(5 * time.Millisecond) })
			var err error
			e.t, err = e.svc.SetWebhookURL(e.t, rc.URL)
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			stopped := make(chan struct{}, 2)
			go func() { d.Run(ctx); stopped <- struct{}{} }()
			go func() { e.svc.Scheduler().Run(ctx); stopped <- struct{}{} }()
			stop := func() { cancel(); <-stopped; <-stopped }
			defer func() {
				if ctx.Err() == nil {
					stop()
				}
			}()

			e.pay(t, 9100, "4111111111111111")
			for _, ev := range e.events(t) { // the payment's own events go first, in the background
				_, err := e.svc.WaitEvent(context.Background(), e.t, simulator.EventQuery{PaymentID: ev.PaymentID, Type: ev.Type, Status: simulator.DeliveryDelivered}, 10*time.Second)
				require.NoError(t, err)
			}
			_, fired, err := e.svc.AdvanceClockFired(context.Background(), e.t, 2*time.Hour)
			require.NoError(t, err)
			assert.Equal(t, want, disputeEvents(e), "run %d: as the advance answers", i)
			for _, f := range fired {
				assert.False(t, f.Pending, "run %d: nothing left in flight", i)
			}
			stop() // a job the scheduler loop read before the advance took the tenant's lock has run by now
			assert.Equal(t, want, disputeEvents(e), "run %d: once the loops stopped", i)
		}()
		if t.Failed() {
			t.Logf("failed at run %d", i)
			return
		}
	}
}
