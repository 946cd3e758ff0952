package webhooks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/webhooks"
)

// disputing is a processor whose authorizations schedule a dispute with a
// scripted lifecycle (what a scenario's dispute.then makes).
type disputing struct {
	*processors.Fake
	plan simulator.DisputeDecision
}

func (p disputing) Authorize(ctx context.Context, t *simulator.Tenant, pay *simulator.Payment) simulator.AuthorizeDecision {
	d := p.Fake.Authorize(ctx, t, pay)
	plan := p.plan
	d.Dispute = &plan
	return d
}

func TestDisputeThenSteps(t *testing.T) {
	proc := disputing{Fake: processors.NewFake(nil, nil), plan: simulator.DisputeDecision{
		After: 10 * time.Second, Reason: "FRAUDULENT", Amount: 400,
		Then: []simulator.DisputeStep{{Status: "CHALLENGED", After: time.Hour}, {Status: "WON", After: 24 * time.Hour}},
	}}
	e := newEnv(t, proc)
	p := e.pay(t, 1000, "4111111111111111")
	ctx := context.Background()

	kinds := func(fs []service.Fired) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Kind)
		}
		return out
	}
	_, fired, err := e.svc.AdvanceClockFired(ctx, e.t, 10*time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{"dispute"}, kinds(fired))
	ds, err := e.svc.Disputes(e.t, p.ID)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, simulator.DisputeOpen, ds[0].Status)
	assert.Equal(t, int64(400), ds[0].Amount)

	_, fired, err = e.svc.AdvanceClockFired(ctx, e.t, 59*time.Minute)
	require.NoError(t, err)
	assert.Empty(t, fired, "the first step is an hour after the opening")
	_, fired, err = e.svc.AdvanceClockFired(ctx, e.t, 25*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, []string{"dispute-status", "dispute-status"}, kinds(fired), "each step counts from the previous one")
	ds, _ = e.svc.Disputes(e.t, p.ID)
	assert.Equal(t, simulator.DisputeWon, ds[0].Status)

	var statuses []string
	for _, ev := range e.events(t) {
		if ev.Type == simulator.EventDisputeStatus {
			statuses = append(statuses, ev.DisputeID)
		}
	}
	assert.Equal(t, []string{ds[0].ID, ds[0].ID}, statuses, "one DISPUTE.STATUS per step")
}

func TestRetentionKeepsPending(t *testing.T) {
	e := newEnv(t, nil)
	for range 3 {
		e.pay(t, 1000, "4111111111111111") // PENDING + AUTHORIZED each, no endpoint
	}
	evs := e.events(t)
	require.Len(t, evs, 6)
	// the first four attempted (no endpoint: EXHAUSTED), the last two stay PENDING
	for _, ev := range evs[:4] {
		_, err := e.svc.RecordAttempt(e.t.ID, ev.ID, simulator.DeliveryAttempt{At: e.svc.Now(e.t), Error: simulator.ErrNoEndpoint})
		require.NoError(t, err)
	}
	n, err := e.svc.PruneEvents(e.t, service.Retention{Keep: 1})
	require.NoError(t, err)
	assert.Equal(t, 3, n, "all but the newest finished event")
	left := e.events(t)
	require.Len(t, left, 3)
	assert.Equal(t, []string{"EXHAUSTED", "PENDING", "PENDING"}, []string{left[0].Status, left[1].Status, left[2].Status})

	e.clk.Advance(48 * time.Hour)
	n, err = e.svc.PruneEvents(e.t, service.Retention{MaxAge: 24 * time.Hour})
	require.NoError(t, err)
	assert.Equal(t, 1, n, "older than the age bound")
	left = e.events(t)
	assert.Len(t, left, 2, "pending events are never pruned")
}

// The dispatcher delivers to a real receiver, one payment's events in order,
// and tells OnAttempt about each attempt.
func TestDispatcherDeliversAndReports(t *testing.T) {
	var mu sync.Mutex
	var order []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		require.NoError(t, webhooks.Verify("secret", b, r.Header.Get("X-Signature-Primary")))
		mu.Lock()
		order = append(order, r.Header.Get("X-Event-Id"))
		mu.Unlock()
	}))
	defer srv.Close()
	var reported atomic.Int32
	onAttempt := func(tid string, ev *simulator.Event, a simulator.DeliveryAttempt) {
		assert.Equal(t, "default", tid)
		assert.Equal(t, 200, a.StatusCode)
		reported.Add(1)
	}
	e, _ := newDispatchedEnv(t, nil, webhooks.Options{Timeout: time.Second, Concurrency: 4, OnAttempt: onAttempt}, service.Config{})
	_, err := e.svc.SetWebhookURL(e.t, srv.URL)
	require.NoError(t, err)
	p := e.pay(t, 1000, "4111111111111111")
	_, fired, err := e.svc.AdvanceClockFired(context.Background(), e.t, time.Second)
	require.NoError(t, err)
	require.Len(t, fired, 2)
	assert.Equal(t, int32(2), reported.Load())
	evs := e.events(t)
	assert.Equal(t, []string{evs[0].ID, evs[1].ID}, order, "PENDING before AUTHORIZED")
	for _, f := range fired {
		assert.Equal(t, p.ID, f.PaymentID)
		assert.Equal(t, service.FiredWebhook, f.Kind)
	}
}

// The stored head of a receiver's answer is masked like the journal (card
// numbers keep their first 6 and last 4, security codes go, a number cut by
// the 1 KiB head is masked whole); what the receiver got is not altered.
func TestResponseHeadMasked(t *testing.T) {
	tests := []struct {
		name, answer string
		want         string
	}{
		{"card number and cvv", `{"echo":"4111111111111111","cvv":"123"}`, `{"echo":"411111******1111","cvv":"[REDACTED]"}`},
		{"a number cut by the head", strings.Repeat("x", 1020) + "4111111111111111", strings.Repeat("x", 1020) + "****"},
		{"nothing to mask", `{"ok":false,"amount":1000}`, `{"ok":false,"amount":1000}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got atomic.Value
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got.Store(string(b))
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = io.WriteString(w, tc.answer)
			}))
			defer srv.Close()
			e, d := newDispatchedEnv(t, nil, webhooks.Options{Timeout: time.Second, Concurrency: 4}, service.Config{})
			_, err := e.svc.SetWebhookURL(e.t, srv.URL)
			require.NoError(t, err)
			e.pay(t, 1000, "4111111111111111")
			runDue(t, d, e.svc, e.t.ID)
			ev := e.events(t)[0]
			require.NotEmpty(t, ev.Attempts)
			assert.Equal(t, tc.want, ev.Attempts[0].ResponseBodyHead)
			sent, err := e.svc.SentBody(ev, ev.Attempts[0])
			require.NoError(t, err)
			assert.Equal(t, string(sent), got.Load().(string), "the body sent is the event's")
		})
	}
}

// runDue makes the tenant's webhook attempts due at its clock's now, as a
// clock advance does at one instant, and answers what it ran.
func runDue(t *testing.T, d *webhooks.Dispatcher, svc *service.Service, tenantID string) []service.Fired {
	t.Helper()
	tn, err := svc.Tenant(tenantID)
	require.NoError(t, err)
	fired, _ := d.RunAt(context.Background(), tenantID, svc.Now(tn), time.Now().Add(10*time.Second))
	return fired
}
