package httpapi_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// burst fires n requests at once (after a common start) and returns the
// answers. It then drops the client's idle connections: a burst dials
// connections that never carry a request, and the server's graceful shutdown
// waits 5s for such connections before it counts them idle.
func burst(t testing.TB, a *testAPI, n int, do func(i int) shot) []shot {
	t.Helper()
	t.Cleanup(a.http.CloseIdleConnections)
	defer a.http.CloseIdleConnections()
	out := make([]shot, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = do(i)
		}()
	}
	close(start)
	wg.Wait()
	for i, s := range out {
		require.NoError(t, s.Err, "request %d", i)
	}
	return out
}

// tally counts answers by "status errorId".
func tally(shots []shot) map[string]int {
	out := map[string]int{}
	for _, s := range shots {
		out[outcome(s.Status, s.errorID())]++
	}
	return out
}

func outcome(status int, errorID string) string {
	if errorID == "" {
		return strconv.Itoa(status)
	}
	return fmt.Sprintf("%d %s", status, errorID)
}

// TestIdempotencyKeyReuse: X-Idempotency-Key on POST /payments and every
// /payments/{id} action shares one key space per tenant; reuse is 409
// IdempotencyKeyAlreadyExists naming the payment that used it.
func TestIdempotencyKeyReuse(t *testing.T) {
	a := newTestAPI(t)
	first := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(1000), numOK)}, "X-Idempotency-Key: key-1")
	firstID := first.Str("id")

	authorized := a.pay(1000, numOK).Str("id")
	settled := a.pay(1000, numOK).Str("id")
	a.must(200, "POST", "/payments/"+settled+"/capture", nil)
	challenged := a.pay(1000, numChallenge).Str("id")

	endpoints := []struct {
		name, path string
		body       any
	}{
		{"create", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(10), numOK)}},
		{"authorize", "/payments/" + authorized + "/authorize", map[string]any{"processor": map[string]any{"processorMerchantId": "acct_sandbox_stripe"}}},
		{"capture", "/payments/" + authorized + "/capture", nil},
		{"cancel", "/payments/" + authorized + "/cancel", nil},
		{"refund", "/payments/" + settled + "/refund", nil},
		{"resume", "/payments/" + challenged + "/resume", map[string]any{"resumeToken": "00000000-0000-4000-8000-000000000999"}},
		{"unknown payment", "/payments/nope/capture", nil},
	}
	for _, e := range endpoints {
		t.Run("key of create reused on "+e.name, func(t *testing.T) {
			r := a.req("POST", e.path, e.body, "X-Idempotency-Key: key-1")
			requireError(t, r, 409, "IdempotencyKeyAlreadyExists")
			assert.Equal(t, firstID, r.Err()["paymentId"])
			assert.Equal(t, "AUTHORIZED", r.Err()["paymentStatus"])
		})
	}
	assert.Equal(t, "AUTHORIZED", a.must(200, "GET", "/payments/"+authorized, nil).Str("status"), "a 409 changes nothing")
	assert.Equal(t, "PENDING", a.must(200, "GET", "/payments/"+challenged, nil).Str("status"))

	t.Run("key of an action reused on create, with the current status", func(t *testing.T) {
		a.must(200, "POST", "/payments/"+authorized+"/capture", map[string]any{"amount": 100, "final": false}, "X-Idempotency-Key: key-2")
		r := a.req("POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(10), numOK)}, "X-Idempotency-Key: key-2")
		requireError(t, r, 409, "IdempotencyKeyAlreadyExists")
		assert.Equal(t, authorized, r.Err()["paymentId"])
		assert.Equal(t, "PARTIALLY_SETTLED", r.Err()["paymentStatus"])
		r = a.req("POST", "/payments/"+authorized+"/capture", map[string]any{"amount": 100, "final": false}, "X-Idempotency-Key: key-2")
		requireError(t, r, 409, "IdempotencyKeyAlreadyExists")
		assert.EqualValues(t, 100, dig(a.must(200, "GET", "/payments/"+authorized, nil).JSON, "processor", "amountCaptured"), "the retry captured nothing")
	})
	t.Run("a declined payment uses its key", func(t *testing.T) {
		a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(10), numDecline)}, "X-Idempotency-Key: key-3")
		r := a.req("POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(10), numOK)}, "X-Idempotency-Key: key-3")
		requireError(t, r, 409, "IdempotencyKeyAlreadyExists")
		assert.Equal(t, "DECLINED", r.Err()["paymentStatus"])
	})
	t.Run("another tenant may use the same key", func(t *testing.T) {
		b := tenantApp(a, nil)
		r := b.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(b, plainSession(10), numOK)}, "X-Idempotency-Key: key-1")
		assert.NotEqual(t, firstID, r.Str("id"))
		requireError(t, b.req("POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(b, plainSession(10), numOK)}, "X-Idempotency-Key: key-1"), 409, "IdempotencyKeyAlreadyExists")
	})
	t.Run("keys are opaque strings", func(t *testing.T) {
		for _, k := range []string{"t:default:pay:" + firstID, "../idem", "ключ"} {
			a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(10), numOK)}, "X-Idempotency-Key: "+k)
		}
		assert.Equal(t, "AUTHORIZED", a.must(200, "GET", "/payments/"+firstID, nil).Str("status"))
	})
}

// TestIdempotencyFailedRequestsLeaveTheKeyFree: a 4xx had no effect, so its
// key can be used again.
func TestIdempotencyFailedRequestsLeaveTheKeyFree(t *testing.T) {
	a := newTestAPI(t)
	authorized := a.pay(1000, numOK).Str("id")
	settled := a.pay(1000, numOK).Str("id")
	a.must(200, "POST", "/payments/"+settled+"/capture", nil)

	fails := []struct {
		name, path string
		body       any
		status     int
		errorID    string
	}{
		{"unknown token", "/payments", map[string]any{"paymentMethodToken": "tok_nope"}, 400, "InvalidPaymentInstrumentToken"},
		{"missing amount", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, map[string]any{"orderId": "o", "currencyCode": "EUR"}, numOK)}, 422, "RequestValidationError"},
		{"schema", "/payments", map[string]any{"paymentMethodToken": "x", "amount": -1}, 422, "RequestValidationError"},
		{"capture too much", "/payments/" + authorized + "/capture", map[string]any{"amount": 1001}, 422, "RequestValidationError"},
		{"capture unknown", "/payments/nope/capture", nil, 400, "PaymentError"},
		{"refund authorized", "/payments/" + authorized + "/refund", nil, 400, "InvalidPaymentStatus"},
		{"refund too much", "/payments/" + settled + "/refund", map[string]any{"amount": 1001}, 422, "UnprocessableRefundAmount"},
		{"cancel settled", "/payments/" + settled + "/cancel", nil, 400, "InvalidPaymentStatus"},
		{"resume nothing", "/payments/" + authorized + "/resume", map[string]any{"resumeToken": "00000000-0000-4000-8000-000000000999"}, 400, "InvalidPaymentStatus"},
		{"authorize unknown", "/payments/nope/authorize", map[string]any{"processor": map[string]any{"processorMerchantId": "acct_sandbox_stripe"}}, 404, "PaymentNotFoundError"},
		{"authorize twice", "/payments/" + authorized + "/authorize", map[string]any{"processor": map[string]any{"processorMerchantId": "acct_sandbox_stripe"}}, 400, "PaymentAlreadyAuthorized"},
		{"authorize unknown account", "/payments/" + authorized + "/authorize", map[string]any{"processor": map[string]any{"processorMerchantId": "nope"}}, 400, "MerchantAccountNotFound"},
		{"not JSON", "/payments/" + authorized + "/capture", "{", 400, "BadRequest"},
	}
	for i, f := range fails {
		t.Run(f.name, func(t *testing.T) {
			key := fmt.Sprintf("X-Idempotency-Key: free-%d", i)
			requireError(t, a.req("POST", f.path, f.body, key), f.status, f.errorID)
			r := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(10), numOK)}, key)
			requireError(t, a.req("POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(10), numOK)}, key), 409, "IdempotencyKeyAlreadyExists")
			assert.NotEmpty(t, r.Str("id"))
		})
	}
}

// TestIdempotencyConcurrentCreate: 50 simultaneous POST /payments with one key
// make exactly one payment; the 49 others are told which.
func TestIdempotencyConcurrentCreate(t *testing.T) {
	a := newTestAPI(t)
	const n = 50
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = tokenIn(a, plainSession(int64(100+i)), numOK)
	}
	shots := burst(t, a, n, func(i int) shot {
		return fire(a, "POST", "/payments", map[string]any{"paymentMethodToken": tokens[i]}, "X-Idempotency-Key: once")
	})
	assert.Equal(t, map[string]int{"200": 1, "409 IdempotencyKeyAlreadyExists": n - 1}, tally(shots))
	var id string
	for _, s := range shots {
		if s.Status == 200 {
			id, _ = s.JSON["id"].(string)
		}
	}
	for _, s := range shots {
		if s.Status == 409 {
			assert.Equal(t, id, dig(s.JSON, "error", "paymentId"))
			assert.Equal(t, "AUTHORIZED", dig(s.JSON, "error", "paymentStatus"))
		}
	}
	list := a.must(200, "GET", "/payments", nil)
	assert.Equal(t, []string{id}, listIDs(list), "exactly one payment")
}

// TestIdempotencyConcurrentCaptures: simultaneous partial captures never
// capture more than was authorized; amountCaptured is the sum of the 200s.
func TestIdempotencyConcurrentCaptures(t *testing.T) {
	a := newTestAPI(t)
	for round := range 2 {
		id := a.pay(1000, numOK).Str("id")
		shots := burst(t, a, 20, func(int) shot {
			return fire(a, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 100, "final": false})
		})
		ok := 0
		for _, s := range shots {
			switch s.Status {
			case 200:
				ok++
			case 422:
				assert.Equal(t, "RequestValidationError", s.errorID())
			case 400:
				assert.Equal(t, "InvalidPaymentStatus", s.errorID())
			default:
				t.Errorf("round %d: unexpected %d %v", round, s.Status, s.JSON)
			}
		}
		p := a.must(200, "GET", withExpand(id), nil)
		assert.EqualValues(t, 100*ok, dig(p.JSON, "processor", "amountCaptured"), "amountCaptured is the sum of the 200s")
		assert.Equal(t, 10, ok, "exactly what was authorized")
		assert.Len(t, captureEvents(p.JSON), ok)
		assert.Equal(t, "SETTLED", p.Str("status"))
	}

	t.Run("one key, many captures: one 200", func(t *testing.T) {
		id := a.pay(1000, numOK).Str("id")
		shots := burst(t, a, 20, func(int) shot {
			return fire(a, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 100, "final": false}, "X-Idempotency-Key: cap-once")
		})
		assert.Equal(t, map[string]int{"200": 1, "409 IdempotencyKeyAlreadyExists": 19}, tally(shots))
		assert.EqualValues(t, 100, dig(a.must(200, "GET", "/payments/"+id, nil).JSON, "processor", "amountCaptured"))
	})
}

// TestIdempotencyConcurrentRefunds: simultaneous refunds never refund more
// than was captured.
func TestIdempotencyConcurrentRefunds(t *testing.T) {
	a := newTestAPI(t)
	for round := range 2 {
		id := a.pay(1000, numOK).Str("id")
		a.must(200, "POST", "/payments/"+id+"/capture", nil)
		shots := burst(t, a, 20, func(int) shot {
			return fire(a, "POST", "/payments/"+id+"/refund", map[string]any{"amount": 100})
		})
		ok := 0
		for _, s := range shots {
			switch s.Status {
			case 200:
				ok++
			case 422:
				assert.Equal(t, "UnprocessableRefundAmount", s.errorID())
			case 409:
				assert.Equal(t, "PaymentAlreadyRefunded", s.errorID())
			default:
				t.Errorf("round %d: unexpected %d %v", round, s.Status, s.JSON)
			}
		}
		p := a.must(200, "GET", "/payments/"+id, nil)
		assert.Equal(t, 10, ok)
		assert.EqualValues(t, 100*ok, dig(p.JSON, "processor", "amountRefunded"))
		assert.Len(t, txOfType(p.JSON, "REFUND"), ok)
	}
}

// TestAmountsAtInt64Edges: the largest int64 amount pays, captures in parts
// and refunds, exactly, and is found by the list filters; one more is 422.
func TestAmountsAtInt64Edges(t *testing.T) {
	a := newTestAPI(t)
	const max = int64(math.MaxInt64)
	maxS := strconv.FormatInt(max, 10)
	exactNum := func(r *resp, path ...any) string { return fmt.Sprint(dig(exact(t, r.Body), path...)) }

	r := a.pay(max, numOK)
	id := r.Str("id")
	assert.Equal(t, maxS, exactNum(r, "amount"))
	assert.Equal(t, "AUTHORIZED", r.Str("status"))

	r = a.must(200, "POST", "/payments/"+id+"/capture", json.RawMessage(`{"amount": 9223372036854775806, "final": false}`))
	assert.Equal(t, "9223372036854775806", exactNum(r, "processor", "amountCaptured"))
	assert.Equal(t, []string{"$.amount"}, violations(t, a.req("POST", "/payments/"+id+"/capture", json.RawMessage(`{"amount": 2}`)), ""))
	assert.Equal(t, []string{"$.amount"}, violations(t, a.req("POST", "/payments/"+id+"/capture", json.RawMessage(`{"amount": 9223372036854775807}`)), ""))
	r = a.must(200, "POST", "/payments/"+id+"/capture", nil)
	assert.Equal(t, "SETTLED", r.Str("status"))
	assert.Equal(t, maxS, exactNum(r, "processor", "amountCaptured"))

	r = a.must(200, "POST", "/payments/"+id+"/refund", json.RawMessage(`{"amount": 1}`))
	requireError(t, a.req("POST", "/payments/"+id+"/refund", json.RawMessage(`{"amount": 9223372036854775807}`)), 422, "UnprocessableRefundAmount")
	r = a.must(200, "POST", "/payments/"+id+"/refund", nil)
	assert.Equal(t, maxS, exactNum(r, "processor", "amountRefunded"))
	requireError(t, a.req("POST", "/payments/"+id+"/refund", nil), 409, "PaymentAlreadyRefunded")

	small := a.pay(5, numOK).Str("id")
	assert.Equal(t, []string{id}, listIDs(a.must(200, "GET", "/payments?min_amount="+maxS, nil)))
	assert.Equal(t, []string{small, id}, listIDs(a.must(200, "GET", "/payments?max_amount="+maxS, nil)))
	assert.Equal(t, []string{"$.min_amount"}, violations(t, a.req("GET", "/payments?min_amount=9223372036854775808", nil), ""))

	t.Run("one above int64 is 422", func(t *testing.T) {
		pt := tokenIn(a, map[string]any{"orderId": "o", "currencyCode": "EUR"}, numOK)
		r := a.req("POST", "/payments", json.RawMessage(`{"paymentMethodToken": "`+pt+`", "amount": 9223372036854775808}`))
		assert.Equal(t, []string{"$.amount"}, violations(t, r, "PaymentCreationAPIRequest"))
		r = a.req("POST", "/payments/"+small+"/capture", json.RawMessage(`{"amount": 9223372036854775808}`))
		assert.Equal(t, []string{"$.amount"}, violations(t, r, ""))
	})
	t.Run("a session total above int64 is 422, never a wrap", func(t *testing.T) {
		pt := tokenIn(a, map[string]any{"orderId": "o", "currencyCode": "EUR"}, numOK)
		r := a.req("POST", "/payments", json.RawMessage(`{"paymentMethodToken": "`+pt+`", "order": {"lineItems": [{"amount": 9223372036854775807, "quantity": 2}]}}`))
		assert.Contains(t, violations(t, r, "PaymentCreationAPIRequest"), "$.order")
	})
}
