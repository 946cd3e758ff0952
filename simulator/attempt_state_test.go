package simulator

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attemptHTTP is the status each attempt error answers with (httpapi's table;
// the domain cannot import it). 200 means no error.
var attemptHTTP = map[Code]int{
	"":                                  200,
	CodeClientSessionNotManual:          409,
	CodeIdempotencyKeyAlreadyExists:     409,
	CodeInvalidPaymentAttemptTransition: 409,
	CodePaymentAttemptExpired:           410,
}

// TestAttemptStateMachine is the one table of every attempt state x trigger:
// approve (CheckApprove), abort (CheckAbort), expire (the control plane's
// Expire) and lapse (the TTL, Lapse). docs/api.md, State machines.
func TestAttemptStateMachine(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	const id, other = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"

	type fixture struct {
		a  Attempt
		cs ClientSession
		p  *Payment // the attempt's payment, if any
	}
	awaiting := func(current string, expiresAt time.Time) fixture {
		return fixture{
			a:  Attempt{ID: id, SessionID: "cs1", Status: AttemptAwaiting, CreatedAt: now.Add(-time.Minute), ExpiresAt: expiresAt},
			cs: ClientSession{ID: "cs1", ApprovalMode: ApprovalManual, CurrentAttemptID: current},
		}
	}
	states := map[string]func() fixture{
		"awaiting":   func() fixture { return awaiting(id, now.Add(14*time.Minute)) },
		"superseded": func() fixture { return awaiting(other, now.Add(14*time.Minute)) },
		"approved": func() fixture {
			f := awaiting(id, now.Add(14*time.Minute))
			f.a.Status, f.a.PaymentID = AttemptApproved, "pay00001"
			f.p = &Payment{ID: "pay00001", Status: StatusAuthorized}
			return f
		},
		"aborted": func() fixture {
			f := awaiting(id, now.Add(14*time.Minute))
			f.a.Status = AttemptAborted
			return f
		},
		"expired": func() fixture {
			f := awaiting(id, now.Add(-time.Minute))
			f.a.Status = AttemptExpired
			return f
		},
		// Awaiting in the store, but its TTL passed before the expiry job ran.
		"lapsed": func() fixture { return awaiting(id, now) },
		// Superseded and past its TTL: expiry is checked before currency.
		"superseded-lapsed": func() fixture { return awaiting(other, now.Add(-time.Second)) },
		// ClientSessionNotManual cannot occur over HTTP (attempts exist only
		// in MANUAL sessions); the check stays and is pinned here. It comes
		// before every other check, expiry included.
		"auto-session": func() fixture {
			f := awaiting(id, now.Add(14*time.Minute))
			f.cs.ApprovalMode = ApprovalAuto
			return f
		},
		"auto-session-lapsed": func() fixture {
			f := awaiting(id, now.Add(-time.Second))
			f.cs.ApprovalMode = ApprovalAuto
			return f
		},
	}

	type row struct {
		state, trigger string
		want           Code          // approve, abort, expire
		after          AttemptStatus // status after the trigger
		changed        bool          // lapse only
	}
	rows := []row{
		{"awaiting", "approve", "", AttemptAwaiting, false},
		{"awaiting", "abort", "", AttemptAwaiting, false},
		{"awaiting", "expire", "", AttemptExpired, false},
		{"awaiting", "lapse", "", AttemptAwaiting, false},

		{"superseded", "approve", CodeInvalidPaymentAttemptTransition, AttemptAwaiting, false},
		{"superseded", "abort", "", AttemptAwaiting, false},
		{"superseded", "expire", "", AttemptExpired, false},
		{"superseded", "lapse", "", AttemptAwaiting, false},

		{"approved", "approve", CodeIdempotencyKeyAlreadyExists, AttemptApproved, false},
		{"approved", "abort", CodeInvalidPaymentAttemptTransition, AttemptApproved, false},
		{"approved", "expire", CodeInvalidPaymentAttemptTransition, AttemptApproved, false},
		{"approved", "lapse", "", AttemptApproved, false},

		{"aborted", "approve", CodeInvalidPaymentAttemptTransition, AttemptAborted, false},
		{"aborted", "abort", CodeInvalidPaymentAttemptTransition, AttemptAborted, false},
		{"aborted", "expire", CodeInvalidPaymentAttemptTransition, AttemptAborted, false},
		{"aborted", "lapse", "", AttemptAborted, false},

		{"expired", "approve", CodePaymentAttemptExpired, AttemptExpired, false},
		{"expired", "abort", CodePaymentAttemptExpired, AttemptExpired, false},
		{"expired", "expire", "", AttemptExpired, false},
		{"expired", "lapse", "", AttemptExpired, false},

		{"lapsed", "approve", CodePaymentAttemptExpired, AttemptExpired, false},
		{"lapsed", "abort", CodePaymentAttemptExpired, AttemptExpired, false},
		{"lapsed", "expire", "", AttemptExpired, false},
		{"lapsed", "lapse", "", AttemptExpired, true},

		{"superseded-lapsed", "approve", CodePaymentAttemptExpired, AttemptExpired, false},
		{"superseded-lapsed", "abort", CodePaymentAttemptExpired, AttemptExpired, false},
		{"superseded-lapsed", "expire", "", AttemptExpired, false},
		{"superseded-lapsed", "lapse", "", AttemptExpired, true},

		{"auto-session", "approve", CodeClientSessionNotManual, AttemptAwaiting, false},
		{"auto-session-lapsed", "approve", CodeClientSessionNotManual, AttemptExpired, false},
	}

	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.state+"/"+r.trigger] = true
		outcome := fmt.Sprint(attemptHTTP[r.want])
		if r.trigger == "lapse" {
			outcome = string(r.after)
		}
		t.Run(r.state+"/"+r.trigger+"->"+outcome, func(t *testing.T) {
			mk, ok := states[r.state]
			require.True(t, ok, "unknown state %s", r.state)
			f := mk()
			var err error
			switch r.trigger {
			case "approve":
				err = f.a.CheckApprove(&f.cs, f.p, now)
			case "abort":
				err = f.a.CheckAbort(now)
			case "expire":
				err = f.a.Expire(now)
			case "lapse":
				assert.Equal(t, r.changed, f.a.Lapse(now), "changed")
			default:
				t.Fatalf("unknown trigger %s", r.trigger)
			}
			assert.Equal(t, r.want, ErrorCode(err), "error: %v", err)
			if err != nil {
				_, known := attemptHTTP[ErrorCode(err)]
				assert.True(t, known, "unexpected code %s", ErrorCode(err))
			}
			assert.Equal(t, r.after, f.a.Status)
			if r.want == CodeIdempotencyKeyAlreadyExists {
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "pay00001", e.PaymentID)
				assert.Equal(t, "AUTHORIZED", e.PaymentStatus)
			}
			if r.trigger == "expire" && r.want == "" {
				assert.False(t, f.a.ExpiresAt.After(now), "an expired attempt's expiresAt is not in the future")
			}
		})
	}
	for _, st := range []string{"awaiting", "superseded", "approved", "aborted", "expired", "lapsed"} {
		for _, tr := range []string{"approve", "abort", "expire", "lapse"} {
			assert.True(t, covered[st+"/"+tr], "state x trigger %s/%s has no row", st, tr)
		}
	}
}

// TestAttemptApproveWithoutSession: a session that vanished counts as not
// MANUAL (the check must not dereference nil).
func TestAttemptApproveWithoutSession(t *testing.T) {
	now := time.Now()
	a := Attempt{ID: "a", Status: AttemptAwaiting, ExpiresAt: now.Add(time.Minute)}
	assert.Equal(t, CodeClientSessionNotManual, ErrorCode(a.CheckApprove(nil, nil, now)))
}

// TestAttemptApprovedWithoutPaymentRecord: the 409 still names the payment
// when its record is not at hand (status unknown).
func TestAttemptApprovedWithoutPaymentRecord(t *testing.T) {
	now := time.Now()
	a := Attempt{ID: "a", Status: AttemptApproved, PaymentID: "pay1", ExpiresAt: now.Add(time.Minute)}
	err := a.CheckApprove(&ClientSession{ApprovalMode: ApprovalManual, CurrentAttemptID: "a"}, nil, now)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeIdempotencyKeyAlreadyExists, e.Code)
	assert.Equal(t, "pay1", e.PaymentID)
	assert.Empty(t, e.PaymentStatus)
}
