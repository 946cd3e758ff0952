package service_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

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

// watchedStore is the store with the state of its write transactions in
// view: inTx while one runs, and failNext to roll the next one back after
// its function succeeded (as a failed commit would).
type watchedStore struct {
	*store.DB
	inTx     atomic.Bool // written by any writer (the counts flusher too)
	failNext atomic.Bool
}

func (w *watchedStore) Update(fn func(simulator.Tx) error) error {
	return w.DB.Update(func(tx simulator.Tx) error {
		w.inTx.Store(true)
		defer w.inTx.Store(false)
		if err := fn(tx); err != nil {
			return err
		}
		if w.failNext.CompareAndSwap(true, false) {
			return errors.New("rolled back")
		}
		return nil
	})
}

// appendWatch is a WebhookRunner that records, for each Appended, whether a
// write transaction was still running and what the store then held.
type appendWatch struct {
	service.WebhookRunner
	st      *watchedStore
	calls   int
	inTx    int
	visible []int // the tenant's events a read at the call saw
}

func (r *appendWatch) Wake() {}

func (r *appendWatch) Appended(tenantID string, _ bool) {
	r.calls++
	if r.st.inTx.Load() {
		r.inTx++
		return // a read here would wait for the transaction the call is in
	}
	var evs []*simulator.Event
	_ = r.st.View(func(tx simulator.Tx) (err error) {
		evs, err = tx.Events(tenantID, simulator.EventQuery{})
		return err
	})
	r.visible = append(r.visible, len(evs))
}

// The dispatcher hears of an appended event only once the transaction that
// appended it has committed (a read it starts then sees the event), never
// from inside the transaction, and never for one rolled back.
func TestAppendedAfterCommit(t *testing.T) {
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	st := &watchedStore{DB: db}
	r := &appendWatch{st: st}
	svc := service.NewService(st, clock.NewManual(svcEpoch), &idgen.Seq{}, catalog, processors.NewFake(nil, nil), nil,
		service.Config{Webhooks: func(*service.Service) service.WebhookRunner { return r }})
	tn, err := svc.EnsureTenant(service.TenantSpec{ID: "default", SigningSecret: "secret", WebhookURL: "http://127.0.0.1:1/hooks",
		APIKeys: []simulator.APIKey{{Key: "key", Scopes: simulator.AllScopes}}})
	require.NoError(t, err)
	e := &svcEnv{svc: svc, db: db, t: tn}

	tk := e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
	_, err = svc.CreatePayment(context.Background(), tn, service.PaymentRequest{Token: tk.Instrument.Token})
	require.NoError(t, err)
	assert.Equal(t, 2, r.calls, "PENDING and AUTHORIZED")
	assert.Zero(t, r.inTx, "told inside the write transaction")
	assert.Equal(t, []int{2, 2}, r.visible, "told after the commit: both events are there")

	tk = e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
	st.failNext.Store(true)
	_, err = svc.CreatePayment(context.Background(), tn, service.PaymentRequest{Token: tk.Instrument.Token})
	require.Error(t, err)
	assert.Equal(t, 2, r.calls, "nothing appended: the transaction rolled back")
}
