package simulator

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// actionNames are the actions Payment.Actions answers, in its field order.
var actionNames = []string{"capture", "cancel", "refund", "settle", "dispute", "3ds"}

// checkAction runs the Check method behind one of actionNames.
func checkAction(p *Payment, action string) error {
	switch action {
	case "capture":
		_, err := p.CheckCapture(nil)
		return err
	case "cancel":
		return p.CheckCancel()
	case "refund":
		_, err := p.CheckRefund(nil, "")
		return err
	case "settle":
		return p.CheckSettle()
	case "dispute":
		return p.CheckDispute()
	case "3ds":
		return p.CheckChallenge()
	}
	panic("unknown action " + action)
}

// allowedBy reads one of actionNames from an Actions.
func allowedBy(a Actions, action string) bool {
	return map[string]bool{"capture": a.Capture, "cancel": a.Cancel, "refund": a.Refund,
		"settle": a.Settle, "dispute": a.Dispute, "3ds": a.ThreeDS}[action]
}

// TestPaymentActions is every state x action of Payment.Actions: the action is
// allowed iff its Check returns nil, and the table pins each Check's code.
func TestPaymentActions(t *testing.T) {
	const (
		ok       = Code("")
		invalid  = CodeInvalidPaymentStatus
		refunded = CodePaymentAlreadyRefunded
	)
	// want lists the states whose action is not InvalidPaymentStatus.
	want := map[string]map[string]Code{
		"capture": {"AUTHORIZED": ok, "PARTIALLY_SETTLED": ok},
		"cancel":  {"PENDING": ok, "PENDING+challenge": ok, "PENDING+answered": ok, "PENDING+timeout": ok, "AUTHORIZED": ok},
		"refund":  {"PARTIALLY_SETTLED": ok, "PARTIALLY_SETTLED+final": ok, "SETTLED": ok, "SETTLED+refunded": refunded},
		"settle":  {"SETTLING": ok},
		"dispute": {"AUTHORIZED": ok, "SETTLING": ok, "PARTIALLY_SETTLED": ok, "PARTIALLY_SETTLED+final": ok, "SETTLED": ok, "SETTLED+refunded": ok},
		"3ds":     {"PENDING+challenge": ok, "PENDING+answered": ok},
	}
	amounts := map[string]Actions{ // Capturable and Refundable where allowed
		"AUTHORIZED":              {Capturable: 1000},
		"PARTIALLY_SETTLED":       {Capturable: 600, Refundable: 400},
		"PARTIALLY_SETTLED+final": {Refundable: 400},
		"SETTLED":                 {Refundable: 1000},
	}
	states := statePayments()
	require.Len(t, states, 13, "a state was added: give it its rows")
	for state, mk := range states {
		for _, action := range actionNames {
			code, listed := want[action][state]
			if !listed {
				code = invalid
			}
			name := state + "/" + action + "->" + string(code)
			if code == ok {
				name = state + "/" + action + "->ok"
			}
			t.Run(name, func(t *testing.T) {
				p := mk()
				before := mk() // the same state, built again
				err := checkAction(p, action)
				require.Equal(t, code, ErrorCode(err), "error: %v", err)
				a := p.Actions()
				assert.Equal(t, code == ok, allowedBy(a, action), "Actions agrees with the Check")
				assert.Equal(t, amounts[state].Capturable, a.Capturable)
				assert.Equal(t, amounts[state].Refundable, a.Refundable)
				assert.Equal(t, a.Capture || a.Cancel || a.Refund || a.Settle || a.Dispute || a.ThreeDS, a.Any())
				assert.Equal(t, before, p, "neither a check nor Actions changes the payment")
				var e *Error
				if errors.As(err, &e) {
					assert.Equal(t, p.ID, e.PaymentID, "status errors name the payment")
					assert.Equal(t, string(p.Status), e.PaymentStatus)
				}
			})
		}
	}
}

// TestCheckDispute pins the refusal the dispute use case returns, word for word.
func TestCheckDispute(t *testing.T) {
	states := statePayments()
	cases := []struct {
		state string
		want  string // "" allows
	}{
		{"PENDING", "A pending payment cannot be disputed"},
		{"PENDING+challenge", "A pending payment cannot be disputed"},
		{"AUTHORIZED", ""},
		{"SETTLING", ""},
		{"PARTIALLY_SETTLED", ""},
		{"SETTLED", ""},
		{"SETTLED+refunded", ""},
		{"DECLINED", "A declined payment cannot be disputed"},
		{"FAILED", "A failed payment cannot be disputed"},
		{"CANCELLED", "A cancelled payment cannot be disputed"},
	}
	for _, tc := range cases {
		name := tc.state + "/dispute->ok"
		if tc.want != "" {
			name = tc.state + "/dispute->" + string(CodeInvalidPaymentStatus)
		}
		t.Run(name, func(t *testing.T) {
			err := states[tc.state]().CheckDispute()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, CodeInvalidPaymentStatus, e.Code)
			assert.Equal(t, tc.want, e.Message)
		})
	}
}

// TestCheckChallengeAnswer is every state x token of the shopper's answer to
// a 3DS challenge: only a PENDING payment with the challenge issued under
// the token takes it.
func TestCheckChallengeAnswer(t *testing.T) {
	states := statePayments()
	takes := map[string]bool{"PENDING+challenge": true, "PENDING+answered": true} // issued with "ch-1"
	for state, mk := range states {
		for _, token := range []string{"ch-1", "ch-2", ""} {
			want := CodeClientSessionValidationError
			if takes[state] && token == "ch-1" {
				want = ""
			}
			name := state + "/answer(" + token + ")->" + string(want)
			if want == "" {
				name = state + "/answer(" + token + ")->ok"
			}
			t.Run(name, func(t *testing.T) {
				p := mk()
				before := mk() // the same state, built again
				assert.Equal(t, want, ErrorCode(p.CheckChallengeAnswer(token)))
				assert.Equal(t, before, p, "the check changes nothing")
			})
		}
	}
}

// TestActionsWhereTheDashboardDiffered pins the kernel's answer in each case
// where the dashboard's own copy of the rules answered otherwise.
func TestActionsWhereTheDashboardDiffered(t *testing.T) {
	states := statePayments()
	full := func(st PaymentStatus) func() *Payment { // MaxTransactions captures, room left to capture and refund
		return func() *Payment {
			p := states["PARTIALLY_SETTLED"]()
			p.Status = st
			p.Authorized, p.Amount = 10*MaxTransactions, 10*MaxTransactions
			sale := &p.Transactions[0]
			sale.Events = sale.Events[:1]
			p.Processor.AmountCaptured = 0
			for range MaxTransactions {
				one := int64(1)
				sale.Events = append(sale.Events, TransactionEvent{ID: "cap", Type: EventCaptureSucceeded, Amount: &one})
				p.Processor.AmountCaptured++
			}
			return p
		}
	}
	cases := []struct {
		name   string
		p      func() *Payment
		action string
		want   bool // the kernel's answer; the dashboard answered !want
	}{
		// CheckCancel allows PENDING; the dashboard offered cancel on AUTHORIZED only.
		{"PENDING/cancel->ok", states["PENDING"], "cancel", true},
		{"PENDING+challenge/cancel->ok", states["PENDING+challenge"], "cancel", true},
		{"PENDING+answered/cancel->ok", states["PENDING+answered"], "cancel", true},
		{"PENDING+timeout/cancel->ok", states["PENDING+timeout"], "cancel", true},
		// MaxTransactions: the dashboard offered capture and refund that the API refuses with a 422.
		{"PARTIALLY_SETTLED+full/capture->RequestValidationError", full(StatusPartiallySettled), "capture", false},
		{"PARTIALLY_SETTLED+full/refund->RequestValidationError", full(StatusPartiallySettled), "refund", false},
		// CheckCapture allows a non-final PARTIALLY_SETTLED payment with nothing
		// left (a capture of 0); the dashboard hid it. The service never
		// reaches this state: a capture that reaches Authorized settles.
		{"PARTIALLY_SETTLED+nothing-left/capture->ok", func() *Payment {
			p := states["PARTIALLY_SETTLED"]()
			p.Authorized = p.Captured()
			return p
		}, "capture", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p()
			assert.Equal(t, tc.want, allowedBy(p.Actions(), tc.action))
			if !tc.want {
				assert.Equal(t, CodeRequestValidationError, ErrorCode(checkAction(p, tc.action)))
			}
		})
	}
}
