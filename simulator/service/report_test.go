package service_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// TestReportWebhookOutcomes: the report counts, per endpoint, the events
// delivered, the failed attempts followed by a retry and the events
// exhausted (kept as examples); a replay that succeeds counts a delivery.
func TestReportWebhookOutcomes(t *testing.T) {
	e := newSvcEnv(t, nil)
	tn, err := e.svc.SetWebhookURL(e.t, "https://merchant.example/hooks")
	require.NoError(t, err)
	e.t = tn
	p := e.pay(t, 1000, cardOK)
	evs, err := e.svc.Events(e.t, simulator.EventQuery{PaymentID: p.ID})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(evs), 2)
	ok, failing := evs[0], evs[1]

	_, err = e.svc.RecordAttempt(e.t.ID, ok.ID, simulator.DeliveryAttempt{At: e.clk.Now(), StatusCode: 200})
	require.NoError(t, err)
	var last *simulator.Event
	for range 6 {
		last, err = e.svc.RecordAttempt(e.t.ID, failing.ID, simulator.DeliveryAttempt{At: e.clk.Now(), StatusCode: 500, Error: "receiver answered 500"})
		require.NoError(t, err)
	}
	require.Equal(t, simulator.DeliveryExhausted, last.Status)

	r, err := e.svc.Report(e.t)
	require.NoError(t, err)
	require.Len(t, r.Counts.Webhooks, 1)
	w := r.Counts.Webhooks[0]
	assert.Equal(t, "https://merchant.example/hooks", w.URL)
	assert.EqualValues(t, 1, w.Delivered)
	assert.EqualValues(t, 5, w.Retried, "five failures were followed by a retry")
	assert.EqualValues(t, 1, w.Exhausted)
	require.Len(t, w.ExhaustedEvents, 1)
	assert.Equal(t, observe.EventExample{EventID: failing.ID, EventType: failing.Type, PaymentID: p.ID, Error: "receiver answered 500"}, w.ExhaustedEvents[0])

	_, err = e.svc.RecordAttempt(e.t.ID, failing.ID, simulator.DeliveryAttempt{At: e.clk.Now(), StatusCode: 200, Replay: true})
	require.NoError(t, err)
	require.NoError(t, e.svc.FlushCounts())
	r, err = e.svc.Report(e.t)
	require.NoError(t, err)
	assert.EqualValues(t, 2, r.Counts.Webhooks[0].Delivered, "the replay delivered it")
	assert.EqualValues(t, 1, r.Counts.Webhooks[0].Exhausted)
}

// kindsObserver records the kinds of the happenings it is told.
type kindsObserver struct {
	mu    sync.Mutex
	kinds []observe.Kind
}

func (o *kindsObserver) Observe(h observe.Happening) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.kinds = append(o.kinds, h.Kind)
}

// TestObserversRegistered: an observer registered with the service is told
// what the use cases did (a rule matched, the events made, a delivery
// attempted), after the report counts that are kept from the same
// happenings.
func TestObserversRegistered(t *testing.T) {
	o := &kindsObserver{}
	e := newSvcEnvConfig(t, nil, service.Config{Observers: []observe.Observer{o}})
	p := e.pay(t, 1000, cardOK)
	evs, err := e.svc.Events(e.t, simulator.EventQuery{PaymentID: p.ID})
	require.NoError(t, err)
	require.NotEmpty(t, evs)
	assert.Contains(t, o.kinds, observe.RuleMatched)
	assert.Contains(t, o.kinds, observe.EventMade)
	assert.NotContains(t, o.kinds, observe.DeliveryAttempted)
	_, err = e.svc.RecordAttempt(e.t.ID, evs[0].ID, simulator.DeliveryAttempt{At: e.clk.Now(), StatusCode: 200})
	require.NoError(t, err)
	assert.Equal(t, observe.DeliveryAttempted, o.kinds[len(o.kinds)-1])
	r, err := e.svc.Report(e.t)
	require.NoError(t, err)
	require.Len(t, r.Counts.Rules, 1)
	assert.Equal(t, []string{p.ID}, r.Counts.Rules[0].ExamplePaymentIDs)
}
