package httpapi_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nested is {"a": {"a": ... leaf}} with n objects.
func nested(n int, leaf any) any {
	v := leaf
	for range n {
		v = map[string]any{"a": v}
	}
	return v
}

// rawNested is the same as raw JSON, for depths json.Marshal would refuse.
func rawNested(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
}

// Finding 2: a body nested past 32 levels is refused before anything is
// stored (422 at the first path too deep), at any depth; 32 levels are
// accepted and read back.
func TestNestingIsBoundedBeforeStoring(t *testing.T) {
	a := newTestAPI(t)
	// The body is level 1 and metadata level 2: 31 objects inside metadata is level 33.
	tooDeep := "$.metadata" + strings.Repeat(".a", 31)
	tests := []struct {
		name string
		body string
		path string // "" = accepted
	}{
		{"32 levels", `{"metadata":` + rawNested(31) + `}`, ""},
		{"33 levels", `{"metadata":` + rawNested(32) + `}`, tooDeep},
		{"9998 levels (the probe)", `{"metadata":` + rawNested(9998) + `}`, tooDeep},
		{"past the decoder's own limit", `{"metadata":` + rawNested(20000) + `}`, tooDeep},
		{"arrays count too", `{"metadata":{"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}`, "$.metadata.x" + strings.Repeat("[0]", 30)},
		{"options", `{"paymentMethod":{"options":` + rawNested(31) + `}}`, "$.paymentMethod.options" + strings.Repeat(".a", 30)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req("POST", "/client-session", tc.body)
			if tc.path == "" {
				require.Equal(t, 200, r.Status, "%s", r.Body)
				a.must(200, "GET", "/client-session?clientToken="+r.Str("clientToken"), nil)
				return
			}
			assert.Equal(t, []string{tc.path}, paths(fieldErrors(t, r, "ClientSessionAPIRequest")))
		})
	}
	t.Run("not JSON stays 400 even when deep", func(t *testing.T) {
		r := a.req("POST", "/client-session", `{"metadata":`+rawNested(40)+`,}`)
		assert.Equal(t, 400, r.Status, "%s", r.Body)
	})
	t.Run("PATCH and payments too", func(t *testing.T) {
		tok := a.session(map[string]any{"orderId": "o", "currencyCode": "EUR", "amount": 100})
		r := a.req("PATCH", "/client-session", `{"clientToken":"`+tok+`","metadata":`+rawNested(9998)+`}`)
		fieldErrors(t, r, "ClientSessionUpdateAPIRequest")
		r = a.req("PATCH", "/client-session", `{"clientToken":"`+tok+`","paymentMethod":{"options":`+rawNested(40)+`}}`)
		fieldErrors(t, r, "ClientSessionUpdateAPIRequest")
		a.must(200, "GET", "/client-session?clientToken="+tok, nil)
		pt := a.tokenize(tok, "4111111111111111").Str("token")
		r = a.req("POST", "/payments", `{"paymentMethodToken":"`+pt+`","metadata":`+rawNested(9998)+`}`)
		fieldErrors(t, r, "PaymentCreationAPIRequest")
	})
}

// PATCH merges paymentMethod.options key by key: repeated PATCHes cannot
// grow it past 16 KiB, and a refused PATCH leaves the session readable and
// unchanged.
func TestMergedSessionIsBounded(t *testing.T) {
	a := newTestAPI(t)
	tok := a.session(map[string]any{"orderId": "o", "currencyCode": "EUR", "amount": 100})
	big := strings.Repeat("x", 9<<10)
	a.must(200, "PATCH", "/client-session", map[string]any{"clientToken": tok, "paymentMethod": map[string]any{"options": map[string]any{"k1": big}}})
	before := a.must(200, "GET", "/client-session?clientToken="+tok, nil).Body
	r := a.req("PATCH", "/client-session", map[string]any{"clientToken": tok, "paymentMethod": map[string]any{"options": map[string]any{"k2": big}}})
	assert.Equal(t, []string{"$.paymentMethod.options"}, paths(fieldErrors(t, r, "ClientSessionUpdateAPIRequest")))
	assert.JSONEq(t, string(before), string(a.must(200, "GET", "/client-session?clientToken="+tok, nil).Body))

	t.Run("nesting in a PATCH", func(t *testing.T) {
		// options is level 3: 31 objects inside reach level 33.
		a.must(200, "PATCH", "/client-session", map[string]any{"clientToken": tok, "paymentMethod": map[string]any{"options": nil}})
		r := a.req("PATCH", "/client-session", map[string]any{"clientToken": tok, "paymentMethod": map[string]any{"options": nested(31, 1)}})
		assert.Equal(t, []string{"$.paymentMethod.options" + strings.Repeat(".a", 30)}, paths(fieldErrors(t, r, "ClientSessionUpdateAPIRequest")))
		a.must(200, "PATCH", "/client-session", map[string]any{"clientToken": tok, "paymentMethod": map[string]any{"options": nested(30, 1)}})
		a.must(200, "GET", "/client-session?clientToken="+tok, nil)
	})
}

// Finding 3: free text and metadata are bounded, so a payment cannot be
// grown without bound by refunds with huge reasons or by capture metadata.
func TestFreeTextAndMetadataAreBounded(t *testing.T) {
	a := newTestAPI(t)
	long := strings.Repeat("é", 256) // characters, not bytes
	ok := strings.Repeat("é", 255)
	pay := a.pay(100000, "4111111111111111")
	pid := pay.Str("id")
	tests := []struct {
		name, method, path string
		body               map[string]any
		model, field       string
	}{
		{"refund reason", "POST", "/payments/" + pid + "/refund", map[string]any{"reason": long}, "PaymentRefundAPIRequest", "$.reason"},
		{"refund orderId", "POST", "/payments/" + pid + "/refund", map[string]any{"orderId": long}, "PaymentRefundAPIRequest", "$.orderId"},
		{"cancel reason", "POST", "/payments/" + pid + "/cancel", map[string]any{"reason": long}, "PaymentCancelAPIRequest", "$.reason"},
		{"descriptor", "POST", "/client-session", map[string]any{"paymentMethod": map[string]any{"descriptor": long}}, "ClientSessionAPIRequest", "$.paymentMethod.descriptor"},
		{"shipping method name", "POST", "/client-session", map[string]any{"order": map[string]any{"shipping": map[string]any{"methodName": long}}}, "ClientSessionAPIRequest", "$.order.shipping.methodName"},
		{"address line", "POST", "/client-session", map[string]any{"customer": map[string]any{"billingAddress": map[string]any{"addressLine1": long}}}, "ClientSessionAPIRequest", "$.customer.billingAddress.addressLine1"},
		{"processor name", "POST", "/payments/" + pid + "/authorize", map[string]any{"processor": map[string]any{"processorMerchantId": "m", "name": long}}, "PaymentAuthorizationAPIRequest", "$.processor.name"},
		{"metadata size", "POST", "/client-session", map[string]any{"metadata": map[string]any{"k": strings.Repeat("x", 16<<10)}}, "ClientSessionAPIRequest", "$.metadata"},
		{"capture metadata size", "POST", "/payments/" + pid + "/capture", map[string]any{"amount": 1, "metadata": map[string]any{"k": strings.Repeat("x", 16<<10)}}, "PaymentCaptureAPIRequest", "$.metadata"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req(tc.method, tc.path, tc.body)
			assert.Equal(t, []string{tc.field}, paths(fieldErrors(t, r, tc.model)))
		})
	}
	before := a.must(200, "GET", "/payments/"+pid, nil).Body
	assert.NotContains(t, string(before), "xxxxxxxx", "nothing refused was stored")

	a.must(200, "POST", "/payments/"+pid+"/capture", map[string]any{"amount": 10, "final": false, "metadata": map[string]any{"k1": strings.Repeat("x", 9<<10)}})
	r := a.req("POST", "/payments/"+pid+"/capture", map[string]any{"amount": 10, "final": false, "metadata": map[string]any{"k2": strings.Repeat("x", 9<<10)}})
	assert.Equal(t, []string{"$.metadata"}, paths(fieldErrors(t, r, "PaymentCaptureAPIRequest")), "merged capture metadata is bounded too")
	a.must(200, "POST", "/payments/"+pid+"/refund", map[string]any{"amount": 1, "reason": ok})
}

// At most 100 transactions (captures and refunds) per payment; the next is a
// clear 422 and the payment stays readable.
func TestTransactionsPerPaymentAreCapped(t *testing.T) {
	a := newTestAPI(t)
	pid := a.pay(1000, "4111111111111111").Str("id")
	for i := range 60 {
		a.must(200, "POST", "/payments/"+pid+"/capture", map[string]any{"amount": 1, "final": false}, fmt.Sprintf("X-Idempotency-Key: c%d", i))
	}
	for i := range 40 {
		a.must(200, "POST", "/payments/"+pid+"/refund", map[string]any{"amount": 1}, fmt.Sprintf("X-Idempotency-Key: r%d", i))
	}
	for _, tc := range []struct{ action, model string }{{"capture", "PaymentCaptureAPIRequest"}, {"refund", "PaymentRefundAPIRequest"}} {
		r := a.req("POST", "/payments/"+pid+"/"+tc.action, map[string]any{"amount": 1}, "X-Idempotency-Key: past-"+tc.action)
		f := fieldErrors(t, r, tc.model)
		assert.Contains(t, f["$"], "at most 100 transactions", tc.action)
		// The key stays free (a 4xx has no effect).
		assert.Equal(t, 422, a.req("POST", "/payments/"+pid+"/"+tc.action, map[string]any{"amount": 1}, "X-Idempotency-Key: past-"+tc.action).Status)
	}
	p := a.must(200, "GET", "/payments/"+pid+"?expand=transactions.events", nil)
	proc := p.JSON["processor"].(map[string]any)
	assert.Equal(t, []any{60.0, 40.0}, []any{proc["amountCaptured"], proc["amountRefunded"]})
}

// Property: whatever the API accepts, it can read back. Random sessions
// (nesting, lengths, unicode, sizes near every limit), PATCHes over them and
// payments made from them are stored and read; nothing accepted answers 500.
func TestAcceptedInputIsReadable(t *testing.T) {
	a := newTestAPI(t)
	rng := rand.New(rand.NewPCG(12, 12))
	accepted := 0
	for i := range 150 {
		body := map[string]any{"orderId": randText(rng, 1, 260), "currencyCode": "EUR", "amount": rng.IntN(100000)}
		if rng.IntN(2) == 0 {
			body["metadata"] = randObject(rng, 1+rng.IntN(36))
		}
		if rng.IntN(3) == 0 {
			body["paymentMethod"] = map[string]any{"descriptor": randText(rng, 0, 260), "options": randObject(rng, 1+rng.IntN(36))}
		}
		if rng.IntN(3) == 0 {
			body["customer"] = map[string]any{"firstName": randText(rng, 1, 260), "billingAddress": map[string]any{"addressLine1": randText(rng, 1, 260), "city": randText(rng, 1, 260)}}
		}
		r := a.req("POST", "/client-session", body)
		require.NotEqual(t, 500, r.Status, "%s", r.Body)
		if r.Status != 200 {
			require.Equal(t, 422, r.Status, "%s", r.Body)
			continue
		}
		accepted++
		tok := r.Str("clientToken")
		a.must(200, "GET", "/client-session?clientToken="+tok, nil)
		patch := map[string]any{"clientToken": tok, "metadata": randObject(rng, 1+rng.IntN(34)),
			"paymentMethod": map[string]any{"options": randObject(rng, 1+rng.IntN(34))}}
		pr := a.req("PATCH", "/client-session", patch)
		require.Contains(t, []int{200, 422}, pr.Status, "%s", pr.Body)
		a.must(200, "GET", "/client-session?clientToken="+tok, nil)
		if i%5 == 0 {
			pt := a.tokenize(tok, "4111111111111111").Str("token")
			cr := a.req("POST", "/payments", map[string]any{"paymentMethodToken": pt, "metadata": randObject(rng, 1+rng.IntN(34))})
			require.Contains(t, []int{200, 422}, cr.Status, "%s", cr.Body)
			if cr.Status == 200 {
				a.must(200, "GET", "/payments/"+cr.Str("id"), nil)
				rr := a.req("POST", "/payments/"+cr.Str("id")+"/refund", map[string]any{"reason": randText(rng, 0, 300)})
				require.NotEqual(t, 500, rr.Status, "%s", rr.Body)
				a.must(200, "GET", "/payments/"+cr.Str("id"), nil)
			}
		}
	}
	assert.Greater(t, accepted, 30, "the generator must produce accepted inputs")
}

var alphabet = []rune("abcXYZ09 -_.\"\\/é漢😀\u0000\n")

func randText(rng *rand.Rand, minLen, maxLen int) string {
	n := minLen + rng.IntN(maxLen-minLen+1)
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// randObject is a random JSON object nested depth levels (itself level 1).
func randObject(rng *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range 1 + rng.IntN(3) {
		k := randText(rng, 1, 8)
		switch { // only "deep" below recurses all the way, so the size stays small
		case depth > 2 && rng.IntN(3) == 0:
			m[k] = []any{map[string]any{k: randText(rng, 0, 10)}, 1.5, nil, true}
		case rng.IntN(4) == 0:
			m[k] = strings.Repeat("y", rng.IntN(9<<10))
		default:
			m[k] = randText(rng, 0, 40)
		}
	}
	if depth > 1 {
		m["deep"] = randObject(rng, depth-1)
	}
	return m
}
