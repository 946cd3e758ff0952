package httpapi_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
)

// manualSession makes a MANUAL session: amount 1000 EUR, order-1, cust-1
// unless fields say otherwise (a nil value removes a field).
func manualSession(a *testAPI, fields map[string]any) string {
	a.t.Helper()
	body := plainSession(1000)
	body["approvalMode"] = "MANUAL"
	for k, v := range fields {
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	return a.session(body)
}

// newAttempt tokenises number in the MANUAL session ct: the attempt and its token.
func newAttempt(a *testAPI, ct, number string) (string, string) {
	a.t.Helper()
	r := a.tokenize(ct, number)
	id := r.Str("paymentAttemptId")
	require.Len(a.t, id, 36, "a MANUAL session's tokenisation makes an attempt: %s", r.Body)
	return id, r.Str("token")
}

// freshAttempt is newAttempt in a new MANUAL session.
func freshAttempt(a *testAPI, number string) string {
	a.t.Helper()
	id, _ := newAttempt(a, manualSession(a, nil), number)
	return id
}

func attApprove(a *testAPI, id string) *resp {
	return a.req("POST", "/payment-attempts/"+id+"/approve", nil)
}
func attAbort(a *testAPI, id string) *resp {
	return a.req("POST", "/payment-attempts/"+id+"/abort", nil)
}
func attGet(a *testAPI, id string) *resp {
	return a.req("GET", "/_sandbox/payment-attempts/"+id, nil, "X-API-VERSION:")
}

// runDueNow runs every job due now: when it returns, the background
// authorization of an approved attempt has run (the scheduler and a clock
// advance serialise per tenant).
func runDueNow(a *testAPI) {
	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1ns"}) // 0 is refused; 1ns stays within the microsecond
}

// TestAttemptApprove: the manual-approval flow end to end.
func TestAttemptApprove(t *testing.T) {
	a := newTestAPI(t)
	ct := manualSession(a, nil)
	tk := a.tokenize(ct, numOK)
	id := tk.Str("paymentAttemptId")
	require.Len(t, id, 36)
	apitest.AssertGolden(t, "attempt_tokenize_manual", tk.Body)
	assert.Equal(t, id, a.must(200, "GET", "/client-session?clientToken="+ct, nil).Str("currentAttemptId"))

	g := a.must(200, "GET", "/_sandbox/payment-attempts/"+id, nil)
	assert.Equal(t, map[string]any{
		"paymentAttemptId": id, "clientSessionId": g.Str("clientSessionId"), "status": "AWAITING_APPROVAL",
		"expiresAt": "2026-11-22T07:45:00.000000Z",
	}, g.JSON, "paymentId is left out until there is a payment (docs/api.md)")
	assert.Len(t, g.Str("clientSessionId"), 36)
	apitest.AssertGolden(t, "attempt_awaiting", g.Body)

	r := a.must(200, "POST", "/payment-attempts/"+id+"/approve", nil)
	pid := r.Str("merchantPaymentId")
	assert.Equal(t, map[string]any{"paymentAttemptId": id, "merchantPaymentId": pid}, r.JSON)
	apitest.AssertGolden(t, "attempt_approve", r.Body)

	p := a.must(200, "GET", "/payments/"+pid, nil)
	assert.Contains(t, []string{"PENDING", "AUTHORIZED"}, p.Str("status"), "the payment exists at once")
	assert.Equal(t, "order-1", p.Str("orderId"))
	assert.EqualValues(t, 1000, p.JSON["amount"])

	w := a.must(200, "GET", "/_sandbox/wait?paymentId="+pid+"&status=AUTHORIZED&timeout=5s", nil)
	assert.Equal(t, "AUTHORIZED", w.Str("status"))

	again := attApprove(a, id)
	requireError(t, again, 409, "IdempotencyKeyAlreadyExists")
	assert.Equal(t, pid, again.Err()["paymentId"])
	assert.Equal(t, "AUTHORIZED", again.Err()["paymentStatus"])

	g = a.must(200, "GET", "/_sandbox/payment-attempts/"+id, nil)
	assert.Equal(t, "APPROVED", g.Str("status"))
	assert.Equal(t, pid, g.Str("paymentId"))
	requireError(t, attAbort(a, id), 409, "InvalidPaymentAttemptTransition")
	requireError(t, a.req("POST", "/_sandbox/payment-attempts/"+id+"/expire", nil), 409, "InvalidPaymentAttemptTransition")

	t.Run("bodies: none, {} or not JSON", func(t *testing.T) {
		a.must(200, "POST", "/payment-attempts/"+freshAttempt(a, numOK)+"/approve", map[string]any{})
		requireError(t, a.req("POST", "/payment-attempts/"+freshAttempt(a, numOK)+"/approve", "{"), 400, "BadRequest")
		a.must(200, "POST", "/payment-attempts/"+freshAttempt(a, numOK)+"/abort", map[string]any{})
		requireError(t, a.req("POST", "/payment-attempts/"+freshAttempt(a, numOK)+"/abort", "nope"), 400, "BadRequest")
	})
}

// TestAttemptOutcomes: the background authorization follows the card.
func TestAttemptOutcomes(t *testing.T) {
	a := newTestAPI(t)
	t.Run("decline card -> DECLINED", func(t *testing.T) {
		pid := a.must(200, "POST", "/payment-attempts/"+freshAttempt(a, numDecline)+"/approve", nil).Str("merchantPaymentId")
		w := a.must(200, "GET", "/_sandbox/wait?paymentId="+pid+"&status=DECLINED&timeout=5s", nil)
		assert.Equal(t, "DO_NOT_HONOR", dig(w.JSON, "statusReason", "code"))
	})
	t.Run("fail card -> FAILED", func(t *testing.T) {
		pid := a.must(200, "POST", "/payment-attempts/"+freshAttempt(a, numFail)+"/approve", nil).Str("merchantPaymentId")
		a.must(200, "GET", "/_sandbox/wait?paymentId="+pid+"&status=FAILED&timeout=5s", nil)
	})
	t.Run("3DS card stays PENDING with requiredAction", func(t *testing.T) {
		pid := a.must(200, "POST", "/payment-attempts/"+freshAttempt(a, numChallenge)+"/approve", nil).Str("merchantPaymentId")
		runDueNow(a)
		p := a.must(200, "GET", "/payments/"+pid, nil)
		assert.Equal(t, "PENDING", p.Str("status"))
		assert.Equal(t, "3DS_AUTHENTICATION", dig(p.JSON, "requiredAction", "name"))

		w := a.req("GET", "/_sandbox/wait?paymentId="+pid+"&status=AUTHORIZED&timeout=50ms", nil)
		requireError(t, w, 408, "WaitTimeout")
		assert.Equal(t, pid, w.Err()["paymentId"])
		assert.Equal(t, "PENDING", w.Err()["paymentStatus"])

		a.must(200, "POST", "/_sandbox/payments/"+pid+"/3ds", map[string]any{"result": "AUTH_SUCCESS"})
		a.must(200, "GET", "/_sandbox/wait?paymentId="+pid+"&status=AUTHORIZED&timeout=5s", nil)
	})
	t.Run("wait answers at once when the payment ended otherwise", func(t *testing.T) {
		pid := a.must(200, "POST", "/payment-attempts/"+freshAttempt(a, numDecline)+"/approve", nil).Str("merchantPaymentId")
		runDueNow(a)
		w := a.req("GET", "/_sandbox/wait?paymentId="+pid+"&status=AUTHORIZED&timeout=60s", nil)
		requireError(t, w, 408, "WaitTimeout")
		assert.Equal(t, "DECLINED", w.Err()["paymentStatus"])
	})
	t.Run("wait refuses", func(t *testing.T) {
		assert.Equal(t, []string{"$.timeout"}, violations(t, a.req("GET", "/_sandbox/wait?paymentId=x&status=AUTHORIZED&timeout=61s", nil), ""))
		assert.Equal(t, []string{"$.paymentId", "$.status"}, violations(t, a.req("GET", "/_sandbox/wait?status=NOPE", nil), ""))
		requireError(t, a.req("GET", "/_sandbox/wait?paymentId=nope&status=AUTHORIZED", nil), 400, "PaymentError")
	})
}

// TestAttemptSuperseded: a later tokenisation supersedes the current attempt,
// which then cannot be approved but can be aborted.
func TestAttemptSuperseded(t *testing.T) {
	a := newTestAPI(t)
	ct := manualSession(a, nil)
	first, _ := newAttempt(a, ct, numOK)
	second, _ := newAttempt(a, ct, numOK2)
	assert.Equal(t, second, a.must(200, "GET", "/client-session?clientToken="+ct, nil).Str("currentAttemptId"))
	assert.Equal(t, "AWAITING_APPROVAL", attGet(a, first).Str("status"), "a superseded attempt stays awaiting")
	requireError(t, attApprove(a, first), 409, "InvalidPaymentAttemptTransition")
	assert.Equal(t, "ABORTED", a.must(200, "POST", "/payment-attempts/"+first+"/abort", nil).Str("status"))
	r := a.must(200, "POST", "/payment-attempts/"+second+"/approve", nil)
	p := a.must(200, "GET", "/_sandbox/wait?paymentId="+r.Str("merchantPaymentId")+"&status=AUTHORIZED", nil)
	assert.Equal(t, "4444", dig(p.JSON, "paymentMethod", "paymentMethodData", "last4Digits"), "the current attempt's card")
}

// TestAttemptAbort: no payment, the token is invalidated, abort is final.
func TestAttemptAbort(t *testing.T) {
	a := newTestAPI(t)
	ct := manualSession(a, nil)
	id, token := newAttempt(a, ct, numOK)
	r := a.must(200, "POST", "/payment-attempts/"+id+"/abort", nil)
	assert.Equal(t, map[string]any{"paymentAttemptId": id, "status": "ABORTED"}, r.JSON)
	apitest.AssertGolden(t, "attempt_abort", r.Body)
	g := attGet(a, id)
	assert.Equal(t, "ABORTED", g.Str("status"))
	assert.Nil(t, g.JSON["paymentId"])
	assert.Equal(t, []string{}, listIDs(a.must(200, "GET", "/payments", nil)), "no payment")
	requireError(t, a.req("POST", "/payments", map[string]any{"paymentMethodToken": token}), 400, "InvalidPaymentInstrumentToken")
	requireError(t, a.req("POST", "/client/payments", map[string]any{"paymentMethodToken": token}, "X-Client-Token: "+ct), 400, "InvalidPaymentInstrumentToken")
	requireError(t, a.req("POST", "/payment-instruments/"+token+"/vault", map[string]any{"customerId": "c"}), 400, "InvalidPaymentInstrumentToken")
	requireError(t, attAbort(a, id), 409, "InvalidPaymentAttemptTransition")
	requireError(t, attApprove(a, id), 409, "InvalidPaymentAttemptTransition")
	requireError(t, a.req("POST", "/_sandbox/payment-attempts/"+id+"/expire", nil), 409, "InvalidPaymentAttemptTransition")
}

// TestAttemptExpiry: by the control plane and by the tenant's clock.
func TestAttemptExpiry(t *testing.T) {
	a := newTestAPI(t)
	t.Run("control plane expire", func(t *testing.T) {
		id := freshAttempt(a, numOK)
		r := a.must(200, "POST", "/_sandbox/payment-attempts/"+id+"/expire", nil)
		assert.Equal(t, map[string]any{"paymentAttemptId": id, "status": "EXPIRED"}, r.JSON)
		requireError(t, attApprove(a, id), 410, "PaymentAttemptExpired")
		requireError(t, attAbort(a, id), 410, "PaymentAttemptExpired")
		a.must(200, "POST", "/_sandbox/payment-attempts/"+id+"/expire", nil) // already expired: fine
		assert.Equal(t, "EXPIRED", attGet(a, id).Str("status"))
	})
	t.Run("the tenant's clock", func(t *testing.T) {
		early := freshAttempt(a, numOK) // created at +0: expires at +15m
		a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "10m"})
		late := freshAttempt(a, numOK) // created at +10m: expires at +25m
		before := freshAttempt(a, numOK)
		a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "4m59s"})
		assert.Equal(t, "AWAITING_APPROVAL", attGet(a, early).Str("status"))
		a.must(200, "POST", "/payment-attempts/"+before+"/approve", nil)

		a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1s"})
		assert.Equal(t, "EXPIRED", attGet(a, early).Str("status"), "expires exactly at its TTL")
		requireError(t, attApprove(a, early), 410, "PaymentAttemptExpired")
		requireError(t, attAbort(a, early), 410, "PaymentAttemptExpired")
		assert.Equal(t, "AWAITING_APPROVAL", attGet(a, late).Str("status"))
		assert.Equal(t, "APPROVED", attGet(a, before).Str("status"), "only awaiting attempts expire")

		a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "16m"})
		assert.Equal(t, "EXPIRED", attGet(a, late).Str("status"))
		requireError(t, attApprove(a, late), 410, "PaymentAttemptExpired")
		requireError(t, attAbort(a, late), 410, "PaymentAttemptExpired")
	})
	t.Run("another tenant's clock is its own", func(t *testing.T) {
		b := tenantApp(a, nil)
		id := freshAttempt(b, numOK)
		a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "16m"})
		assert.Equal(t, "AWAITING_APPROVAL", attGet(b, id).Str("status"))
		b.must(200, "POST", "/payment-attempts/"+id+"/approve", nil)
	})
}

// TestAttemptRefusals: existence, tenancy, path ids, scopes, session content.
func TestAttemptRefusals(t *testing.T) {
	a := newTestAPI(t)
	mine := freshAttempt(a, numOK)
	other := tenantApp(a, nil)
	const unknown = "00000000-0000-4000-8000-999999999999"

	for _, c := range []struct {
		name, method, path string
		status             int
		errorID            string
	}{
		{"approve unknown", "POST", "/payment-attempts/" + unknown + "/approve", 404, "PaymentAttemptNotFound"},
		{"abort unknown", "POST", "/payment-attempts/" + unknown + "/abort", 404, "PaymentAttemptNotFound"},
		{"get unknown", "GET", "/_sandbox/payment-attempts/" + unknown, 404, "PaymentAttemptNotFound"},
		{"expire unknown", "POST", "/_sandbox/payment-attempts/" + unknown + "/expire", 404, "PaymentAttemptNotFound"},
		{"approve non-uuid", "POST", "/payment-attempts/not-a-uuid/approve", 422, "RequestValidationError"},
		{"abort non-uuid", "POST", "/payment-attempts/not-a-uuid/abort", 422, "RequestValidationError"},
		{"get non-uuid", "GET", "/_sandbox/payment-attempts/not-a-uuid", 422, "RequestValidationError"},
		{"expire non-uuid", "POST", "/_sandbox/payment-attempts/not-a-uuid/expire", 422, "RequestValidationError"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := a.req(c.method, c.path, nil)
			requireError(t, r, c.status, c.errorID)
			if c.status == 422 {
				assert.Equal(t, []string{"$.id"}, violations(t, r, ""))
			}
		})
	}
	t.Run("another tenant's attempt is unknown", func(t *testing.T) {
		requireError(t, attApprove(other, mine), 404, "PaymentAttemptNotFound")
		requireError(t, attAbort(other, mine), 404, "PaymentAttemptNotFound")
		requireError(t, attGet(other, mine), 404, "PaymentAttemptNotFound")
		requireError(t, other.req("POST", "/_sandbox/payment-attempts/"+mine+"/expire", nil), 404, "PaymentAttemptNotFound")
		assert.Equal(t, "AWAITING_APPROVAL", attGet(a, mine).Str("status"))
	})
	t.Run("a key without transactions:authorize -> 403", func(t *testing.T) {
		ro := tenantApp(a, map[string]any{"scopes": []string{"transactions:retrieve"}})
		requireError(t, attApprove(ro, unknown), 403, "Forbidden")
		requireError(t, attAbort(ro, unknown), 403, "Forbidden")
		requireError(t, ro.req("POST", "/payment-attempts/not-a-uuid/approve", nil), 403, "Forbidden")
	})
	t.Run("a session lacking amount -> 422, the attempt stays", func(t *testing.T) {
		ct := manualSession(a, map[string]any{"amount": nil})
		id, _ := newAttempt(a, ct, numOK)
		r := attApprove(a, id)
		assert.Equal(t, []string{"$.amount"}, violations(t, r, ""))
		g := attGet(a, id)
		assert.Equal(t, "AWAITING_APPROVAL", g.Str("status"))
		assert.Nil(t, g.JSON["paymentId"])
		a.must(200, "PATCH", "/client-session", map[string]any{"clientToken": ct, "amount": 250})
		r = a.must(200, "POST", "/payment-attempts/"+id+"/approve", nil)
		p := a.must(200, "GET", "/payments/"+r.Str("merchantPaymentId"), nil)
		assert.EqualValues(t, 250, p.JSON["amount"], "approve reads the session at that moment")
	})
	t.Run("a session lacking everything -> 422 listing each", func(t *testing.T) {
		ct := manualSession(a, map[string]any{"amount": nil, "currencyCode": nil, "orderId": nil})
		id, _ := newAttempt(a, ct, numOK)
		assert.Equal(t, []string{"$.amount", "$.currencyCode", "$.orderId"}, violations(t, attApprove(a, id), ""))
	})
}

// TestAttemptConvergence: concurrent approvals of one attempt converge on one
// payment; approve racing abort or expire has one winner. Repeated rounds.
func TestAttemptConvergence(t *testing.T) {
	a := newTestAPI(t)
	count := func() int { return len(listIDs(a.must(200, "GET", "/payments?limit=100", nil))) }

	for round := range 3 {
		t.Run("200 approvals, round "+string(rune('1'+round)), func(t *testing.T) {
			before := count()
			id := freshAttempt(a, numOK)
			shots := burst(t, a, 200, func(int) shot { return fire(a, "POST", "/payment-attempts/"+id+"/approve", nil) })
			assert.Equal(t, map[string]int{"200": 1, "409 IdempotencyKeyAlreadyExists": 199}, tally(shots))
			var pid string
			for _, s := range shots {
				if s.Status == 200 {
					pid, _ = s.JSON["merchantPaymentId"].(string)
				}
			}
			for _, s := range shots {
				if s.Status == 409 {
					require.Equal(t, pid, dig(s.JSON, "error", "paymentId"))
					require.NotEmpty(t, dig(s.JSON, "error", "paymentStatus"))
				}
			}
			assert.Equal(t, before+1, count(), "exactly one payment")
			a.must(200, "GET", "/_sandbox/wait?paymentId="+pid+"&status=AUTHORIZED", nil)
		})
	}

	race := func(t *testing.T, other string, otherPath func(id string) string, wantLoser map[string]bool) {
		wins := map[string]int{}
		for range 15 {
			before := count()
			id := freshAttempt(a, numOK)
			shots := burst(t, a, 2, func(i int) shot {
				if i == 0 {
					return fire(a, "POST", "/payment-attempts/"+id+"/approve", nil)
				}
				return fire(a, "POST", otherPath(id), nil)
			})
			appr, oth := shots[0], shots[1]
			require.False(t, appr.Status == 200 && oth.Status == 200, "never both: %v %v", appr.JSON, oth.JSON)
			st := attGet(a, id)
			switch {
			case appr.Status == 200:
				wins["approve"]++
				assert.Equal(t, 409, oth.Status, "%v", oth.JSON)
				assert.Equal(t, "InvalidPaymentAttemptTransition", oth.errorID())
				assert.Equal(t, "APPROVED", st.Str("status"))
				assert.Equal(t, before+1, count())
			case oth.Status == 200:
				wins[other]++
				assert.True(t, wantLoser[outcome(appr.Status, appr.errorID())], "approve lost with %d %s", appr.Status, appr.errorID())
				assert.Nil(t, st.JSON["paymentId"])
				assert.Equal(t, before, count(), "no payment when %s won", other)
			default:
				t.Fatalf("nobody won: %v %v", appr.JSON, oth.JSON)
			}
		}
		t.Logf("wins: %v", wins)
	}
	t.Run("approve racing abort", func(t *testing.T) {
		race(t, "abort", func(id string) string { return "/payment-attempts/" + id + "/abort" },
			map[string]bool{"409 InvalidPaymentAttemptTransition": true, "409 IdempotencyKeyAlreadyExists": true})
	})
	t.Run("approve racing expire", func(t *testing.T) {
		race(t, "expire", func(id string) string { return "/_sandbox/payment-attempts/" + id + "/expire" },
			map[string]bool{"410 PaymentAttemptExpired": true})
	})
}

// TestAttemptRestartResumesScheduledWork: scheduled work is stored, so a
// restart runs it: an attempt's expiry, and the background authorization of
// an approved attempt.
func TestAttemptRestartResumesScheduledWork(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")

	// First life, scheduler stopped: an awaiting attempt, and an approved one
	// whose payment is still PENDING. Random ids, so the reopened store gets
	// no colliding ids.
	a, stop := startAPI(t, apiOptions{Path: path, Fsync: "always", IDs: simulator.RandomIDs{}, Paused: true})
	awaiting := freshAttempt(a, numOK)
	approved := freshAttempt(a, numOK)
	pid := a.must(200, "POST", "/payment-attempts/"+approved+"/approve", nil).Str("merchantPaymentId")
	require.Equal(t, "PENDING", a.must(200, "GET", "/payments/"+pid, nil).Str("status"))
	var jobs []*simulator.Job
	require.NoError(t, a.DB.View(func(tx simulator.Tx) (err error) {
		jobs, err = tx.DueJobs(simulator.DefaultTenantID, testEpoch.Add(time.Hour), 0)
		return
	}))
	kinds := map[simulator.JobKind]int{}
	for _, j := range jobs {
		kinds[j.Kind]++
	}
	require.Equal(t, map[simulator.JobKind]int{simulator.JobExpireAttempt: 2, simulator.JobAuthorize: 1}, kinds)
	stop()

	// Second life, with the scheduler, 16 minutes later.
	b, _ := startAPI(t, apiOptions{Path: path, Fsync: "always", IDs: simulator.RandomIDs{}, Clock: clock.NewManual(testEpoch.Add(16 * time.Minute))})
	w := b.must(200, "GET", "/_sandbox/wait?paymentId="+pid+"&status=AUTHORIZED&timeout=5s", nil)
	assert.Equal(t, "AUTHORIZED", w.Str("status"))

	// The expiry job ran: the stored record (not just its read-time lapse)
	// says EXPIRED. Polling is acceptable here only: nothing signals it.
	stored := func() simulator.AttemptStatus {
		var at *simulator.Attempt
		require.NoError(t, b.DB.View(func(tx simulator.Tx) (err error) { at, err = tx.Attempt(simulator.DefaultTenantID, awaiting); return }))
		return at.Status
	}
	deadline := time.Now().Add(5 * time.Second)
	for stored() != simulator.AttemptExpired && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, simulator.AttemptExpired, stored())
	assert.Equal(t, "EXPIRED", attGet(b, awaiting).Str("status"))
	requireError(t, attApprove(b, awaiting), 410, "PaymentAttemptExpired")
	assert.Equal(t, "APPROVED", attGet(b, approved).Str("status"))
}

// A MANUAL session's token must not become a MULTI_USE token before its
// attempt is approved: the vaulted copy would pay without approval.
func TestAttemptTokenVaultOnlyAfterApproval(t *testing.T) {
	a := newTestAPI(t)
	vault := func(tok string) *resp {
		return a.req("POST", "/payment-instruments/"+tok+"/vault", map[string]any{"customerId": "cust-1"})
	}

	awaiting, tok := newAttempt(a, manualSession(a, nil), "4111111111111111")
	requireError(t, vault(tok), 400, "InvalidPaymentInstrumentToken")
	assert.Equal(t, "AWAITING_APPROVAL", attGet(a, awaiting).Str("status"))

	aborted, tok2 := newAttempt(a, manualSession(a, nil), "4111111111111111")
	a.must(200, "POST", "/payment-attempts/"+aborted+"/abort", nil)
	requireError(t, vault(tok2), 400, "InvalidPaymentInstrumentToken")

	approved, tok3 := newAttempt(a, manualSession(a, nil), "4111111111111111")
	a.must(200, "POST", "/payment-attempts/"+approved+"/approve", nil)
	v := a.must(200, "POST", "/payment-instruments/"+tok3+"/vault", map[string]any{"customerId": "cust-1"})
	assert.Equal(t, "MULTI_USE", v.Str("tokenType"))
}
