package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// countingStore counts the read transactions the dispatcher opens.
type countingStore struct {
	simulator.Store
	views int
}

func (c *countingStore) View(fn func(simulator.Tx) error) error { c.views++; return c.Store.View(fn) }

// pay makes a checkout authorized at once in tenant t.
func pay(t *testing.T, svc *service.Service, tn *simulator.Tenant) {
	t.Helper()
	amount := int64(1000)
	cs, err := svc.CreateSession(tn, simulator.SessionData{OrderID: "o", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalAuto)
	require.NoError(t, err)
	tk, err := svc.Tokenize(cs.ClientToken, service.CardInput{Number: "4111111111111111", CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030"})
	require.NoError(t, err)
	_, err = svc.CreatePayment(context.Background(), tn, service.PaymentRequest{Token: tk.Instrument.Token})
	require.NoError(t, err)
}

// The dispatcher reads nothing while nothing is pending: a pass that finds
// no PENDING event makes it idle, and only an appended PENDING event (or a
// released hold) makes the next wake-up read the outbox again. Events
// finished at append (no endpoint) leave it idle and only mark the tenant
// for the retention pass.
func TestDispatcherIdleWithoutPending(t *testing.T) {
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	st := &countingStore{Store: db}
	var d *Dispatcher
	svc := service.NewService(st, clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)), &idgen.Seq{}, catalog, processors.NewFake(nil, nil), nil,
		service.Config{Renderer: Renderer{}, Webhooks: Attach(&d, Options{Timeout: time.Second, Concurrency: 2})})
	tn, err := svc.EnsureTenant(service.TenantSpec{ID: "t1", SigningSecret: "s", APIKeys: []simulator.APIKey{{Key: "k", Scopes: simulator.AllScopes}}})
	require.NoError(t, err)
	ctx := context.Background()

	assert.False(t, d.idle(), "nothing is known before the first pass")
	d.pass(ctx)
	assert.True(t, d.idle(), "an empty outbox")

	pay(t, svc, tn) // no endpoint: both events EXHAUSTED at append
	assert.True(t, d.idle(), "finished events leave nothing to deliver")
	d.mu.Lock()
	assert.True(t, d.dirty["t1"], "but mark the tenant for retention")
	d.mu.Unlock()

	views := st.views
	for range 3 {
		if !d.idle() {
			d.pass(ctx)
		}
	}
	assert.Equal(t, views, st.views, "idle wake-ups read nothing")

	release := d.Hold("t1")
	d.queued.Add(1) // as if appended meanwhile (nothing PENDING: the store lists no tenant)
	d.pass(ctx)
	assert.True(t, d.idle(), "a held tenant without PENDING events leaves nothing to deliver")
	release()

	tn, err = svc.SetWebhookURL(tn, "http://127.0.0.1:1/hook")
	require.NoError(t, err)
	release = d.Hold("t1")
	pay(t, svc, tn) // PENDING events now
	assert.False(t, d.idle(), "an appended PENDING event wakes the dispatcher")
	d.pass(ctx)
	assert.False(t, d.idle(), "a held tenant was not looked at")
	release()
	d.pass(ctx) // attempts them: the receiver refuses, retries are scheduled
	d.running.Wait()
	assert.False(t, d.idle())
	d.pass(ctx)
	assert.False(t, d.idle(), "events waiting for their retry are pending")
}

// hookStore runs afterView once, right after the next read transaction
// the dispatcher opens has ended.
type hookStore struct {
	simulator.Store
	afterView func()
}

func (h *hookStore) View(fn func(simulator.Tx) error) error {
	err := h.Store.View(fn)
	if f := h.afterView; f != nil {
		h.afterView = nil
		f()
	}
	return err
}

// A pass that starts before a PENDING event commits and ends after it (its
// read saw an empty outbox) does not leave the dispatcher idle: the
// notification that follows the commit is not lost, and the next wake-up
// reads the outbox and finds the event.
func TestDispatcherIdleNotLostAcrossCommit(t *testing.T) {
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	st := &hookStore{Store: db}
	var d *Dispatcher
	svc := service.NewService(st, clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)), &idgen.Seq{}, catalog, processors.NewFake(nil, nil), nil,
		service.Config{Renderer: Renderer{}, Webhooks: Attach(&d, Options{Timeout: time.Second, Concurrency: 2})})
	tn, err := svc.EnsureTenant(service.TenantSpec{ID: "t1", SigningSecret: "s", WebhookURL: "http://127.0.0.1:1/hook",
		APIKeys: []simulator.APIKey{{Key: "k", Scopes: simulator.AllScopes}}})
	require.NoError(t, err)
	ctx := context.Background()
	d.pass(ctx)
	require.True(t, d.idle(), "an empty outbox")

	pending := func() int {
		var refs []simulator.PendingRef
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { refs, err = tx.PendingEvents("t1"); return }))
		return len(refs)
	}
	st.afterView = func() { pay(t, svc, tn) } // commits between the pass's read and its end
	d.pass(ctx)
	require.Equal(t, 2, pending(), "the pass did not see the events")
	assert.False(t, d.idle(), "the events appended during the pass wake the dispatcher")
}
