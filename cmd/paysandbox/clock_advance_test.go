package main

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One advance makes every webhook attempt that falls due within it, each at
// its due instant on the tenant clock (signedAt and the attempt log's at),
// in time order; a payment's later event waits behind its failing one.
func TestClockAdvanceAttemptsWebhooksAtTheirInstants(t *testing.T) {
	a := newTestApp(t)
	rc := newReceiver(t, answer(500))
	a.setEndpoint(rc.URL)
	pid := a.pay(1000, "4111111111111111").Str("id")

	fired := a.advance("1h").JSON["fired"].([]any)
	evs := a.events(pid)
	require.Len(t, evs, 2)
	first, second := evs[0], evs[1]
	assert.Equal(t, "EXHAUSTED", first["status"], "six attempts within the hour")
	want := []string{"07:30:00", "07:30:10", "07:31:10", "07:36:10", "07:46:10", "08:01:10"}
	att := first["attempts"].([]any)
	require.Len(t, att, 6)
	var signed []string
	for i, x := range att {
		at := "2026-11-22T" + want[i] + ".000000Z"
		assert.Equal(t, at, x.(map[string]any)["at"])
		ts, err := time.Parse(time.RFC3339, at)
		require.NoError(t, err)
		assert.Equal(t, strconv.FormatInt(ts.Unix(), 10), x.(map[string]any)["signedAt"])
		signed = append(signed, strconv.FormatInt(ts.Unix(), 10))
	}
	var got []string
	for _, d := range rc.deliveries() {
		if d.Header.Get("X-Event-Id") == first["id"] {
			got = append(got, d.JSON["signedAt"].(string))
		}
	}
	assert.Equal(t, signed, got, "the receiver saw each attempt signed at its instant")
	later := second["attempts"].([]any)
	require.NotEmpty(t, later)
	assert.Equal(t, "2026-11-22T08:01:10.000000Z", later[0].(map[string]any)["at"], "the AUTHORIZED event waited for the PENDING one to be exhausted")

	require.NotEmpty(t, fired)
	prev := ""
	for _, f := range fired {
		m := f.(map[string]any)
		assert.Equal(t, "webhook", m["kind"])
		assert.NotContains(t, m, "pending")
		assert.GreaterOrEqual(t, m["at"].(string), prev, "fired is in time order")
		prev = m["at"].(string)
	}
}

// An advance waits for its webhook attempts up to --advance-wait; one
// still in flight then is listed with "pending": true (the CLI says so
// under its table) and finishes on its own, recorded at its due instant.
func TestClockAdvancePendingWebhook(t *testing.T) {
	tests := []struct {
		name string
		// advance advances the tenant's clock by 1m and checks its answer;
		// opened reads the DISPUTE.OPENED event the advance made.
		advance func(t *testing.T, a *testApp, pid string, opened func() map[string]any)
	}{
		{"http", func(t *testing.T, a *testApp, pid string, opened func() map[string]any) {
			fired := a.advance("1m").JSON["fired"].([]any)
			require.Len(t, fired, 2, "%v", fired)
			assert.Equal(t, "dispute", fired[0].(map[string]any)["kind"])
			assert.Equal(t, map[string]any{"kind": "webhook", "at": "2026-11-22T07:30:10.000000Z", "paymentId": pid, "eventId": opened()["id"], "pending": true}, fired[1])
		}},
		{"cli", func(t *testing.T, a *testApp, _ string, _ func() map[string]any) {
			code, out, errOut := cliRun(t, a, nil, "clock", "advance", "1m")
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "1 webhook attempt(s) were still in flight when the advance stopped waiting for them")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.AdvanceWait = 300 * time.Millisecond
			cfg.WebhookTimeout = time.Minute
			a := startApp(t, cfg)
			release := make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			rc := newReceiver(t, answer(200))
			t.Cleanup(free) // before the receiver and the app close: they wait for attempts in flight
			a.setEndpoint(rc.URL)
			pid := a.pay(1000, "4000000000000259").Str("id") // the dispute card: a dispute 10s after authorization
			a.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&type=PAYMENT.STATUS&status=DELIVERED&timeout=10s", nil)
			a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
			rc.setAnswer(func(w http.ResponseWriter, r *http.Request) { // the dispute's event hangs
				select {
				case <-release:
				case <-r.Context().Done():
				}
			})
			opened := func() map[string]any {
				for _, ev := range a.events(pid) {
					if ev["eventType"] == "DISPUTE.OPENED" {
						return ev
					}
				}
				t.Fatal("no DISPUTE.OPENED event")
				return nil
			}
			tc.advance(t, a, pid, opened)
			assert.Equal(t, "PENDING", opened()["status"])

			free()
			w := a.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&type=DISPUTE.OPENED&status=DELIVERED&timeout=10s", nil)
			att := w.JSON["attempts"].([]any)
			require.Len(t, att, 1)
			assert.Equal(t, "2026-11-22T07:30:10.000000Z", att[0].(map[string]any)["at"], "finished on its own, at its due instant")
		})
	}
}

// A tenant whose receiver hangs holds at most its share of the delivery
// slots (--webhook-slots-per-tenant, 8 by default), however many of its
// attempts are due; another tenant's delivery goes meanwhile.
func TestWebhookSlotsPerTenant(t *testing.T) {
	cfg := testConfig()
	cfg.WebhookTimeout = time.Minute
	a := startApp(t, cfg)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	var current, most atomic.Int32
	hanging := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		n := current.Add(1)
		defer current.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(free) // before the receiver and the app close: they wait for attempts in flight
	a.setEndpoint(hanging.URL)
	for range 80 { // more payments than the 64 slots in all
		a.pay(1000, "4111111111111111")
	}
	require.Eventually(t, func() bool { return current.Load() >= 8 }, 10*time.Second, time.Millisecond, "A fills its share")

	b := a.as(a.newTenant(nil))
	rc := newReceiver(t, answer(200))
	b.setEndpoint(rc.URL)
	pid := b.pay(1000, "4111111111111111").Str("id")
	b.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&status=DELIVERED&timeout=10s", nil)
	assert.NotEmpty(t, rc.deliveries())
	assert.Equal(t, int32(8), current.Load(), "A still holds its whole share")
	assert.Equal(t, int32(8), most.Load(), "A never had more than its share in flight")
}
