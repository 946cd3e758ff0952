package service_test

import (
	"context"
	"math"
	"sync"
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

// Service-level tests: the real service over the real buntdb store
// (":memory:"), with the scheduler loop not running, so background work
// (authorization after approve, settlements, refunds, timeouts) happens only
// when a test advances the tenant's clock. They reach what HTTP cannot reach
// deterministically: authorize on a PENDING payment, the async
// processor (SETTLING), and the processor decisions only scenarios would make.

const cardOK = "4111111111111111"

var svcEpoch = time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)

type svcEnv struct {
	svc *service.Service
	db  *store.DB
	clk *clock.Manual
	t   *simulator.Tenant
}

// newSvcEnv wires a service with proc (nil: the card-catalogue processor).
func newSvcEnv(tb testing.TB, proc simulator.Processor) *svcEnv {
	tb.Helper()
	return newSvcEnvConfig(tb, proc, service.Config{})
}

// newSvcEnvConfig is newSvcEnv with the service made from cfg.
func newSvcEnvConfig(tb testing.TB, proc simulator.Processor, cfg service.Config) *svcEnv {
	tb.Helper()
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = db.Close() })
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(tb, err)
	if proc == nil {
		proc = processors.NewFake(nil, nil)
	}
	clk := clock.NewManual(svcEpoch)
	svc := service.NewService(db, clk, &idgen.Seq{}, catalog, proc, nil, cfg)
	t, err := svc.EnsureTenant(service.TenantSpec{
		ID: "default", SigningSecret: "secret",
		APIKeys: []simulator.APIKey{{Key: "key", Scopes: simulator.AllScopes}},
	})
	require.NoError(tb, err)
	return &svcEnv{svc: svc, db: db, clk: clk, t: t}
}

func i64(v int64) *int64 { return &v }

// tokenize makes a session of amount (EUR, order-1, cust-1) in mode and tokenises card.
func (e *svcEnv) tokenize(tb testing.TB, mode simulator.ApprovalMode, amount int64, card string) *service.Tokenized {
	tb.Helper()
	cs, err := e.svc.CreateSession(e.t, simulator.SessionData{
		OrderID: "order-1", CurrencyCode: "EUR", Amount: i64(amount), CustomerID: "cust-1",
	}, mode)
	require.NoError(tb, err)
	tk, err := e.svc.Tokenize(cs.ClientToken, service.CardInput{
		Number: card, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Jane Doe",
	})
	require.NoError(tb, err)
	return tk
}

// pay creates a payment (authorized synchronously).
func (e *svcEnv) pay(tb testing.TB, amount int64, card string) *simulator.Payment {
	tb.Helper()
	tk := e.tokenize(tb, simulator.ApprovalAuto, amount, card)
	p, err := e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tk.Instrument.Token})
	require.NoError(tb, err)
	return p
}

// pending approves a MANUAL attempt: the payment exists, PENDING, and its
// background authorization waits for the scheduler (which does not run here).
func (e *svcEnv) pending(tb testing.TB, amount int64, card string) *simulator.Payment {
	tb.Helper()
	tk := e.tokenize(tb, simulator.ApprovalManual, amount, card)
	require.NotNil(tb, tk.Attempt)
	res, err := e.svc.ApproveAttempt(context.Background(), e.t, tk.Attempt.ID)
	require.NoError(tb, err)
	p, err := e.svc.Payment(e.t, res.PaymentID)
	require.NoError(tb, err)
	require.Equal(tb, simulator.StatusPending, p.Status)
	return p
}

func (e *svcEnv) advance(tb testing.TB, d time.Duration) {
	tb.Helper()
	_, err := e.svc.AdvanceClock(context.Background(), e.t, d)
	require.NoError(tb, err)
}

func (e *svcEnv) get(tb testing.TB, id string) *simulator.Payment {
	tb.Helper()
	p, err := e.svc.Payment(e.t, id)
	require.NoError(tb, err)
	return p
}

func (e *svcEnv) job(tb testing.TB, id string) *simulator.Job {
	tb.Helper()
	var j *simulator.Job
	require.NoError(tb, e.db.View(func(tx simulator.Tx) (err error) { j, err = tx.Job(e.t.ID, id); return }))
	return j
}

func sales(p *simulator.Payment) []simulator.Transaction {
	var out []simulator.Transaction
	for _, t := range p.Transactions {
		if t.Type == simulator.TxnSale {
			out = append(out, t)
		}
	}
	return out
}

func refunds(p *simulator.Payment) []simulator.Transaction {
	var out []simulator.Transaction
	for _, t := range p.Transactions {
		if t.Type == simulator.TxnRefund {
			out = append(out, t)
		}
	}
	return out
}

func captureIDs(p *simulator.Payment) []string {
	var out []string
	for _, t := range p.Transactions {
		for _, ev := range t.Events {
			if ev.Type == simulator.EventCaptureSucceeded {
				out = append(out, ev.ID)
			}
		}
	}
	return out
}

// TestServiceAsyncProcessorSettling reaches SETTLING the one way the shipped
// processor allows: a payment still PENDING (approved, background
// authorization not run) is authorized at ADYEN, whose capture is async.
func TestServiceAsyncProcessorSettling(t *testing.T) {
	ctx := context.Background()
	e := newSvcEnv(t, nil)
	p := e.pending(t, 1000, cardOK)
	require.NotNil(t, e.job(t, "authorize-"+p.ID), "approve stores the background authorization as a job")

	p, err := e.svc.AuthorizePayment(ctx, e.t, p.ID, "sandbox_adyen", "", "")
	require.NoError(t, err)
	assert.Equal(t, simulator.StatusAuthorized, p.Status)
	require.NotNil(t, p.Processor)
	assert.Equal(t, "ADYEN", p.Processor.Name)
	require.Len(t, sales(p), 1)
	assert.Empty(t, sales(p)[0].AuthorizationCode, "ADYEN transactions carry no authorizationCode")
	assert.Nil(t, e.job(t, "authorize-"+p.ID), "authorize removes the background job")

	p, err = e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Amount: i64(400)})
	require.NoError(t, err)
	assert.Equal(t, simulator.StatusPartiallySettled, p.Status, "a partial capture does not wait for settlement")

	p, err = e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
	require.NoError(t, err)
	assert.Equal(t, simulator.StatusSettling, p.Status)
	assert.Equal(t, int64(1000), p.Processor.AmountCaptured)
	assert.Equal(t, simulator.StatusSettling, sales(p)[0].ProcessorStatus)
	assert.Len(t, captureIDs(p), 2)

	for _, act := range []struct {
		name string
		run  func() error
	}{
		{"capture", func() error {
			_, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
			return err
		}},
		{"refund", func() error { _, err := e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{}); return err }},
		{"cancel", func() error { _, err := e.svc.CancelPayment(ctx, e.t, p.ID, "", ""); return err }},
		{"authorize", func() error {
			_, err := e.svc.AuthorizePayment(ctx, e.t, p.ID, "sandbox_adyen", "", "")
			return err
		}},
	} {
		assert.Equal(t, simulator.CodeInvalidPaymentStatus, simulator.ErrorCode(act.run()), "SETTLING/%s", act.name)
	}

	e.advance(t, 29*time.Second)
	assert.Equal(t, simulator.StatusSettling, e.get(t, p.ID).Status, "ADYEN settles 30s after the capture")
	e.advance(t, time.Second)
	p = e.get(t, p.ID)
	assert.Equal(t, simulator.StatusSettled, p.Status)
	assert.Equal(t, simulator.StatusSettled, sales(p)[0].ProcessorStatus)

	p, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{TransactionEventID: captureIDs(p)[0]})
	require.NoError(t, err)
	assert.Equal(t, int64(400), p.Processor.AmountRefunded)
	assert.Equal(t, simulator.StatusSettled, p.Status)
}

// TestServiceSettleNow: the control plane's settle moves SETTLING on at once
// and refuses anything else.
func TestServiceSettleNow(t *testing.T) {
	ctx := context.Background()
	e := newSvcEnv(t, nil)
	p := e.pending(t, 1000, cardOK)
	_, err := e.svc.AuthorizePayment(ctx, e.t, p.ID, "sandbox_adyen", "ADYEN", "")
	require.NoError(t, err)
	_, err = e.svc.SettleNow(context.Background(), e.t, p.ID)
	assert.Equal(t, simulator.CodeInvalidPaymentStatus, simulator.ErrorCode(err), "AUTHORIZED is not SETTLING")
	_, err = e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
	require.NoError(t, err)
	p, err = e.svc.SettleNow(context.Background(), e.t, p.ID)
	require.NoError(t, err)
	assert.Equal(t, simulator.StatusSettled, p.Status)
	e.advance(t, time.Minute) // the settle job finds nothing left to do
	assert.Equal(t, simulator.StatusSettled, e.get(t, p.ID).Status)
}

// TestServiceAuthorizeChecks: the order of authorize's checks (docs/api.md:
// idempotency 409, then existence 404 before the merchant
// account, then status).
func TestServiceAuthorizeChecks(t *testing.T) {
	ctx := context.Background()
	e := newSvcEnv(t, nil)
	authorized := e.pay(t, 1000, cardOK)
	other := e.pay(t, 1000, cardOK)
	_, err := e.svc.CapturePayment(ctx, e.t, other.ID, service.CaptureRequest{Amount: i64(1), IdempotencyKey: "used-key"})
	require.NoError(t, err)
	pending := e.pending(t, 1000, cardOK)

	rows := []struct {
		name, id, merchant, procName, key string
		want                              simulator.Code
	}{
		{"unknown payment and unknown account -> 404", "nope", "nope", "", "", simulator.CodePaymentNotFoundError},
		{"unknown payment -> 404", "nope", "acct_sandbox_stripe", "", "", simulator.CodePaymentNotFoundError},
		{"unknown account -> MerchantAccountNotFound", pending.ID, "nope", "", "", simulator.CodeMerchantAccountNotFound},
		{"name of another account -> MerchantAccountNotFound", pending.ID, "sandbox_adyen", "STRIPE", "", simulator.CodeMerchantAccountNotFound},
		{"authorized -> PaymentAlreadyAuthorized", authorized.ID, "acct_sandbox_stripe", "", "", simulator.CodePaymentAlreadyAuthorized},
		{"used key before status -> 409", authorized.ID, "acct_sandbox_stripe", "", "used-key", simulator.CodeIdempotencyKeyAlreadyExists},
		{"used key before existence -> 409", "nope", "acct_sandbox_stripe", "", "used-key", simulator.CodeIdempotencyKeyAlreadyExists},
		{"pending -> authorized", pending.ID, "acct_sandbox_stripe", "STRIPE", "fresh-key", ""},
		{"fresh key now used -> 409", pending.ID, "acct_sandbox_stripe", "", "fresh-key", simulator.CodeIdempotencyKeyAlreadyExists},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			p, err := e.svc.AuthorizePayment(ctx, e.t, r.id, r.merchant, r.procName, r.key)
			require.Equal(t, r.want, simulator.ErrorCode(err), "err: %v", err)
			if r.want == "" {
				assert.Equal(t, simulator.StatusAuthorized, p.Status)
				assert.Equal(t, "STRIPE", p.Processor.Name)
			}
			if r.want == simulator.CodeIdempotencyKeyAlreadyExists {
				var se *simulator.Error
				require.ErrorAs(t, err, &se)
				assert.NotEmpty(t, se.PaymentID)
				assert.NotEmpty(t, se.PaymentStatus)
			}
		})
	}
}

// stubProcessor is the card-catalogue processor with decisions replaced, as
// scenarios would make them.
type stubProcessor struct {
	*processors.Fake
	authorize func(p *simulator.Payment) simulator.AuthorizeDecision
	capture   *simulator.CaptureDecision
	refund    *simulator.RefundDecision
}

var _ simulator.Processor = (*stubProcessor)(nil)

func (s *stubProcessor) Authorize(ctx context.Context, t *simulator.Tenant, p *simulator.Payment) simulator.AuthorizeDecision {
	if s.authorize != nil {
		return s.authorize(p)
	}
	return s.Fake.Authorize(ctx, t, p)
}

func (s *stubProcessor) Capture(ctx context.Context, t *simulator.Tenant, p *simulator.Payment, amt int64) simulator.CaptureDecision {
	if s.capture != nil {
		return *s.capture
	}
	return s.Fake.Capture(ctx, t, p, amt)
}

func (s *stubProcessor) Refund(ctx context.Context, t *simulator.Tenant, p *simulator.Payment, amt int64) simulator.RefundDecision {
	if s.refund != nil {
		return *s.refund
	}
	return s.Fake.Refund(ctx, t, p, amt)
}

func newStub() *stubProcessor {
	return &stubProcessor{Fake: processors.NewFake(nil, nil)}
}

// TestServiceProcessorDecisions drives the orchestration with decisions the
// card catalogue never makes: soft decline with fallback, async settlement
// failing, a failed capture, failed and pending refunds, a gateway timeout.
func TestServiceProcessorDecisions(t *testing.T) {
	ctx := context.Background()
	accts := processors.DefaultAccounts()
	stripe, adyen := accts[0], accts[1]

	t.Run("soft decline falls back to ADYEN, whose capture settles later", func(t *testing.T) {
		stub := newStub()
		stub.authorize = func(*simulator.Payment) simulator.AuthorizeDecision {
			return simulator.AuthorizeDecision{ThreeDS: simulator.ThreeDSNone, Steps: []simulator.AuthStep{
				{Account: stripe, Status: simulator.StatusDeclined, Reason: &simulator.StatusReason{Type: "ISSUER_DECLINED", DeclineType: "SOFT_DECLINE", Code: "ISSUER_TEMPORARILY_UNAVAILABLE"}},
				{Account: adyen, Status: simulator.StatusAuthorized},
			}}
		}
		e := newSvcEnv(t, stub)
		p := e.pay(t, 4051, cardOK)
		assert.Equal(t, simulator.StatusAuthorized, p.Status)
		assert.Equal(t, "ADYEN", p.Processor.Name)
		s := sales(p)
		require.Len(t, s, 2)
		assert.Equal(t, simulator.StatusDeclined, s[0].ProcessorStatus)
		assert.Equal(t, "STRIPE", s[0].ProcessorName)
		assert.Equal(t, simulator.StatusAuthorized, s[1].ProcessorStatus)
		p, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
		require.NoError(t, err)
		assert.Equal(t, simulator.StatusSettling, p.Status)
		e.advance(t, 30*time.Second)
		assert.Equal(t, simulator.StatusSettled, e.get(t, p.ID).Status)
	})

	t.Run("SETTLING -> FAILED when the settlement fails", func(t *testing.T) {
		stub := newStub()
		stub.capture = &simulator.CaptureDecision{Status: simulator.StatusSettling, SettleAfter: time.Hour, SettleTo: simulator.StatusFailed}
		e := newSvcEnv(t, stub)
		p := e.pay(t, 7000, cardOK)
		p, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
		require.NoError(t, err)
		assert.Equal(t, simulator.StatusSettling, p.Status)
		e.advance(t, time.Hour)
		p = e.get(t, p.ID)
		assert.Equal(t, simulator.StatusFailed, p.Status)
		require.NotNil(t, p.StatusReason)
		assert.Equal(t, simulator.StatusFailed, sales(p)[0].ProcessorStatus)
	})

	t.Run("a failed capture fails the payment", func(t *testing.T) {
		stub := newStub()
		stub.capture = &simulator.CaptureDecision{Status: simulator.StatusFailed}
		e := newSvcEnv(t, stub)
		p := e.pay(t, 1000, cardOK)
		p, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
		require.NoError(t, err)
		assert.Equal(t, simulator.StatusFailed, p.Status)
		require.NotNil(t, p.StatusReason)
		assert.Equal(t, "APPLICATION_ERROR", p.StatusReason.Type)
		assert.Equal(t, int64(0), p.Processor.AmountCaptured)
	})

	t.Run("a failed refund records a FAILED REFUND and leaves amountRefunded", func(t *testing.T) {
		stub := newStub()
		stub.refund = &simulator.RefundDecision{Status: simulator.StatusFailed, Reason: &simulator.StatusReason{Type: "APPLICATION_ERROR", Code: "ERROR"}}
		e := newSvcEnv(t, stub)
		p := e.pay(t, 1000, cardOK)
		_, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
		require.NoError(t, err)
		p, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{Amount: i64(300), Reason: "returned"})
		require.NoError(t, err)
		assert.Equal(t, simulator.StatusSettled, p.Status)
		assert.Equal(t, int64(0), p.Processor.AmountRefunded)
		r := refunds(p)
		require.Len(t, r, 1)
		assert.Equal(t, simulator.StatusFailed, r[0].ProcessorStatus)
		assert.Equal(t, "returned", r[0].Reason)
		require.NotNil(t, r[0].ProcessorStatusReason)
		assert.Equal(t, int64(1000), p.Refundable(), "a failed refund takes nothing")
	})

	t.Run("a pending refund holds its amount, then settles", func(t *testing.T) {
		stub := newStub()
		stub.refund = &simulator.RefundDecision{Status: simulator.StatusPending, After: time.Minute, ResolveTo: simulator.StatusSettled}
		e := newSvcEnv(t, stub)
		p := e.pay(t, 1000, cardOK)
		_, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
		require.NoError(t, err)
		p, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{Amount: i64(700)})
		require.NoError(t, err)
		assert.Equal(t, int64(0), p.Processor.AmountRefunded, "amountRefunded grows only on success")
		_, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{Amount: i64(301)})
		assert.Equal(t, simulator.CodeUnprocessableRefundAmount, simulator.ErrorCode(err), "a pending refund holds its amount")
		e.advance(t, time.Minute)
		p = e.get(t, p.ID)
		assert.Equal(t, int64(700), p.Processor.AmountRefunded)
		assert.Equal(t, simulator.StatusSettled, refunds(p)[0].ProcessorStatus)
	})

	t.Run("a pending refund that fails frees its capture again", func(t *testing.T) {
		stub := newStub()
		stub.refund = &simulator.RefundDecision{Status: simulator.StatusPending, After: time.Minute, ResolveTo: simulator.StatusFailed}
		e := newSvcEnv(t, stub)
		p := e.pay(t, 1000, cardOK)
		p, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
		require.NoError(t, err)
		ev := captureIDs(p)[0]
		_, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{TransactionEventID: ev})
		require.NoError(t, err)
		_, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{TransactionEventID: ev})
		assert.Equal(t, simulator.CodePaymentAlreadyRefunded, simulator.ErrorCode(err))
		e.advance(t, time.Minute)
		p = e.get(t, p.ID)
		assert.Equal(t, simulator.StatusFailed, refunds(p)[0].ProcessorStatus)
		assert.Equal(t, int64(0), p.Processor.AmountRefunded)
		assert.Equal(t, int64(1000), p.Refundable())
		stub.refund = nil
		p, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{TransactionEventID: ev})
		require.NoError(t, err)
		assert.Equal(t, int64(1000), p.Processor.AmountRefunded)
	})

	t.Run("a gateway timeout answers RequestTimeout, uses the key, and resolves later", func(t *testing.T) {
		stub := newStub()
		stub.authorize = func(*simulator.Payment) simulator.AuthorizeDecision {
			return simulator.AuthorizeDecision{ThreeDS: simulator.ThreeDSNone,
				Timeout: &simulator.TimeoutDecision{ResolveTo: simulator.StatusAuthorized, After: 2 * time.Minute}}
		}
		e := newSvcEnv(t, stub)
		tk := e.tokenize(t, simulator.ApprovalAuto, 5040, cardOK)
		cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		defer cancel()
		p, err := e.svc.CreatePayment(cctx, e.t, service.PaymentRequest{Token: tk.Instrument.Token, IdempotencyKey: "k504"})
		require.Equal(t, simulator.CodeRequestTimeout, simulator.ErrorCode(err))
		require.NotNil(t, p)
		assert.Equal(t, simulator.StatusPending, e.get(t, p.ID).Status)

		tk2 := e.tokenize(t, simulator.ApprovalAuto, 100, cardOK)
		_, err = e.svc.CreatePayment(ctx, e.t, service.PaymentRequest{Token: tk2.Instrument.Token, IdempotencyKey: "k504"})
		assert.Equal(t, simulator.CodeIdempotencyKeyAlreadyExists, simulator.ErrorCode(err), "a request that got a 504 used its key")

		_, err = e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
		assert.Equal(t, simulator.CodeInvalidPaymentStatus, simulator.ErrorCode(err))
		e.advance(t, 119*time.Second)
		assert.Equal(t, simulator.StatusPending, e.get(t, p.ID).Status)
		e.advance(t, time.Second)
		assert.Equal(t, simulator.StatusAuthorized, e.get(t, p.ID).Status)
	})
}

// TestServiceApproveConverges: concurrent approvals of one attempt make one
// payment; every other caller is told which.
func TestServiceApproveConverges(t *testing.T) {
	e := newSvcEnv(t, nil)
	tk := e.tokenize(t, simulator.ApprovalManual, 1000, cardOK)
	const n = 50
	var wg sync.WaitGroup
	results := make([]service.ApproveResult, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = e.svc.ApproveAttempt(context.Background(), e.t, tk.Attempt.ID)
		}()
	}
	wg.Wait()
	ok, conflicts := 0, 0
	var pid string
	for i := range n {
		if errs[i] == nil {
			ok++
			pid = results[i].PaymentID
			continue
		}
		var se *simulator.Error
		require.ErrorAs(t, errs[i], &se)
		assert.Equal(t, simulator.CodeIdempotencyKeyAlreadyExists, se.Code)
		conflicts++
	}
	require.Equal(t, 1, ok)
	assert.Equal(t, n-1, conflicts)
	for i := range n {
		if errs[i] != nil {
			var se *simulator.Error
			require.ErrorAs(t, errs[i], &se)
			assert.Equal(t, pid, se.PaymentID)
		}
	}
	page, err := e.svc.ListPayments(e.t, simulator.PaymentQuery{Limit: 100})
	require.NoError(t, err)
	assert.Len(t, page.Payments, 1)
}

// TestServiceInt64Edges: the largest amount authorizes, captures in parts and
// refunds in full without wrapping.
func TestServiceInt64Edges(t *testing.T) {
	ctx := context.Background()
	e := newSvcEnv(t, nil)
	p := e.pay(t, math.MaxInt64, cardOK)
	require.Equal(t, simulator.StatusAuthorized, p.Status)
	p, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Amount: i64(math.MaxInt64 - 1)})
	require.NoError(t, err)
	assert.Equal(t, simulator.StatusPartiallySettled, p.Status)
	_, err = e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Amount: i64(2)})
	assert.Equal(t, simulator.CodeRequestValidationError, simulator.ErrorCode(err))
	p, err = e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{Final: true})
	require.NoError(t, err)
	assert.Equal(t, simulator.StatusSettled, p.Status)
	assert.Equal(t, int64(math.MaxInt64), p.Processor.AmountCaptured)
	p, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{Amount: i64(1)})
	require.NoError(t, err)
	p, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{})
	require.NoError(t, err)
	assert.Equal(t, int64(math.MaxInt64), p.Processor.AmountRefunded)
	_, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{})
	assert.Equal(t, simulator.CodePaymentAlreadyRefunded, simulator.ErrorCode(err))

	page, err := e.svc.ListPayments(e.t, simulator.PaymentQuery{MinAmount: i64(math.MaxInt64), Limit: 10})
	require.NoError(t, err)
	require.Len(t, page.Payments, 1)
	assert.Equal(t, p.ID, page.Payments[0].ID)
}
