package simulator

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statePayments builds a payment of 1000 in each state the machine
// distinguishes. Capture events are "cap-1" (and "cap-2").
func statePayments() map[string]func() *Payment {
	at := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	base := func(st PaymentStatus) *Payment {
		return &Payment{ID: "pay00001", Status: st, Amount: 1000, CurrencyCode: "EUR", Date: at, Transactions: []Transaction{}}
	}
	authorized := func(st PaymentStatus, captures ...int64) *Payment {
		p := base(st)
		p.Authorized = 1000
		p.Processor = &ProcessorState{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe"}
		auth := int64(1000)
		sale := Transaction{ID: "sale-1", Type: TxnSale, Amount: 1000, ProcessorStatus: st,
			Events: []TransactionEvent{{ID: "auth-1", Type: EventAuthorizationSucceeded, Amount: &auth}}}
		for i, c := range captures {
			c := c
			f := false
			sale.Events = append(sale.Events, TransactionEvent{ID: []string{"cap-1", "cap-2"}[i], Type: EventCaptureSucceeded, Amount: &c, Final: &f})
			p.Processor.AmountCaptured += c
		}
		p.Transactions = append(p.Transactions, sale)
		return p
	}
	return map[string]func() *Payment{
		"PENDING": func() *Payment { return base(StatusPending) },
		// A 3DS challenge issued and not answered yet.
		"PENDING+challenge": func() *Payment {
			p := base(StatusPending)
			p.ThreeDS = &ThreeDSState{ChallengeToken: "ch-1"}
			p.Required = &RequiredAction{Name: ActionThreeDS, ClientToken: "ch-1"}
			return p
		},
		// The shopper answered: resumeToken "rt-1" is out.
		"PENDING+answered": func() *Payment {
			p := base(StatusPending)
			p.ThreeDS = &ThreeDSState{ChallengeToken: "ch-1", Result: ThreeDSAuthSuccess, ResumeToken: "rt-1"}
			p.Required = &RequiredAction{Name: ActionThreeDS, ClientToken: "ch-1"}
			return p
		},
		// A gateway timeout in progress.
		"PENDING+timeout": func() *Payment {
			p := base(StatusPending)
			p.Timeout = &TimeoutState{ResolveTo: StatusAuthorized, ResolveAt: at.Add(2 * time.Minute)}
			return p
		},
		"AUTHORIZED": func() *Payment { return authorized(StatusAuthorized) },
		"SETTLING":   func() *Payment { return authorized(StatusSettling, 1000) },
		"PARTIALLY_SETTLED": func() *Payment {
			return authorized(StatusPartiallySettled, 400)
		},
		// A final capture closed further captures.
		"PARTIALLY_SETTLED+final": func() *Payment {
			p := authorized(StatusPartiallySettled, 400)
			p.FinalCaptured = true
			return p
		},
		"SETTLED": func() *Payment { return authorized(StatusSettled, 600, 400) },
		"SETTLED+refunded": func() *Payment {
			p := authorized(StatusSettled, 1000)
			p.Processor.AmountRefunded = 1000
			return p
		},
		"DECLINED": func() *Payment {
			p := base(StatusDeclined)
			p.StatusReason = DefaultReason(StatusDeclined)
			return p
		},
		"FAILED": func() *Payment {
			p := base(StatusFailed)
			p.StatusReason = DefaultReason(StatusFailed)
			return p
		},
		"CANCELLED": func() *Payment { return base(StatusCancelled) },
	}
}

// TestPaymentStateMachine is the one table of every payment status x action
// (docs/api.md, State machines), through the pure Check methods. amount is
// what capture and refund would take when allowed.
func TestPaymentStateMachine(t *testing.T) {
	const (
		ok       = Code("")
		invalid  = CodeInvalidPaymentStatus
		already  = CodePaymentAlreadyAuthorized
		refunded = CodePaymentAlreadyRefunded
	)
	type row struct {
		state, action string
		want          Code
		amount        int64
	}
	rows := []row{
		{"PENDING", "authorize", ok, 0},
		{"PENDING", "capture", invalid, 0},
		{"PENDING", "capture-partial", invalid, 0},
		{"PENDING", "cancel", ok, 0},
		{"PENDING", "refund", invalid, 0},
		{"PENDING", "resume", invalid, 0},

		{"PENDING+challenge", "authorize", invalid, 0},
		{"PENDING+challenge", "capture", invalid, 0},
		{"PENDING+challenge", "capture-partial", invalid, 0},
		{"PENDING+challenge", "cancel", ok, 0},
		{"PENDING+challenge", "refund", invalid, 0},
		{"PENDING+challenge", "resume", CodeRequestValidationError, 0}, // not answered: the token cannot match

		{"PENDING+answered", "authorize", invalid, 0},
		{"PENDING+answered", "capture", invalid, 0},
		{"PENDING+answered", "capture-partial", invalid, 0},
		{"PENDING+answered", "cancel", ok, 0},
		{"PENDING+answered", "refund", invalid, 0},
		{"PENDING+answered", "resume", ok, 0},

		{"PENDING+timeout", "authorize", invalid, 0},
		{"PENDING+timeout", "capture", invalid, 0},
		{"PENDING+timeout", "capture-partial", invalid, 0},
		{"PENDING+timeout", "cancel", ok, 0},
		{"PENDING+timeout", "refund", invalid, 0},
		{"PENDING+timeout", "resume", invalid, 0},

		{"AUTHORIZED", "authorize", already, 0},
		{"AUTHORIZED", "capture", ok, 1000},
		{"AUTHORIZED", "capture-partial", ok, 100},
		{"AUTHORIZED", "cancel", ok, 0},
		{"AUTHORIZED", "refund", invalid, 0},
		{"AUTHORIZED", "resume", invalid, 0},

		{"SETTLING", "authorize", invalid, 0},
		{"SETTLING", "capture", invalid, 0},
		{"SETTLING", "capture-partial", invalid, 0},
		{"SETTLING", "cancel", invalid, 0},
		{"SETTLING", "refund", invalid, 0},
		{"SETTLING", "resume", invalid, 0},

		{"PARTIALLY_SETTLED", "authorize", invalid, 0},
		{"PARTIALLY_SETTLED", "capture", ok, 600},
		{"PARTIALLY_SETTLED", "capture-partial", ok, 100},
		{"PARTIALLY_SETTLED", "cancel", invalid, 0},
		{"PARTIALLY_SETTLED", "refund", ok, 400},
		{"PARTIALLY_SETTLED", "resume", invalid, 0},

		{"PARTIALLY_SETTLED+final", "authorize", invalid, 0},
		{"PARTIALLY_SETTLED+final", "capture", invalid, 0},
		{"PARTIALLY_SETTLED+final", "capture-partial", invalid, 0},
		{"PARTIALLY_SETTLED+final", "cancel", invalid, 0},
		{"PARTIALLY_SETTLED+final", "refund", ok, 400},
		{"PARTIALLY_SETTLED+final", "resume", invalid, 0},

		{"SETTLED", "authorize", invalid, 0},
		{"SETTLED", "capture", invalid, 0},
		{"SETTLED", "capture-partial", invalid, 0},
		{"SETTLED", "cancel", invalid, 0},
		{"SETTLED", "refund", ok, 1000},
		{"SETTLED", "resume", invalid, 0},

		{"SETTLED+refunded", "authorize", invalid, 0},
		{"SETTLED+refunded", "capture", invalid, 0},
		{"SETTLED+refunded", "capture-partial", invalid, 0},
		{"SETTLED+refunded", "cancel", invalid, 0},
		{"SETTLED+refunded", "refund", refunded, 0},
		{"SETTLED+refunded", "resume", invalid, 0},
	}
	for _, st := range []string{"DECLINED", "FAILED", "CANCELLED"} {
		for _, act := range []string{"authorize", "capture", "capture-partial", "cancel", "refund", "resume"} {
			rows = append(rows, row{st, act, invalid, 0})
		}
	}

	states := statePayments()
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.state+"/"+r.action] = true
		name := r.state + "/" + r.action + "->" + string(r.want)
		if r.want == ok {
			name = r.state + "/" + r.action + "->ok"
		}
		t.Run(name, func(t *testing.T) {
			mk, found := states[r.state]
			require.True(t, found, "unknown state %s", r.state)
			p := mk()
			before := mk() // the same state, built again
			var err error
			var amount int64
			switch r.action {
			case "authorize":
				err = p.CheckAuthorize()
			case "capture":
				amount, err = p.CheckCapture(nil)
			case "capture-partial":
				hundred := int64(100)
				amount, err = p.CheckCapture(&hundred)
			case "cancel":
				err = p.CheckCancel()
			case "refund":
				amount, err = p.CheckRefund(nil, "")
			case "resume":
				err = p.CheckResume("rt-1")
			default:
				t.Fatalf("unknown action %s", r.action)
			}
			require.Equal(t, r.want, ErrorCode(err), "error: %v", err)
			assert.Equal(t, r.amount, amount)
			assert.Equal(t, before, p, "a check never changes the payment")
			var e *Error
			if errors.As(err, &e) && (e.Code == invalid || e.Code == already || e.Code == refunded) {
				assert.Equal(t, p.ID, e.PaymentID, "status errors name the payment")
				assert.Equal(t, string(p.Status), e.PaymentStatus)
			}
		})
	}
	for name := range states {
		for _, act := range []string{"authorize", "capture", "capture-partial", "cancel", "refund", "resume"} {
			assert.True(t, covered[name+"/"+act], "state x action %s/%s has no row", name, act)
		}
	}
	for _, st := range PaymentStatuses {
		_, found := states[string(st)]
		assert.True(t, found, "status %s has no state in the table", st)
	}
}

// TestPaymentAmountRules pins the amount rules of capture and refund,
// including targeted refunds and the int64 edges (nothing may overflow).
func TestPaymentAmountRules(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	const refunded = CodePaymentAlreadyRefunded
	max := int64(math.MaxInt64)
	states := statePayments()
	huge := func(captured int64) *Payment {
		p := states["AUTHORIZED"]()
		p.Amount, p.Authorized = max, max
		p.Transactions[0].Amount = max
		if captured > 0 {
			p.Status = StatusPartiallySettled
			p.Processor.AmountCaptured = captured
			p.Transactions[0].Events = append(p.Transactions[0].Events, TransactionEvent{ID: "cap-1", Type: EventCaptureSucceeded, Amount: i64(captured)})
		}
		return p
	}
	type row struct {
		name   string
		p      func() *Payment
		run    func(p *Payment) (int64, error)
		want   Code
		path   string // the 422's field path
		amount int64
	}
	capture := func(a *int64) func(p *Payment) (int64, error) {
		return func(p *Payment) (int64, error) { return p.CheckCapture(a) }
	}
	refund := func(a *int64, ev string) func(p *Payment) (int64, error) {
		return func(p *Payment) (int64, error) { return p.CheckRefund(a, ev) }
	}
	rows := []row{
		{"capture 0", states["AUTHORIZED"], capture(i64(0)), CodeRequestValidationError, "$.amount", 0},
		{"capture negative", states["AUTHORIZED"], capture(i64(-1)), CodeRequestValidationError, "$.amount", 0},
		{"capture all", states["AUTHORIZED"], capture(i64(1000)), "", "", 1000},
		{"capture above authorized", states["AUTHORIZED"], capture(i64(1001)), CodeRequestValidationError, "$.amount", 0},
		{"capture above what is left", states["PARTIALLY_SETTLED"], capture(i64(601)), CodeRequestValidationError, "$.amount", 0},
		{"capture what is left", states["PARTIALLY_SETTLED"], capture(i64(600)), "", "", 600},
		{"capture max int64", func() *Payment { return huge(0) }, capture(nil), "", "", max},
		{"capture max int64 explicitly", func() *Payment { return huge(0) }, capture(i64(max)), "", "", max},
		{"capture rest after max-1", func() *Payment { return huge(max - 1) }, capture(nil), "", "", 1},
		{"capture 2 after max-1", func() *Payment { return huge(max - 1) }, capture(i64(2)), CodeRequestValidationError, "$.amount", 0},
		{"capture max after 1", func() *Payment { return huge(1) }, capture(i64(max)), CodeRequestValidationError, "$.amount", 0},

		{"refund 0", states["SETTLED"], refund(i64(0), ""), CodeRequestValidationError, "$.amount", 0},
		{"refund above captured", states["SETTLED"], refund(i64(1001), ""), CodeUnprocessableRefundAmount, "", 0},
		{"refund all", states["SETTLED"], refund(i64(1000), ""), "", "", 1000},
		{"refund targeted default", states["SETTLED"], refund(nil, "cap-2"), "", "", 400},
		{"refund targeted", states["SETTLED"], refund(i64(400), "cap-2"), "", "", 400},
		{"refund targeted above that capture", states["SETTLED"], refund(i64(401), "cap-2"), CodeUnprocessableRefundAmount, "", 0},
		{"refund unknown event", states["SETTLED"], refund(nil, "00000000-0000-4000-8000-999999999999"), CodeRequestValidationError, "$.transactionEventId", 0},
		{"refund the authorization event", states["SETTLED"], refund(nil, "auth-1"), CodeRequestValidationError, "$.transactionEventId", 0},
		{"refund a refunded capture", func() *Payment {
			p := states["SETTLED"]()
			p.Transactions[0].Events[2].Refunded = 400
			p.Processor.AmountRefunded = 400
			return p
		}, refund(nil, "cap-2"), refunded, "", 0},
		{"refund counts pending refunds", func() *Payment {
			p := states["SETTLED"]()
			p.Transactions = append(p.Transactions, Transaction{Type: TxnRefund, Amount: 900, ProcessorStatus: StatusPending})
			return p
		}, refund(nil, ""), "", "", 100},
		{"refund max int64", func() *Payment {
			p := huge(max)
			p.Status = StatusSettled
			return p
		}, refund(nil, ""), "", "", max},
		{"refund 1 above max int64 left", func() *Payment {
			p := huge(max)
			p.Status = StatusSettled
			p.Processor.AmountRefunded = 1
			return p
		}, refund(i64(max), ""), CodeUnprocessableRefundAmount, "", 0},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			amount, err := r.run(r.p())
			require.Equal(t, r.want, ErrorCode(err), "error: %v", err)
			assert.Equal(t, r.amount, amount)
			if r.path != "" {
				var e *Error
				require.ErrorAs(t, err, &e)
				require.Len(t, e.Fields, 1)
				assert.Equal(t, r.path, e.Fields[0].Path)
			}
		})
	}
}
