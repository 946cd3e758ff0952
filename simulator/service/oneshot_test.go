package service_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// next is the tenant's pending one-shot as {rule, remaining} (zero: none).
func (e *svcEnv) next(tb testing.TB) simulator.OneShot {
	tb.Helper()
	o, err := e.svc.NextScenario(e.t)
	require.NoError(tb, err)
	if o == nil {
		return simulator.OneShot{}
	}
	return *o
}

// setNext sets the one-shot and reads the tenant again, as the HTTP layer
// does for each request (CreatePayment goes by the tenant it is given).
func (e *svcEnv) setNext(tb testing.TB, rule string, times int64) {
	tb.Helper()
	_, err := e.svc.SetNextScenario(e.t, rule, times)
	require.NoError(tb, err)
	e.t, err = e.svc.Tenant(e.t.ID)
	require.NoError(tb, err)
}

// payWith creates a payment of 1000 with a good card and the request fields given.
func (e *svcEnv) payWith(tb testing.TB, req service.PaymentRequest) (*simulator.Payment, error) {
	tb.Helper()
	tk := e.tokenize(tb, simulator.ApprovalAuto, 1000, cardOK)
	req.Token = tk.Instrument.Token
	return e.svc.CreatePayment(context.Background(), e.t, req)
}

// TestOneShot: a pending one-shot decides the tenant's next created payments
// whatever their card or amount, is taken only by payments that are created
// and name no rule themselves, and then the normal rules resume.
func TestOneShot(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, e *svcEnv)
	}{
		{"takes the rule N times, then the rules resume", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 2)
			var got []simulator.PaymentStatus
			for range 3 {
				got = append(got, e.pay(t, 1000, cardOK).Status)
			}
			assert.Equal(t, []simulator.PaymentStatus{simulator.StatusDeclined, simulator.StatusDeclined, simulator.StatusAuthorized}, got)
			assert.Equal(t, simulator.OneShot{}, e.next(t), "nothing pending afterwards")
		}},
		{"the payment records the rule and why", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 1)
			p := e.pay(t, 1000, cardOK)
			assert.Equal(t, "generic-decline", p.OneShot)
			assert.Equal(t, "generic-decline", p.Rule)
			ex, err := e.svc.ExplainPayment(e.t, p.ID)
			require.NoError(t, err)
			require.NotNil(t, ex.Matched)
			assert.Equal(t, "generic-decline", *ex.Matched)
			assert.Contains(t, ex.Reason, "one-shot")
		}},
		{"metadata.sandboxScenario wins and takes none of it", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 1)
			p, err := e.payWith(t, service.PaymentRequest{Metadata: map[string]any{"sandboxScenario": "insufficient-funds"}})
			require.NoError(t, err)
			assert.Equal(t, "insufficient-funds", p.Rule)
			assert.Empty(t, p.OneShot)
			assert.Equal(t, simulator.OneShot{Rule: "generic-decline", Remaining: 1}, e.next(t))
		}},
		{"a refused request takes nothing", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 1)
			_, err := e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: "no-such-token"})
			assert.Equal(t, simulator.CodeInvalidPaymentInstrumentToken, simulator.ErrorCode(err))
			_, err = e.payWith(t, service.PaymentRequest{Metadata: map[string]any{"sandboxScenario": "no-such-rule"}})
			assert.Equal(t, simulator.CodeRequestValidationError, simulator.ErrorCode(err))
			assert.Equal(t, simulator.OneShot{Rule: "generic-decline", Remaining: 1}, e.next(t))
		}},
		{"an idempotent replay takes nothing", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 2)
			first, err := e.payWith(t, service.PaymentRequest{IdempotencyKey: "k-1"})
			require.NoError(t, err)
			assert.Equal(t, simulator.StatusDeclined, first.Status)
			_, err = e.payWith(t, service.PaymentRequest{IdempotencyKey: "k-1"})
			assert.Equal(t, simulator.CodeIdempotencyKeyAlreadyExists, simulator.ErrorCode(err))
			assert.Equal(t, simulator.OneShot{Rule: "generic-decline", Remaining: 1}, e.next(t))
		}},
		{"a used token takes nothing", func(t *testing.T, e *svcEnv) {
			tk := e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
			_, err := e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tk.Instrument.Token})
			require.NoError(t, err)
			e.setNext(t, "generic-decline", 1)
			_, err = e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tk.Instrument.Token})
			require.Error(t, err)
			assert.Equal(t, simulator.OneShot{Rule: "generic-decline", Remaining: 1}, e.next(t))
		}},
		{"a payment made by approving an attempt takes it", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 1)
			p := e.pending(t, 1000, cardOK)
			assert.Equal(t, "generic-decline", p.OneShot)
			assert.Equal(t, simulator.OneShot{}, e.next(t))
			e.advance(t, 1) // the background authorization runs
			assert.Equal(t, simulator.StatusDeclined, e.get(t, p.ID).Status)
		}},
		{"a deferred decision (gateway timeout) takes it", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "gateway-timeout", 1)
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // no request deadline to hold: answer at once
			tk := e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
			_, err := e.svc.CreatePayment(ctx, e.t, service.PaymentRequest{Token: tk.Instrument.Token, OrderID: "order-timeout"})
			assert.Equal(t, simulator.CodeRequestTimeout, simulator.ErrorCode(err))
			page, err := e.svc.ListPayments(e.t, simulator.PaymentQuery{Limit: 1})
			require.NoError(t, err)
			require.Len(t, page.Payments, 1)
			assert.Equal(t, "gateway-timeout", page.Payments[0].OneShot)
			assert.Equal(t, simulator.StatusPending, page.Payments[0].Status)
			assert.Equal(t, simulator.OneShot{}, e.next(t))
		}},
		{"POST replaces what is pending", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 5)
			e.setNext(t, "generic-fail", 1)
			assert.Equal(t, simulator.OneShot{Rule: "generic-fail", Remaining: 1}, e.next(t))
			assert.Equal(t, simulator.StatusFailed, e.pay(t, 1000, cardOK).Status)
			assert.Equal(t, simulator.StatusAuthorized, e.pay(t, 1000, cardOK).Status)
		}},
		{"clear and reset drop it", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 3)
			require.NoError(t, e.svc.ClearNextScenario(e.t))
			assert.Equal(t, simulator.OneShot{}, e.next(t))
			e.setNext(t, "generic-decline", 3)
			require.NoError(t, e.svc.ResetTenant(e.t))
			assert.Equal(t, simulator.OneShot{}, e.next(t))
			assert.Equal(t, simulator.StatusAuthorized, e.pay(t, 1000, cardOK).Status)
		}},
		{"rules that drop its rule drop it; rules that keep it keep it", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 2)
			_, err := e.svc.PutScenarios(e.t, []byte("version: 1\nrules:\n  - name: generic-decline\n    when: { amount: 1 }\n    authorize: { status: DECLINED }\n"))
			require.NoError(t, err)
			assert.Equal(t, simulator.OneShot{Rule: "generic-decline", Remaining: 2}, e.next(t))
			_, err = e.svc.PutScenarios(e.t, []byte("version: 1\nrules:\n  - name: other\n    when: { amount: 1 }\n    authorize: { status: DECLINED }\n"))
			require.NoError(t, err)
			assert.Equal(t, simulator.OneShot{}, e.next(t))
		}},
		{"explain shows it and what the next payment would get", func(t *testing.T, e *svcEnv) {
			e.setNext(t, "generic-decline", 2)
			ex, err := e.svc.ExplainScenario(e.t, service.ExplainRequest{Card: cardOK, Amount: i64(1000), CurrencyCode: "EUR"})
			require.NoError(t, err)
			require.NotNil(t, ex.Matched)
			assert.Equal(t, "generic-decline", *ex.Matched)
			assert.Equal(t, &simulator.OneShot{Rule: "generic-decline", Remaining: 2}, ex.Next)
			ex, err = e.svc.ExplainScenario(e.t, service.ExplainRequest{Card: cardOK, Amount: i64(1000), Metadata: map[string]any{"sandboxScenario": "generic-fail"}})
			require.NoError(t, err)
			assert.Equal(t, "generic-fail", *ex.Matched, "a named rule wins over the one-shot")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newSvcEnv(t, nil)) })
	}
}

// TestOneShotChecks: the rule must be a rule in force (the answer lists
// them) and times is 1 to 100; nothing is stored otherwise.
func TestOneShotChecks(t *testing.T) {
	tests := []struct {
		name  string
		rule  string
		times int64
		paths []string
		has   string
	}{
		{"unknown rule lists the names", "nope", 1, []string{"$.rule"}, "generic-decline, generic-fail"},
		{"missing rule", "", 1, []string{"$.rule"}, "the rules are: expired-card, generic-decline"},
		{"times 0", "generic-decline", 0, []string{"$.times"}, "from 1 to 100"},
		{"times 101", "generic-decline", 101, []string{"$.times"}, "from 1 to 100"},
		{"both at once", "nope", -1, []string{"$.rule", "$.times"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newSvcEnv(t, nil)
			_, err := e.svc.SetNextScenario(e.t, tc.rule, tc.times)
			var se *simulator.Error
			require.ErrorAs(t, err, &se)
			assert.Equal(t, simulator.CodeRequestValidationError, se.Code)
			var paths []string
			for _, f := range se.Fields {
				paths = append(paths, f.Path)
				if tc.has != "" {
					assert.Contains(t, f.Description, tc.has)
				}
			}
			assert.Equal(t, tc.paths, paths)
			assert.Equal(t, simulator.OneShot{}, e.next(t))
		})
	}
	t.Run("times 1 and 100 are fine", func(t *testing.T) {
		e := newSvcEnv(t, nil)
		e.setNext(t, "generic-decline", 1)
		e.setNext(t, "generic-decline", 100)
		assert.Equal(t, simulator.OneShot{Rule: "generic-decline", Remaining: 100}, e.next(t))
	})
}

// TestOneShotConcurrent: many payments created at once with times=3: exactly
// three take the rule, every other one follows the normal rules.
func TestOneShotConcurrent(t *testing.T) {
	e := newSvcEnv(t, nil)
	const n = 40
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK).Instrument.Token
	}
	e.setNext(t, "generic-decline", 3)
	statuses := make([]simulator.PaymentStatus, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			p, err := e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tokens[i]})
			errs[i] = err
			if err == nil {
				statuses[i] = p.Status
			}
		}()
	}
	close(start)
	wg.Wait()
	count := map[simulator.PaymentStatus]int{}
	for i := range n {
		require.NoError(t, errs[i])
		count[statuses[i]]++
	}
	assert.Equal(t, map[simulator.PaymentStatus]int{simulator.StatusDeclined: 3, simulator.StatusAuthorized: n - 3}, count)
	assert.Equal(t, simulator.OneShot{}, e.next(t))
	page, err := e.svc.ListPayments(e.t, simulator.PaymentQuery{Limit: 100})
	require.NoError(t, err)
	took := 0
	for _, p := range page.Payments {
		if p.OneShot != "" {
			took++
			assert.Equal(t, simulator.StatusDeclined, p.Status)
		}
	}
	assert.Equal(t, 3, took, "the stored payments agree")
}

// TestOneShotConcurrentSameKey: requests racing with one idempotency key make
// one payment, and only it takes the one-shot (the 409s take nothing).
func TestOneShotConcurrentSameKey(t *testing.T) {
	e := newSvcEnv(t, nil)
	const n = 20
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK).Instrument.Token
	}
	e.setNext(t, "generic-decline", 3)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tokens[i], IdempotencyKey: "same"})
		}()
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		assert.Equal(t, simulator.CodeIdempotencyKeyAlreadyExists, simulator.ErrorCode(err))
	}
	assert.Equal(t, 1, ok)
	assert.Equal(t, simulator.OneShot{Rule: "generic-decline", Remaining: 2}, e.next(t))
}
