package service_test

import (
	"context"
	"fmt"
	"sync"
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

// countingStore counts the write transactions that committed.
type countingStore struct {
	*store.DB
	commits atomic.Int64
}

func (c *countingStore) Update(fn func(simulator.Tx) error) error {
	err := c.DB.Update(fn)
	if err == nil {
		c.commits.Add(1)
	}
	return err
}

func newCountingEnv(t *testing.T, decide func(p *simulator.Payment) simulator.AuthorizeDecision) (*svcEnv, *countingStore) {
	t.Helper()
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	cs := &countingStore{DB: db}
	clk := clock.NewManual(svcEpoch)
	proc := &stubProcessor{Fake: processors.NewFake(nil, nil), authorize: decide}
	svc := service.NewService(cs, clk, &idgen.Seq{}, catalog, proc, nil, service.Config{})
	tn, err := svc.EnsureTenant(service.TenantSpec{ID: "default", SigningSecret: "secret",
		APIKeys: []simulator.APIKey{{Key: "key", Scopes: simulator.AllScopes}}})
	require.NoError(t, err)
	return &svcEnv{svc: svc, db: db, clk: clk, t: tn}, cs
}

// A payment the processor decides at once is created and authorized in one
// commit, with its PENDING event first and no recovery job; a decision that
// defers (3DS challenge) stores the PENDING payment with its recovery job.
func TestCreatePaymentCommitsOnce(t *testing.T) {
	tests := []struct {
		name    string
		decide  func(p *simulator.Payment) simulator.AuthorizeDecision // nil: the card catalogue's processor
		status  simulator.PaymentStatus
		commits int64
		events  []simulator.PaymentStatus
	}{
		{"authorized at once", nil, simulator.StatusAuthorized, 1, []simulator.PaymentStatus{simulator.StatusPending, simulator.StatusAuthorized}},
		{"declined at once", func(p *simulator.Payment) simulator.AuthorizeDecision {
			return simulator.AuthorizeDecision{ThreeDS: simulator.ThreeDSFrictionlessFail}
		}, simulator.StatusDeclined, 1, []simulator.PaymentStatus{simulator.StatusPending, simulator.StatusDeclined}},
		{"3DS challenge defers", func(p *simulator.Payment) simulator.AuthorizeDecision {
			return simulator.AuthorizeDecision{ThreeDS: simulator.ThreeDSChallenge}
		}, simulator.StatusPending, 2, []simulator.PaymentStatus{simulator.StatusPending}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, cs := newCountingEnv(t, tt.decide)
			tk := e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
			before := cs.commits.Load()
			p, err := e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tk.Instrument.Token, IdempotencyKey: "k1"})
			require.NoError(t, err)
			assert.Equal(t, tt.status, p.Status)
			assert.Equal(t, tt.commits, cs.commits.Load()-before, "write transactions")
			assert.Equal(t, p, e.get(t, p.ID), "the answer is what was stored")

			var evs []*simulator.Event
			require.NoError(t, e.db.View(func(tx simulator.Tx) (err error) {
				evs, err = tx.Events(e.t.ID, simulator.EventQuery{PaymentID: p.ID})
				return err
			}))
			var got []simulator.PaymentStatus
			for i := len(evs) - 1; i >= 0; i-- { // listed newest first
				var ev *simulator.Event
				require.NoError(t, e.db.View(func(tx simulator.Tx) (err error) { ev, err = tx.Event(e.t.ID, evs[i].ID); return }))
				require.NotNil(t, ev.Payment, "the event carries the payment it is rendered from")
				got = append(got, ev.Payment.Status)
			}
			assert.Equal(t, tt.events, got, "events in order, the PENDING one first")
			if tt.commits == 1 {
				var jobs []*simulator.Job
				require.NoError(t, e.db.View(func(tx simulator.Tx) (err error) {
					jobs, err = tx.DueJobs(e.t.ID, svcEpoch.AddDate(10, 0, 0), 0)
					return err
				}))
				assert.Empty(t, jobs, "no recovery job for a synchronous decision")
			}

			_, err = e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tk.Instrument.Token, IdempotencyKey: "k1"})
			assert.Equal(t, simulator.CodeIdempotencyKeyAlreadyExists, simulator.ErrorCode(err))
		})
	}
}

// Requests racing for one token or one idempotency key, each read and
// decided outside the write lock, still give exactly one payment: what was
// read is checked again at commit.
func TestCreatePaymentRacesGiveOnePayment(t *testing.T) {
	const n = 8
	e, _ := newCountingEnv(t, nil)
	t.Run("one token", func(t *testing.T) {
		tk := e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
		codes := race(n, func(int) error {
			_, err := e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tk.Instrument.Token})
			return err
		})
		assert.Equal(t, 1, codes[""], "%v", codes)
		assert.Equal(t, n-1, codes[string(simulator.CodeInvalidPaymentInstrumentToken)], "%v", codes)
	})
	t.Run("one idempotency key", func(t *testing.T) {
		toks := make([]string, n)
		for i := range toks {
			toks[i] = e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK).Instrument.Token
		}
		codes := race(n, func(i int) error {
			_, err := e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: toks[i], IdempotencyKey: "same"})
			return err
		})
		assert.Equal(t, 1, codes[""], "%v", codes)
		assert.Equal(t, n-1, codes[string(simulator.CodeIdempotencyKeyAlreadyExists)], "%v", codes)
		page, err := e.svc.ListPayments(e.t, simulator.PaymentQuery{Limit: 100})
		require.NoError(t, err)
		assert.Len(t, page.Payments, 2, "one per race")
	})
}

// race runs fn n times at once and counts the answers by error code ("" for success).
func race(n int, fn func(i int) error) map[string]int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	codes := map[string]int{}
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			err := fn(i)
			code := ""
			if err != nil {
				code = string(simulator.ErrorCode(err))
				if code == "" {
					code = fmt.Sprint(err)
				}
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return codes
}

// What changes between a payment's read and its commit (the processor
// deciding in between) is checked at commit: a single-use token used by
// another payment or a vaulted token deleted meanwhile is refused; a session
// whose data changed meanwhile gives the payment built from what was read.
func TestCreatePaymentRecheckedAtCommit(t *testing.T) {
	ctx := context.Background()
	fake := processors.NewFake(nil, nil)
	tests := []struct {
		name string
		// setup makes the request; between runs once, after the request's read.
		setup   func(t *testing.T, e *svcEnv) (req service.PaymentRequest, between func(t *testing.T))
		code    simulator.Code
		amount  int64
		payment bool // between itself made a payment
	}{
		{"single-use token used meanwhile", func(t *testing.T, e *svcEnv) (service.PaymentRequest, func(*testing.T)) {
			tk := e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
			req := service.PaymentRequest{Token: tk.Instrument.Token}
			return req, func(t *testing.T) {
				_, err := e.svc.CreatePayment(ctx, e.t, req)
				require.NoError(t, err)
			}
		}, simulator.CodeInvalidPaymentInstrumentToken, 0, true},
		{"vaulted token deleted meanwhile", func(t *testing.T, e *svcEnv) (service.PaymentRequest, func(*testing.T)) {
			tk := e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
			v, err := e.svc.Vault(ctx, e.t, tk.Instrument.Token, "cust-1", false)
			require.NoError(t, err)
			req := service.PaymentRequest{Token: v.Token, Amount: i64(700), CurrencyCode: "EUR", OrderID: "order-2", CustomerID: "cust-1"}
			return req, func(t *testing.T) {
				_, err := e.svc.DeleteInstrument(e.t, v.Token)
				require.NoError(t, err)
			}
		}, simulator.CodeInvalidPaymentInstrumentToken, 0, false},
		{"session's amount changed meanwhile", func(t *testing.T, e *svcEnv) (service.PaymentRequest, func(*testing.T)) {
			cs, err := e.svc.CreateSession(e.t, simulator.SessionData{OrderID: "order-1", CurrencyCode: "EUR", Amount: i64(1000)}, simulator.ApprovalAuto)
			require.NoError(t, err)
			tk, err := e.svc.Tokenize(cs.ClientToken, service.CardInput{Number: cardOK, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030"})
			require.NoError(t, err)
			return service.PaymentRequest{Token: tk.Instrument.Token}, func(t *testing.T) {
				_, err := e.svc.UpdateSession(e.t, cs.ClientToken, func(cur simulator.SessionData) (simulator.SessionData, error) {
					cur.Amount = i64(2000)
					return cur, nil
				})
				require.NoError(t, err)
			}
		}, "", 1000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var between func(*testing.T)
			var once atomic.Bool
			var e *svcEnv
			e, _ = newCountingEnv(t, func(p *simulator.Payment) simulator.AuthorizeDecision {
				if once.CompareAndSwap(false, true) {
					between(t)
				}
				return fake.Authorize(ctx, e.t, p)
			})
			var req service.PaymentRequest
			req, between = tt.setup(t, e)
			p, err := e.svc.CreatePayment(ctx, e.t, req)
			require.True(t, once.Load(), "the processor decided")
			page, lerr := e.svc.ListPayments(e.t, simulator.PaymentQuery{Limit: 10})
			require.NoError(t, lerr)
			if tt.code != "" {
				assert.Equal(t, tt.code, simulator.ErrorCode(err), "%v", err)
				assert.Nil(t, p)
				assert.Len(t, page.Payments, map[bool]int{false: 0, true: 1}[tt.payment], "no payment of the refused request")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, simulator.StatusAuthorized, p.Status)
			assert.Equal(t, tt.amount, p.Amount, "the payment is made from the session as read")
			assert.Equal(t, p, e.get(t, p.ID))
		})
	}
}
