package webhooks_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// sent is one delivery a hookReceiver got.
type sent struct {
	EventID, EventType, SignedAt string
}

// hookReceiver is a real receiver that records what it gets and how many
// deliveries it holds at once; answer decides each answer.
type hookReceiver struct {
	*httptest.Server
	answer  func(w http.ResponseWriter, r *http.Request, s sent)
	mu      sync.Mutex
	got     []sent
	current atomic.Int32 // deliveries being answered now
	most    atomic.Int32 // the most at once
}

func newHookReceiver(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, s sent)) *hookReceiver {
	t.Helper()
	rc := &hookReceiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := rc.current.Add(1)
		defer rc.current.Add(-1)
		for m := rc.most.Load(); n > m && !rc.most.CompareAndSwap(m, n); m = rc.most.Load() {
		}
		b, _ := io.ReadAll(r.Body)
		var body struct{ EventType, SignedAt string }
		_ = json.Unmarshal(b, &body)
		s := sent{EventID: r.Header.Get(webhooks.HeaderEventID), EventType: body.EventType, SignedAt: body.SignedAt}
		rc.mu.Lock()
		rc.got = append(rc.got, s)
		rc.mu.Unlock()
		rc.answer(w, r, s)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *hookReceiver) sent() []sent {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]sent(nil), rc.got...)
}

func status(code int) func(http.ResponseWriter, *http.Request, sent) {
	return func(w http.ResponseWriter, _ *http.Request, _ sent) { w.WriteHeader(code) }
}

// hangUntil answers 200 once release is closed (or the request is cut).
func hangUntil(release <-chan struct{}) func(http.ResponseWriter, *http.Request, sent) {
	return func(w http.ResponseWriter, r *http.Request, _ sent) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
}

// unix is a tenant-clock instant as signedAt carries it.
func unix(at time.Time) string { return strconv.FormatInt(at.Unix(), 10) }

// attemptTimes lists the log times of an event's attempts.
func attemptTimes(ev *simulator.Event) []time.Time {
	var out []time.Time
	for _, a := range ev.Attempts {
		out = append(out, a.At)
	}
	return out
}

// A clock advance makes every attempt that falls due within it at its due
// instant on the tenant clock (signedAt, the attempt's log time and the
// failure its retry counts from), in time order with the scheduled jobs,
// and holds a payment's later events behind a failing one.
func TestAdvanceAttemptsAtTheirDueInstants(t *testing.T) {
	at := func(d time.Duration) time.Time { return epoch.Add(d) }
	schedule := []time.Time{at(0), at(10 * time.Second), at(70 * time.Second), at(6*time.Minute + 10*time.Second), at(16*time.Minute + 10*time.Second), at(31*time.Minute + 10*time.Second)}
	tests := []struct {
		name    string
		code    int
		dispute *simulator.DisputeDecision
		advance time.Duration
		check   func(t *testing.T, e *env, rc *hookReceiver, fired []service.Fired)
	}{
		{name: "a failing receiver: six attempts on the schedule, then EXHAUSTED", code: 500, advance: time.Hour,
			check: func(t *testing.T, e *env, rc *hookReceiver, fired []service.Fired) {
				evs := e.events(t)
				require.Len(t, evs, 2)
				first, second := evs[0], evs[1]
				assert.Equal(t, simulator.DeliveryExhausted, first.Status)
				assert.Equal(t, schedule, attemptTimes(first), "each retry counts from the previous failure")
				for i, a := range first.Attempts {
					assert.Equal(t, unix(schedule[i]), a.SignedAt)
				}
				// The AUTHORIZED event waits until the PENDING one is exhausted at +31m10s.
				assert.Equal(t, simulator.DeliveryPending, second.Status)
				assert.Equal(t, []time.Time{at(31*time.Minute + 10*time.Second), at(31*time.Minute + 20*time.Second), at(32*time.Minute + 20*time.Second),
					at(37*time.Minute + 20*time.Second), at(47*time.Minute + 20*time.Second)}, attemptTimes(second), "its sixth falls after the advance")

				var firstSigned []string
				sawSecond := false
				for _, s := range rc.sent() {
					switch s.EventID {
					case first.ID:
						assert.False(t, sawSecond, "no later event of the payment before the earlier one is exhausted")
						firstSigned = append(firstSigned, s.SignedAt)
					case second.ID:
						sawSecond = true
					}
				}
				assert.Equal(t, []string{unix(schedule[0]), unix(schedule[1]), unix(schedule[2]), unix(schedule[3]), unix(schedule[4]), unix(schedule[5])}, firstSigned)
				require.Len(t, fired, 11)
				for i, f := range fired {
					assert.Equal(t, service.FiredWebhook, f.Kind)
					assert.False(t, f.Pending)
					if i > 0 {
						assert.False(t, f.At.Before(fired[i-1].At), "fired is in time order")
					}
				}
			}},
		{name: "a dispute an hour into the advance: its event goes at +1h", code: 200, advance: 26 * time.Hour,
			dispute: &simulator.DisputeDecision{After: time.Hour, Reason: "FRAUDULENT"},
			check: func(t *testing.T, e *env, rc *hookReceiver, fired []service.Fired) {
				var opened *simulator.Event
				for _, ev := range e.events(t) {
					assert.Equal(t, simulator.DeliveryDelivered, ev.Status)
					if ev.Type == simulator.EventDisputeOpened {
						opened = ev
					}
				}
				require.NotNil(t, opened)
				assert.Equal(t, []time.Time{at(time.Hour)}, attemptTimes(opened))
				assert.Equal(t, unix(at(time.Hour)), opened.Attempts[0].SignedAt)
				for _, s := range rc.sent() {
					if s.EventID == opened.ID {
						assert.Equal(t, unix(at(time.Hour)), s.SignedAt)
					}
				}
				var kinds []string
				var times []time.Time
				for _, f := range fired {
					kinds, times = append(kinds, f.Kind), append(times, f.At)
				}
				assert.Equal(t, []string{"webhook", "webhook", "dispute", "webhook"}, kinds)
				assert.Equal(t, []time.Time{at(0), at(0), at(time.Hour), at(time.Hour)}, times)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var proc simulator.Processor
			if tc.dispute != nil {
				proc = disputing{Fake: processors.NewFake(nil, nil), plan: *tc.dispute}
			}
			e, _ := newDispatchedEnv(t, proc, webhooks.Options{Timeout: 5 * time.Second, Concurrency: 4}, service.Config{}) // no background loop runs
			rc := newHookReceiver(t, status(tc.code))
			var err error
			e.t, err = e.svc.SetWebhookURL(e.t, rc.URL)
			require.NoError(t, err)
			e.pay(t, 1000, "4111111111111111")
			_, fired, err := e.svc.AdvanceClockFired(context.Background(), e.t, tc.advance)
			require.NoError(t, err)
			tc.check(t, e, rc, fired)
		})
	}
}

// An advance waits for the attempts it makes up to Service.AdvanceWait:
// one still in flight then is answered as pending and finishes on its own,
// recorded at its due instant.
func TestAdvanceListsAttemptsInFlightAsPending(t *testing.T) {
	e, _ := newDispatchedEnv(t, nil, webhooks.Options{Timeout: time.Minute, Concurrency: 4}, service.Config{AdvanceWait: 200 * time.Millisecond})
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	rc := newHookReceiver(t, hangUntil(release))
	t.Cleanup(free) // before the receiver closes: it waits for the attempt in flight
	var err error
	e.t, err = e.svc.SetWebhookURL(e.t, rc.URL)
	require.NoError(t, err)
	p := e.pay(t, 1000, "4111111111111111")
	first := e.events(t)[0]

	_, fired, err := e.svc.AdvanceClockFired(context.Background(), e.t, time.Hour)
	require.NoError(t, err)
	require.Equal(t, []service.Fired{{Kind: service.FiredWebhook, At: epoch, PaymentID: p.ID, EventID: first.ID, Pending: true}}, fired,
		"the first event's attempt is in flight; the second waits behind it")
	require.Len(t, rc.sent(), 1)

	free()
	ev, err := e.svc.WaitEvent(context.Background(), e.t, simulator.EventQuery{PaymentID: p.ID, Type: simulator.EventPaymentStatus, Status: simulator.DeliveryDelivered}, 10*time.Second)
	require.NoError(t, err, "the attempt finishes on its own")
	assert.Equal(t, first.ID, ev.ID)
	assert.Equal(t, []time.Time{epoch}, attemptTimes(ev), "recorded at its due instant")
}

// Each tenant has a share of the delivery slots: with tenant A's receiver
// hanging and more of A's attempts due than the slots in all, A never has
// more than its share in flight, and tenant B's attempts start (and B's
// clock advance answers) while A holds its whole share.
func TestWebhookSlotsAreSharedFairly(t *testing.T) {
	const slots, share = 4, 2
	tests := []struct {
		name string
		// deliverB makes B's payment and its due attempts happen: the
		// background loop, or B's own clock advance (the background loop
		// held off B meanwhile).
		deliverB func(t *testing.T, e *env, d *webhooks.Dispatcher, b *simulator.Tenant)
	}{
		{"background delivery", func(t *testing.T, e *env, _ *webhooks.Dispatcher, b *simulator.Tenant) {
			e.payIn(t, b)
		}},
		{"clock advance", func(t *testing.T, e *env, d *webhooks.Dispatcher, b *simulator.Tenant) {
			release := d.Hold(b.ID)
			defer release()
			e.payIn(t, b)
			_, fired, err := e.svc.AdvanceClockFired(context.Background(), b, time.Second)
			require.NoError(t, err)
			require.Len(t, fired, 2)
			for _, f := range fired {
				assert.False(t, f.Pending, "B's attempts are not stuck behind A's")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, d := newDispatchedEnv(t, nil, webhooks.Options{Timeout: time.Minute, Concurrency: slots, SlotsPerTenant: share}, service.Config{})
			release := make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			hangingA := newHookReceiver(t, hangUntil(release))
			var aWhenB atomic.Int32
			aWhenB.Store(-1)
			rcB := newHookReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ sent) {
				aWhenB.CompareAndSwap(-1, hangingA.current.Load())
			})
			a, err := e.svc.SetWebhookURL(e.t, hangingA.URL)
			require.NoError(t, err)
			e.t = a
			b, err := e.svc.EnsureTenant(service.TenantSpec{ID: "b", SigningSecret: "secret-b", WebhookURL: rcB.URL,
				APIKeys: []simulator.APIKey{{Key: "key-b", Scopes: simulator.AllScopes}}})
			require.NoError(t, err)

			ctx, cancel := context.WithCancel(context.Background())
			stopped := make(chan struct{})
			go func() { d.Run(ctx); close(stopped) }()
			t.Cleanup(func() { free(); cancel(); <-stopped })

			for range 3 * slots {
				e.pay(t, 1000, "4111111111111111")
			}
			require.Eventually(t, func() bool { return hangingA.current.Load() >= share }, 10*time.Second, time.Millisecond, "A fills its share")

			tc.deliverB(t, e, d, b)
			require.Eventually(t, func() bool { return len(rcB.sent()) == 2 }, 10*time.Second, time.Millisecond, "B's deliveries go while A's receiver hangs")
			assert.Equal(t, int32(share), aWhenB.Load(), "B's first attempt started while A held its whole share")
			assert.Equal(t, int32(share), hangingA.most.Load(), "A never had more than its share in flight")
			assert.Eventually(t, func() bool {
				evs, err := e.svc.Events(b, simulator.EventQuery{Status: simulator.DeliveryDelivered})
				return err == nil && len(evs) == 2
			}, 10*time.Second, time.Millisecond, "B's events are DELIVERED")
		})
	}
}

// payIn makes a payment (two events) in tenant tn.
func (e *env) payIn(tb testing.TB, tn *simulator.Tenant) {
	tb.Helper()
	saved := e.t
	defer func() { e.t = saved }()
	e.t = tn
	e.pay(tb, 1000, "4111111111111111")
}

// When the slots in all run short, tenants with due work take turns at
// them: three tenants whose receivers hang, each with more due attempts
// than the slots, get one slot each rather than the first taking all.
func TestWebhookTenantsTakeTurns(t *testing.T) {
	// SlotsPerTenant 3: the share alone would let one tenant take every slot.
	e, d := newDispatchedEnv(t, nil, webhooks.Options{Timeout: time.Minute, Concurrency: 3, SlotsPerTenant: 3}, service.Config{})
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	var receivers []*hookReceiver
	for i, id := range []string{"a", "b", "c"} {
		rc := newHookReceiver(t, hangUntil(release))
		receivers = append(receivers, rc)
		tn, err := e.svc.EnsureTenant(service.TenantSpec{ID: id, SigningSecret: "secret-" + id, WebhookURL: rc.URL,
			APIKeys: []simulator.APIKey{{Key: "key-" + strconv.Itoa(i), Scopes: simulator.AllScopes}}})
		require.NoError(t, err)
		for range 4 {
			e.payIn(t, tn)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { d.Run(ctx); close(stopped) }()
	t.Cleanup(func() { free(); cancel(); <-stopped })

	require.Eventually(t, func() bool {
		n := int32(0)
		for _, rc := range receivers {
			n += rc.current.Load()
		}
		return n == 3
	}, 10*time.Second, time.Millisecond, "every slot is taken")
	for i, rc := range receivers {
		assert.Equal(t, int32(1), rc.most.Load(), "tenant %d has one slot", i)
	}
}

// Sixteen tenants whose receivers accept and never answer, twenty payments
// each, at the default slots: another tenant's first delivery arrives while
// they all still hang (the reserve kept for tenants with nothing in
// flight), not when one of their attempts times out; and that tenant's
// clock advance makes its attempts at once, several in flight.
func TestWebhookFirstDeliveryPassesHangingReceivers(t *testing.T) {
	e, d := newDispatchedEnv(t, nil, webhooks.Options{Timeout: time.Minute}, service.Config{})
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	var hanging []*hookReceiver
	var tenants []*simulator.Tenant
	for i := range 16 {
		rc := newHookReceiver(t, hangUntil(release))
		hanging = append(hanging, rc)
		tn, err := e.svc.EnsureTenant(service.TenantSpec{ID: "hang-" + strconv.Itoa(i), SigningSecret: "s", WebhookURL: rc.URL,
			APIKeys: []simulator.APIKey{{Key: "key-hang-" + strconv.Itoa(i), Scopes: simulator.AllScopes}}})
		require.NoError(t, err)
		tenants = append(tenants, tn)
	}
	arrived := make(chan struct{})
	var first sync.Once
	var rcB *hookReceiver
	var advancing atomic.Bool
	rcB = newHookReceiver(t, func(http.ResponseWriter, *http.Request, sent) {
		first.Do(func() { close(arrived) })
		for end := time.Now().Add(10 * time.Second); advancing.Load() && rcB.most.Load() < 2 && time.Now().Before(end); {
			time.Sleep(time.Millisecond) // during B's advance, answer once two attempts were in flight at once
		}
	})
	b, err := e.svc.EnsureTenant(service.TenantSpec{ID: "b", SigningSecret: "secret-b", WebhookURL: rcB.URL,
		APIKeys: []simulator.APIKey{{Key: "key-b", Scopes: simulator.AllScopes}}})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { d.Run(ctx); close(stopped) }()
	t.Cleanup(func() { free(); cancel(); <-stopped })

	for _, tn := range tenants { // one tenant after another, as the loop delivers
		for range 20 {
			e.payIn(t, tn)
		}
	}
	inFlight := func() (n int32) {
		for _, rc := range hanging {
			n += rc.current.Load()
		}
		return n
	}
	require.Eventually(t, func() bool { return inFlight() >= 16 }, 30*time.Second, time.Millisecond, "every hanging tenant has an attempt in flight")

	e.payIn(t, b)
	select {
	case <-arrived:
	case <-time.After(30 * time.Second): // far below the attempts' minute: only a freed slot would be later
		t.Fatal("B's first delivery did not arrive while the others hang")
	}

	// B's own clock advance makes each attempt at its instant, its payments'
	// attempts at once (up to B's share), not held to the reserve's rule.
	require.Eventually(t, func() bool {
		evs, err := e.svc.Events(b, simulator.EventQuery{Status: simulator.DeliveryDelivered})
		return err == nil && len(evs) == 2
	}, 30*time.Second, time.Millisecond, "B's first payment's events are delivered")
	releaseB := d.Hold(b.ID)
	for range 10 {
		e.payIn(t, b)
	}
	advancing.Store(true)
	_, fired, err := e.svc.AdvanceClockFired(context.Background(), b, time.Second)
	releaseB()
	require.NoError(t, err)
	assert.Len(t, fired, 20)
	assert.GreaterOrEqual(t, rcB.most.Load(), int32(2), "B's advance has several attempts in flight")
	for _, f := range fired {
		assert.False(t, f.Pending, "B's advance is not deferred behind the hanging tenants")
	}
	for i, rc := range hanging {
		assert.LessOrEqual(t, rc.most.Load(), int32(webhooks.DefaultSlotsPerTenant), "tenant %d within its share", i)
		assert.Positive(t, rc.current.Load(), "tenant %d still hangs", i)
	}
}
