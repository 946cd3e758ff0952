package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
)

// Test cards of fixtures/cards.json.
const (
	numOK               = "4111111111111111"
	numOK2              = "5555555555554444"
	numDecline          = "4000000000000002"
	numFail             = "4000000000000010"
	numChallenge        = "4916994064252017"
	numFrictionlessFail = "4716429323842524"
)

// shot is the answer of a request fired from any goroutine.
type shot struct {
	Status int
	JSON   map[string]any
	Err    error
}

func (s shot) errorID() string {
	e, _ := s.JSON["error"].(map[string]any)
	id, _ := e["errorId"].(string)
	return id
}

// fire sends a request without touching testing.T, so goroutines may use it.
func fire(a *testAPI, method, path string, body any, headers ...string) shot {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return shot{Err: err}
		}
		rd = bytes.NewReader(raw)
	}
	r, err := http.NewRequest(method, a.URL()+path, rd)
	if err != nil {
		return shot{Err: err}
	}
	r.Header.Set("X-API-KEY", a.Key)
	r.Header.Set("X-API-VERSION", "2.4")
	r.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		r.Header.Set(k, strings.TrimSpace(v))
	}
	res, err := a.http.Do(r)
	if err != nil {
		return shot{Err: err}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return shot{Err: err}
	}
	out := shot{Status: res.StatusCode}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out.JSON); err != nil {
		out.Err = fmt.Errorf("%w: %s", err, raw)
	}
	return out
}

// exact decodes a body keeping every number exact (json.Number).
func exact(t testing.TB, body []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	require.NoError(t, dec.Decode(&m), "%s", body)
	return m
}

// dig walks nested objects and arrays ("transactions", 0, "type").
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// num reads a JSON number (float64 or json.Number) as int64.
func num(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case json.Number:
		i, _ := n.Int64()
		return i
	}
	return -1
}

// violations returns the sorted paths of a 422 RequestValidationError of model.
func violations(t testing.TB, r *resp, model string) []string {
	t.Helper()
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.Equal(t, "RequestValidationError", r.ErrorID(), "%s", r.Body)
	ves, _ := r.Err()["validationErrors"].([]any)
	require.Len(t, ves, 1, "%s", r.Body)
	if model != "" {
		assert.Equal(t, model, dig(ves[0], "model"), "%s", r.Body)
	}
	var out []string
	for _, e := range dig(ves[0], "errors").([]any) {
		out = append(out, dig(e, "path").(string))
	}
	sort.Strings(out)
	return out
}

// tenantApp creates a tenant (POST /_sandbox/tenants with body) and returns
// the API seen with its key.
func tenantApp(a *testAPI, body map[string]any) *testAPI {
	a.t.Helper()
	return a.as(a.newTenant(body))
}

// requireError checks status and errorId of an error answer.
func requireError(t testing.TB, r *resp, status int, errorID string) {
	t.Helper()
	require.Equal(t, status, r.Status, "%s", r.Body)
	require.Equal(t, errorID, r.ErrorID(), "%s", r.Body)
}

// tokenIn makes a session from body and tokenises number in it.
func tokenIn(a *testAPI, body map[string]any, number string) string {
	a.t.Helper()
	return a.tokenize(a.session(body), number).Str("token")
}

// captureEvents lists the CAPTURE_SUCCEEDED events of a payment read with
// expand=transactions.events.
func captureEvents(p map[string]any) []map[string]any {
	var out []map[string]any
	txs, _ := p["transactions"].([]any)
	for _, tx := range txs {
		evs, _ := dig(tx, "events").([]any)
		for _, ev := range evs {
			if m := ev.(map[string]any); m["type"] == "CAPTURE_SUCCEEDED" {
				out = append(out, m)
			}
		}
	}
	return out
}

// txOfType lists the transactions of a payment of one type.
func txOfType(p map[string]any, typ string) []map[string]any {
	var out []map[string]any
	txs, _ := p["transactions"].([]any)
	for _, tx := range txs {
		if m := tx.(map[string]any); m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

func withExpand(id string) string { return "/payments/" + id + "?expand=transactions.events" }

// TestPaymentFromSession: a payment made from a tokenised method takes order,
// customer, metadata, amount and currency from the session; request fields
// win, customer (and its addresses) and metadata merge field by field.
func TestPaymentFromSession(t *testing.T) {
	a := newTestAPI(t)
	tok := a.session(map[string]any{
		"orderId": "order-session", "currencyCode": "EUR", "amount": 1000, "customerId": "cust-1",
		"customer": map[string]any{
			"emailAddress": "jane@example.com", "firstName": "Jane", "lastName": "Roe",
			"billingAddress": map[string]any{"city": "Paris", "countryCode": "FR"},
		},
		"order": map[string]any{"countryCode": "FR", "lineItems": []any{
			map[string]any{"itemId": "sku-1", "name": "Shoes", "amount": 1000, "quantity": 1, "productType": "PHYSICAL",
				"productData": map[string]any{"sku": "SH-1", "brand": "Acme"}},
		}},
		"metadata":      map[string]any{"source": "web", "cart": "c-1"},
		"paymentMethod": map[string]any{"descriptor": "ACME SHOES"},
	})
	pt := a.tokenize(tok, numOK).Str("token")
	r := a.must(200, "POST", "/payments", map[string]any{
		"paymentMethodToken": pt, "amount": 1200, "orderId": "order-request",
		"customer": map[string]any{"lastName": "Doe", "billingAddress": map[string]any{"postalCode": "75001"}},
		"metadata": map[string]any{"cart": "c-2", "campaign": "spring"},
	})
	p := r.JSON
	assert.Equal(t, "AUTHORIZED", p["status"])
	assert.EqualValues(t, 1200, p["amount"], "request amount wins")
	assert.Equal(t, "order-request", p["orderId"], "request orderId wins")
	assert.Equal(t, "EUR", p["currencyCode"], "currency from the session")
	assert.Equal(t, "cust-1", p["customerId"])
	assert.Equal(t, map[string]any{
		"email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
		"billingAddress": map[string]any{"city": "Paris", "countryCode": "FR", "postalCode": "75001"},
	}, p["customer"], "customer merges field by field; the payment calls the e-mail `email`")
	assert.Equal(t, map[string]any{"source": "web", "cart": "c-2", "campaign": "spring"}, p["metadata"])
	assert.Equal(t, "Shoes", dig(p, "order", "lineItems", 0, "name"), "order from the session")
	assert.Equal(t, "PHYSICAL", dig(p, "order", "lineItems", 0, "productType"))
	assert.Equal(t, "Acme", dig(p, "order", "lineItems", 0, "productData", "brand"))
	assert.Equal(t, "ACME SHOES", dig(p, "paymentMethod", "descriptor"))
	assert.NotContains(t, p["paymentMethod"], "paymentType", "paymentType is left out when not supplied")
	assert.Equal(t, "SALE", dig(p, "transactions", 0, "type"))
	assert.NotContains(t, dig(p, "transactions", 0), "transactionType")
	assert.NotContains(t, dig(p, "transactions", 0), "events", "events only with expand")
	assert.Nil(t, dig(p, "paymentMethod", "paymentMethodData", "first6Digits"))
	assert.Contains(t, dig(p, "paymentMethod", "paymentMethodData"), "first6Digits", "first6Digits is null, not absent")
	apitest.AssertGolden(t, "payment_merged", r.Body)

	t.Run("paymentType when supplied", func(t *testing.T) {
		pt := tokenIn(a, plainSession(500), numOK)
		r := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt, "paymentMethod": map[string]any{"paymentType": "SUBSCRIPTION"}})
		assert.Equal(t, "SUBSCRIPTION", dig(r.JSON, "paymentMethod", "paymentType"))
	})
	t.Run("amount computed from the session's line items", func(t *testing.T) {
		pt := tokenIn(a, map[string]any{"orderId": "o", "currencyCode": "EUR", "order": map[string]any{
			"lineItems": []any{map[string]any{"amount": 250, "quantity": 2, "discountAmount": 50, "taxAmount": 10}},
			"shipping":  map[string]any{"amount": 100},
		}}, numOK)
		r := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt})
		assert.EqualValues(t, 560, r.JSON["amount"])
	})
}

// TestPaymentCreateRefusals: what POST /payments refuses, and declines and
// failures, which are 200s.
func TestPaymentCreateRefusals(t *testing.T) {
	a := newTestAPI(t)
	vaulted := func(customer string) string {
		pt := tokenIn(a, map[string]any{"orderId": "o"}, numOK)
		return a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": customer}).Str("token")
	}
	vt := vaulted("cust-v")
	full := func(extra map[string]any) map[string]any {
		b := map[string]any{"paymentMethodToken": vt, "amount": 700, "currencyCode": "EUR", "customerId": "cust-v", "orderId": "o-v"}
		for k, v := range extra {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}

	t.Run("missing in session and request -> 422 listing each", func(t *testing.T) {
		pt := tokenIn(a, map[string]any{"customerId": "c"}, numOK)
		r := a.req("POST", "/payments", map[string]any{"paymentMethodToken": pt})
		assert.Equal(t, []string{"$.amount", "$.currencyCode", "$.orderId"}, violations(t, r, "PaymentCreationAPIRequest"))
		r = a.req("POST", "/payments", map[string]any{"paymentMethodToken": pt, "orderId": "o", "currencyCode": "EUR"})
		assert.Equal(t, []string{"$.amount"}, violations(t, r, "PaymentCreationAPIRequest"))
		r = a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt, "orderId": "o", "currencyCode": "EUR", "amount": 5})
		assert.Equal(t, "AUTHORIZED", r.Str("status"), "a 422 leaves the token usable")
	})
	t.Run("amount without currency -> 422", func(t *testing.T) {
		pt := tokenIn(a, map[string]any{"orderId": "o"}, numOK)
		r := a.req("POST", "/payments", map[string]any{"paymentMethodToken": pt, "amount": 5})
		assert.Contains(t, violations(t, r, "PaymentCreationAPIRequest"), "$.currencyCode")
	})

	for _, f := range []string{"amount", "currencyCode", "customerId", "orderId"} {
		t.Run("vaulted token without "+f+" -> 422", func(t *testing.T) {
			r := a.req("POST", "/payments", full(map[string]any{f: nil}))
			assert.Equal(t, []string{"$." + f}, violations(t, r, "PaymentCreationAPIRequest"))
		})
	}
	t.Run("vaulted token without anything -> 422 listing all four", func(t *testing.T) {
		r := a.req("POST", "/payments", map[string]any{"paymentMethodToken": vt})
		assert.Equal(t, []string{"$.amount", "$.currencyCode", "$.customerId", "$.orderId"}, violations(t, r, "PaymentCreationAPIRequest"))
	})
	t.Run("vaulted token of another customer -> 400", func(t *testing.T) {
		requireError(t, a.req("POST", "/payments", full(map[string]any{"customerId": "someone-else"})), 400, "InvalidPaymentInstrumentToken")
	})
	t.Run("vaulted token pays again and again", func(t *testing.T) {
		for range 2 {
			r := a.must(200, "POST", "/payments", full(nil))
			assert.Equal(t, "AUTHORIZED", r.Str("status"))
			assert.Equal(t, true, dig(r.JSON, "paymentMethod", "isVaulted"))
			assert.Equal(t, vt, dig(r.JSON, "paymentMethod", "paymentMethodToken"))
		}
	})

	refused := map[string]func(t *testing.T) string{
		"used SINGLE_USE token": func(t *testing.T) string {
			pt := tokenIn(a, plainSession(100), numOK)
			a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt})
			return pt
		},
		"deleted vaulted token": func(t *testing.T) string {
			v := vaulted("cust-del")
			a.must(200, "DELETE", "/payment-instruments/"+v, nil)
			return v
		},
		"MANUAL session's token": func(t *testing.T) string {
			ct := a.session(map[string]any{"orderId": "o", "currencyCode": "EUR", "amount": 100, "approvalMode": "MANUAL"})
			return a.tokenize(ct, numOK).Str("token")
		},
		"aborted attempt's token": func(t *testing.T) string {
			ct := a.session(map[string]any{"orderId": "o", "currencyCode": "EUR", "amount": 100, "approvalMode": "MANUAL"})
			tk := a.tokenize(ct, numOK)
			a.must(200, "POST", "/payment-attempts/"+tk.Str("paymentAttemptId")+"/abort", nil)
			return tk.Str("token")
		},
		"unknown token":          func(t *testing.T) string { return "tok_nope" },
		"another tenant's token": func(t *testing.T) string { return tokenIn(tenantApp(a, nil), plainSession(100), numOK) },
	}
	for name, mk := range refused {
		t.Run(name+" -> 400", func(t *testing.T) {
			tok := mk(t)
			body := map[string]any{"paymentMethodToken": tok}
			if strings.Contains(name, "vaulted") {
				body = full(map[string]any{"paymentMethodToken": tok, "customerId": "cust-del"})
			}
			requireError(t, a.req("POST", "/payments", body), 400, "InvalidPaymentInstrumentToken")
		})
	}

	outcomes := []struct {
		name, number, status, reasonType, reasonCode string
	}{
		{"decline card -> 200 DECLINED", numDecline, "DECLINED", "ISSUER_DECLINED", "DO_NOT_HONOR"},
		{"fail card -> 200 FAILED", numFail, "FAILED", "APPLICATION_ERROR", "ERROR"},
		{"3DS frictionless fail -> 200 DECLINED", numFrictionlessFail, "DECLINED", "ISSUER_DECLINED", "AUTHENTICATION_REQUIRED"},
		{"success card -> 200 AUTHORIZED", numOK2, "AUTHORIZED", "", ""},
	}
	for _, o := range outcomes {
		t.Run(o.name, func(t *testing.T) {
			r := a.pay(1000, o.number)
			assert.Equal(t, o.status, r.Str("status"))
			if o.reasonType == "" {
				assert.NotContains(t, r.JSON, "statusReason")
				return
			}
			assert.Equal(t, o.reasonType, dig(r.JSON, "statusReason", "type"))
			assert.Equal(t, o.reasonCode, dig(r.JSON, "statusReason", "code"))
		})
	}
}

// TestPaymentGoldens pins the payment response in every status, read with
// expand=transactions.events. Each runs on a fresh server so ids are stable.
func TestPaymentGoldens(t *testing.T) {
	authorized := func(a *testAPI, amount int64) string { return a.pay(amount, numOK).Str("id") }
	cases := []struct {
		name string
		run  func(t *testing.T) (*testAPI, string)
	}{
		{"pending_3ds", func(t *testing.T) (*testAPI, string) {
			a := newTestAPI(t)
			r := a.pay(1000, numChallenge)
			require.Equal(t, "PENDING", r.Str("status"))
			assert.Equal(t, "3DS_AUTHENTICATION", dig(r.JSON, "requiredAction", "name"))
			assert.NotEmpty(t, dig(r.JSON, "requiredAction", "clientToken"))
			assert.Equal(t, a.URL()+"/_sandbox/ui/checkout/challenge?token="+dig(r.JSON, "requiredAction", "clientToken").(string),
				dig(r.JSON, "requiredAction", "challengeUrl"), "challengeUrl is absolute, on the request's host")
			return a, r.Str("id")
		}},
		{"authorized", func(t *testing.T) (*testAPI, string) {
			a := newTestAPI(t)
			r := a.pay(1000, numOK)
			apitest.AssertGolden(t, "payment_create_authorized", r.Body)
			return a, r.Str("id")
		}},
		{"declined", func(t *testing.T) (*testAPI, string) { a := newTestAPI(t); return a, a.pay(1000, numDecline).Str("id") }},
		{"failed", func(t *testing.T) (*testAPI, string) { a := newTestAPI(t); return a, a.pay(1000, numFail).Str("id") }},
		{"cancelled", func(t *testing.T) (*testAPI, string) {
			a := newTestAPI(t)
			id := authorized(a, 1000)
			a.must(200, "POST", "/payments/"+id+"/cancel", map[string]any{"reason": "Customer cancelled order #1234."})
			return a, id
		}},
		{"settled", func(t *testing.T) (*testAPI, string) {
			a := newTestAPI(t)
			id := authorized(a, 1000)
			a.must(200, "POST", "/payments/"+id+"/capture", nil)
			return a, id
		}},
		{"partially_settled", func(t *testing.T) (*testAPI, string) {
			a := newTestAPI(t)
			id := authorized(a, 1000)
			a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 300, "final": false})
			a.Clock.Advance(time.Minute)
			a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 200, "final": false})
			return a, id
		}},
		{"settling", func(t *testing.T) (*testAPI, string) {
			a := newPausedAPI(t)
			ct := a.session(map[string]any{"orderId": "order-1", "currencyCode": "EUR", "amount": 1000, "customerId": "cust-1", "approvalMode": "MANUAL"})
			att := a.tokenize(ct, numOK).Str("paymentAttemptId")
			id := a.must(200, "POST", "/payment-attempts/"+att+"/approve", nil).Str("merchantPaymentId")
			r := a.must(200, "POST", "/payments/"+id+"/authorize", map[string]any{"processor": map[string]any{"processorMerchantId": "sandbox_adyen"}})
			require.Equal(t, "AUTHORIZED", r.Str("status"))
			require.Equal(t, "ADYEN", dig(r.JSON, "processor", "name"))
			assert.NotContains(t, dig(r.JSON, "transactions", 0), "authorizationCode", "ADYEN has no authorization codes")
			r = a.must(200, "POST", "/payments/"+id+"/capture", nil)
			require.Equal(t, "SETTLING", r.Str("status"))
			return a, id
		}},
		{"refunded", func(t *testing.T) (*testAPI, string) {
			a := newTestAPI(t)
			id := authorized(a, 1000)
			a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 600, "final": false})
			p := a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"expand": []string{"transactions.events"}})
			second := captureEvents(p.JSON)[1]["id"]
			a.must(200, "POST", "/payments/"+id+"/refund", map[string]any{"amount": 100, "reason": "Item returned."})
			a.must(200, "POST", "/payments/"+id+"/refund", map[string]any{"transactionEventId": second, "reason": "Second parcel lost."})
			return a, id
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, id := c.run(t)
			g := a.must(200, "GET", withExpand(id), nil)
			apitest.AssertGolden(t, "payment_"+c.name, g.Body)
			// Every capture is an event with its own uuid.
			seen := map[string]bool{}
			for _, ev := range captureEvents(g.JSON) {
				eid, _ := ev["id"].(string)
				assert.Len(t, eid, 36)
				assert.False(t, seen[eid], "duplicate transactionEventId %s", eid)
				seen[eid] = true
			}
			// Without expand there are no events.
			plain := a.must(200, "GET", "/payments/"+id, nil)
			for _, tx := range plain.JSON["transactions"].([]any) {
				assert.NotContains(t, tx, "events")
			}
		})
	}
}

// TestPaymentUnknown: an unknown (or malformed, or another tenant's) payment
// is 400 PaymentError everywhere but authorize, which answers 404.
func TestPaymentUnknown(t *testing.T) {
	a := newTestAPI(t)
	theirs := tenantApp(a, nil).pay(100, numOK).Str("id")
	for _, id := range []string{"nope", "pay99999", "a:b", theirs} {
		for _, c := range []struct {
			method, path string
			body         any
			status       int
			errorID      string
		}{
			{"GET", "", nil, 400, "PaymentError"},
			{"POST", "/capture", nil, 400, "PaymentError"},
			{"POST", "/cancel", nil, 400, "PaymentError"},
			{"POST", "/refund", nil, 400, "PaymentError"},
			{"POST", "/resume", map[string]any{"resumeToken": "00000000-0000-4000-8000-000000000999"}, 400, "PaymentError"},
			{"POST", "/authorize", map[string]any{"processor": map[string]any{"processorMerchantId": "nope"}}, 404, "PaymentNotFoundError"},
		} {
			t.Run(id+c.path, func(t *testing.T) {
				r := a.req(c.method, "/payments/"+id+c.path, c.body)
				requireError(t, r, c.status, c.errorID)
				assert.Equal(t, "The payment could not be found", r.Err()["description"])
			})
		}
	}
}

// TestPaymentAuthorize: authorize only a PENDING payment with nothing in
// progress; 404 comes before MerchantAccountNotFound.
func TestPaymentAuthorize(t *testing.T) {
	a := newPausedAPI(t)
	pending := func() string {
		ct := a.session(map[string]any{"orderId": "o", "currencyCode": "EUR", "amount": 1000, "approvalMode": "MANUAL"})
		att := a.tokenize(ct, numOK).Str("paymentAttemptId")
		return a.must(200, "POST", "/payment-attempts/"+att+"/approve", nil).Str("merchantPaymentId")
	}
	stripe := map[string]any{"processor": map[string]any{"processorMerchantId": "acct_sandbox_stripe"}}
	authorized := a.pay(1000, numOK).Str("id")
	challenged := a.pay(1000, numChallenge).Str("id")
	declined := a.pay(1000, numDecline).Str("id")

	rows := []struct {
		name    string
		id      string
		body    any
		status  int
		errorID string
	}{
		{"unknown payment, unknown account -> 404", "nope", map[string]any{"processor": map[string]any{"processorMerchantId": "nope"}}, 404, "PaymentNotFoundError"},
		{"unknown account -> 400", authorized, map[string]any{"processor": map[string]any{"processorMerchantId": "nope"}}, 400, "MerchantAccountNotFound"},
		{"already authorized -> 400", authorized, stripe, 400, "PaymentAlreadyAuthorized"},
		{"3DS challenge in progress -> 400", challenged, stripe, 400, "InvalidPaymentStatus"},
		{"declined -> 400", declined, stripe, 400, "InvalidPaymentStatus"},
		{"missing processor -> 422", authorized, map[string]any{}, 422, "RequestValidationError"},
		{"missing processorMerchantId -> 422", authorized, map[string]any{"processor": map[string]any{}}, 422, "RequestValidationError"},
		{"no body -> 400", authorized, nil, 400, "BadRequest"},
		{"not JSON -> 400", authorized, "{nope", 400, "BadRequest"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			res := a.req("POST", "/payments/"+r.id+"/authorize", r.body)
			requireError(t, res, r.status, r.errorID)
			if r.errorID == "PaymentAlreadyAuthorized" || r.errorID == "InvalidPaymentStatus" {
				assert.Equal(t, r.id, res.Err()["paymentId"])
				assert.NotEmpty(t, res.Err()["paymentStatus"])
			}
		})
	}
	t.Run("missing processor names the path", func(t *testing.T) {
		assert.Equal(t, []string{"$.processor"}, violations(t, a.req("POST", "/payments/"+authorized+"/authorize", map[string]any{}), "PaymentAuthorizationAPIRequest"))
		assert.Equal(t, []string{"$.processor.processorMerchantId"}, violations(t, a.req("POST", "/payments/"+authorized+"/authorize", map[string]any{"processor": map[string]any{}}), ""))
	})
	t.Run("PENDING -> AUTHORIZED at the named account", func(t *testing.T) {
		id := pending()
		r := a.must(200, "POST", "/payments/"+id+"/authorize", map[string]any{"processor": map[string]any{"processorMerchantId": "acct_sandbox_stripe"}, "expand": []string{"transactions.events"}})
		assert.Equal(t, "AUTHORIZED", r.Str("status"))
		assert.Equal(t, "STRIPE", dig(r.JSON, "processor", "name"))
		assert.Equal(t, "AUTHORIZATION_SUCCEEDED", dig(r.JSON, "transactions", 0, "events", 0, "type"))
		requireError(t, a.req("POST", "/payments/"+id+"/authorize", stripe), 400, "PaymentAlreadyAuthorized")
	})
	t.Run("cancel before the background authorization: it never runs", func(t *testing.T) {
		id := pending()
		assert.Equal(t, "CANCELLED", a.must(200, "POST", "/payments/"+id+"/cancel", nil).Str("status"))
		a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1s"})
		r := a.must(200, "GET", "/payments/"+id, nil)
		assert.Equal(t, "CANCELLED", r.Str("status"))
		assert.Empty(t, r.JSON["transactions"])
		requireError(t, a.req("POST", "/payments/"+id+"/authorize", stripe), 400, "InvalidPaymentStatus")
	})
	t.Run("the background authorization then finds nothing to do", func(t *testing.T) {
		id := pending()
		a.must(200, "POST", "/payments/"+id+"/authorize", map[string]any{"processor": map[string]any{"processorMerchantId": "sandbox_adyen"}})
		a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1s"})
		r := a.must(200, "GET", "/payments/"+id, nil)
		assert.Equal(t, "ADYEN", dig(r.JSON, "processor", "name"))
		assert.Len(t, r.JSON["transactions"], 1)
	})
}

// TestPaymentCapture: default = the rest; partial captures with final:false;
// a final capture closes; 0 or above what is left is 422 $.amount.
func TestPaymentCapture(t *testing.T) {
	a := newTestAPI(t)
	capture := func(id string, body any) *resp { return a.req("POST", "/payments/"+id+"/capture", body) }

	for _, body := range []any{nil, map[string]any{}, ""} {
		t.Run(fmt.Sprintf("body %#v captures the rest", body), func(t *testing.T) {
			id := a.pay(1000, numOK).Str("id")
			r := capture(id, body)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.Equal(t, "SETTLED", r.Str("status"))
			assert.EqualValues(t, 1000, dig(r.JSON, "processor", "amountCaptured"))
			assert.Equal(t, "SETTLED", dig(r.JSON, "transactions", 0, "processorStatus"))
		})
	}
	t.Run("not JSON -> 400", func(t *testing.T) {
		id := a.pay(1000, numOK).Str("id")
		requireError(t, capture(id, "amount=5"), 400, "BadRequest")
		requireError(t, capture(id, "[1]"), 400, "BadRequest")
	})
	t.Run("partial captures, then the rest", func(t *testing.T) {
		id := a.pay(1000, numOK).Str("id")
		steps := []struct {
			body     map[string]any
			status   string
			captured int64
		}{
			{map[string]any{"amount": 300, "final": false}, "PARTIALLY_SETTLED", 300},
			{map[string]any{"amount": 200, "final": false}, "PARTIALLY_SETTLED", 500},
			{map[string]any{}, "SETTLED", 1000},
		}
		for _, s := range steps {
			r := capture(id, s.body)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.Equal(t, s.status, r.Str("status"))
			assert.EqualValues(t, s.captured, dig(r.JSON, "processor", "amountCaptured"))
		}
		evs := captureEvents(a.must(200, "GET", withExpand(id), nil).JSON)
		require.Len(t, evs, 3)
		ids := []string{evs[0]["id"].(string), evs[1]["id"].(string), evs[2]["id"].(string)}
		assert.Len(t, slices.Compact(slices.Sorted(slices.Values(ids))), 3, "each capture has its own transactionEventId")
		assert.Equal(t, []any{float64(300), float64(200), float64(500)}, []any{evs[0]["amount"], evs[1]["amount"], evs[2]["amount"]})
		assert.Equal(t, []any{false, false, true}, []any{evs[0]["final"], evs[1]["final"], evs[2]["final"]})
		requireError(t, capture(id, nil), 400, "InvalidPaymentStatus")
	})
	t.Run("partial captures up to the authorized amount settle", func(t *testing.T) {
		id := a.pay(1000, numOK).Str("id")
		a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 400, "final": false})
		r := a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 600, "final": false})
		assert.Equal(t, "SETTLED", r.Str("status"))
	})
	t.Run("a final partial capture closes the payment", func(t *testing.T) {
		id := a.pay(1000, numOK).Str("id")
		r := a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 300})
		assert.Equal(t, "PARTIALLY_SETTLED", r.Str("status"), "final defaults to true")
		r = capture(id, map[string]any{"amount": 100})
		requireError(t, r, 400, "InvalidPaymentStatus")
		assert.Equal(t, id, r.Err()["paymentId"])
		assert.Equal(t, "PARTIALLY_SETTLED", r.Err()["paymentStatus"])
		a.must(200, "POST", "/payments/"+id+"/refund", nil) // what was captured can be refunded
	})
	t.Run("amount rules", func(t *testing.T) {
		id := a.pay(1000, numOK).Str("id")
		for _, amt := range []any{0, 1001, -1, "5", 1.5} {
			r := capture(id, map[string]any{"amount": amt})
			assert.Equal(t, []string{"$.amount"}, violations(t, r, "PaymentCaptureAPIRequest"), "amount %v", amt)
		}
		a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 900, "final": false})
		assert.Equal(t, []string{"$.amount"}, violations(t, capture(id, map[string]any{"amount": 101}), "PaymentCaptureAPIRequest"))
		assert.Equal(t, []string{"$.bogus"}, violations(t, capture(id, map[string]any{"bogus": 1}), "PaymentCaptureAPIRequest"))
		r := a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 100})
		assert.Equal(t, "SETTLED", r.Str("status"))
	})
	t.Run("amount 0 is a rule of the request: 422 before idempotency and existence", func(t *testing.T) {
		id := a.pay(1000, numOK).Str("id")
		a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 1, "final": false}, "X-Idempotency-Key: used-for-capture")
		for _, path := range []string{"/payments/nope/capture", "/payments/nope/refund"} {
			assert.Equal(t, []string{"$.amount"}, violations(t, a.req("POST", path, map[string]any{"amount": 0}), ""), path)
			assert.Equal(t, []string{"$.amount"}, violations(t, a.req("POST", path, map[string]any{"amount": 0}, "X-Idempotency-Key: used-for-capture"), ""), path)
		}
		assert.Equal(t, []string{"$.amount"}, violations(t, a.req("POST", "/payments/"+id+"/refund", map[string]any{"amount": 0}), "PaymentRefundAPIRequest"), "before status")
	})
	t.Run("capture metadata merges into the payment's", func(t *testing.T) {
		pt := tokenIn(a, map[string]any{"orderId": "o", "currencyCode": "EUR", "amount": 100, "metadata": map[string]any{"a": "1", "b": "2"}}, numOK)
		id := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt}).Str("id")
		r := a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"metadata": map[string]any{"b": "3", "c": 4}})
		assert.Equal(t, map[string]any{"a": "1", "b": "3", "c": float64(4)}, r.JSON["metadata"])
	})
	for _, st := range []struct{ name, number string }{{"DECLINED", numDecline}, {"FAILED", numFail}, {"PENDING", numChallenge}} {
		t.Run(st.name+"/capture->400", func(t *testing.T) {
			id := a.pay(1000, st.number).Str("id")
			r := capture(id, nil)
			requireError(t, r, 400, "InvalidPaymentStatus")
			assert.Equal(t, st.name, r.Err()["paymentStatus"])
		})
	}
}

// TestPaymentCancel: AUTHORIZED and PENDING (3DS) cancel; the rest refuse.
func TestPaymentCancel(t *testing.T) {
	a := newTestAPI(t)
	t.Run("AUTHORIZED -> CANCELLED, reason on the SALE", func(t *testing.T) {
		id := a.pay(1000, numOK).Str("id")
		r := a.must(200, "POST", "/payments/"+id+"/cancel", map[string]any{"reason": "changed mind", "expand": []string{"transactions.events"}})
		assert.Equal(t, "CANCELLED", r.Str("status"))
		sale := txOfType(r.JSON, "SALE")[0]
		assert.Equal(t, "changed mind", sale["reason"])
		assert.Equal(t, "CANCELLED", sale["processorStatus"])
		evs := sale["events"].([]any)
		assert.Equal(t, "CANCELLATION_SUCCEEDED", dig(evs[len(evs)-1], "type"))
		requireError(t, a.req("POST", "/payments/"+id+"/cancel", nil), 400, "InvalidPaymentStatus")
		requireError(t, a.req("POST", "/payments/"+id+"/capture", nil), 400, "InvalidPaymentStatus")
	})
	t.Run("PENDING (3DS) -> CANCELLED and the challenge is gone", func(t *testing.T) {
		p := a.pay(1000, numChallenge)
		ct := dig(p.JSON, "requiredAction", "clientToken").(string)
		r := a.must(200, "POST", "/payments/"+p.Str("id")+"/cancel", map[string]any{})
		assert.Equal(t, "CANCELLED", r.Str("status"))
		assert.NotContains(t, r.JSON, "requiredAction")
		requireError(t, a.req("POST", "/client/3ds/challenge", map[string]any{"result": "AUTH_SUCCESS"}, "X-Client-Token: "+ct), 400, "ClientSessionValidationError")
	})
	t.Run("bodies: none, {} or not JSON", func(t *testing.T) {
		a.must(200, "POST", "/payments/"+a.pay(10, numOK).Str("id")+"/cancel", nil)
		a.must(200, "POST", "/payments/"+a.pay(10, numOK).Str("id")+"/cancel", map[string]any{})
		requireError(t, a.req("POST", "/payments/"+a.pay(10, numOK).Str("id")+"/cancel", "nope"), 400, "BadRequest")
		assert.Equal(t, []string{"$.bogus"}, violations(t, a.req("POST", "/payments/"+a.pay(10, numOK).Str("id")+"/cancel", map[string]any{"bogus": true}), "PaymentCancelAPIRequest"))
	})
	t.Run("SETTLED, DECLINED, FAILED refuse", func(t *testing.T) {
		settled := a.pay(10, numOK).Str("id")
		a.must(200, "POST", "/payments/"+settled+"/capture", nil)
		for _, id := range []string{settled, a.pay(10, numDecline).Str("id"), a.pay(10, numFail).Str("id")} {
			requireError(t, a.req("POST", "/payments/"+id+"/cancel", nil), 400, "InvalidPaymentStatus")
		}
	})
}

// TestPaymentRefund: default = what is left; targeted refunds; the status
// stays; amountRefunded grows; the REFUND carries the reason.
func TestPaymentRefund(t *testing.T) {
	a := newTestAPI(t)
	settled := func(captures ...int64) (string, []string) {
		id := a.pay(1000, numOK).Str("id")
		for _, c := range captures {
			a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": c, "final": false})
		}
		var ids []string
		for _, ev := range captureEvents(a.must(200, "GET", withExpand(id), nil).JSON) {
			ids = append(ids, ev["id"].(string))
		}
		return id, ids
	}
	refund := func(id string, body any) *resp { return a.req("POST", "/payments/"+id+"/refund", body) }

	for _, body := range []any{nil, map[string]any{}} {
		t.Run(fmt.Sprintf("body %v refunds what is left", body), func(t *testing.T) {
			id, _ := settled(1000)
			r := refund(id, body)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.Equal(t, "SETTLED", r.Str("status"), "the status is unchanged")
			assert.EqualValues(t, 1000, dig(r.JSON, "processor", "amountRefunded"))
			rf := txOfType(r.JSON, "REFUND")
			require.Len(t, rf, 1)
			assert.EqualValues(t, 1000, rf[0]["amount"])
			assert.Equal(t, "SETTLED", rf[0]["processorStatus"])
			r = refund(id, nil)
			requireError(t, r, 409, "PaymentAlreadyRefunded")
			assert.Equal(t, id, r.Err()["paymentId"])
			assert.Equal(t, "SETTLED", r.Err()["paymentStatus"])
		})
	}
	t.Run("partial refunds grow amountRefunded; too much -> 422", func(t *testing.T) {
		id, _ := settled(1000)
		r := a.must(200, "POST", "/payments/"+id+"/refund", map[string]any{"amount": 300, "reason": "Item returned.", "orderId": "refund-1"})
		assert.EqualValues(t, 300, dig(r.JSON, "processor", "amountRefunded"))
		assert.Equal(t, "Item returned.", txOfType(r.JSON, "REFUND")[0]["reason"])
		requireError(t, refund(id, map[string]any{"amount": 701}), 422, "UnprocessableRefundAmount")
		assert.Equal(t, []string{"$.amount"}, violations(t, refund(id, map[string]any{"amount": 0}), "PaymentRefundAPIRequest"))
		r = a.must(200, "POST", "/payments/"+id+"/refund", map[string]any{"amount": 700})
		assert.EqualValues(t, 1000, dig(r.JSON, "processor", "amountRefunded"))
		assert.Len(t, txOfType(r.JSON, "REFUND"), 2)
		requireError(t, refund(id, map[string]any{"amount": 1}), 409, "PaymentAlreadyRefunded")
	})
	t.Run("targeted refunds", func(t *testing.T) {
		id, evs := settled(600, 400)
		require.Len(t, evs, 2)
		requireError(t, refund(id, map[string]any{"transactionEventId": evs[1], "amount": 401}), 422, "UnprocessableRefundAmount")
		r := a.must(200, "POST", "/payments/"+id+"/refund", map[string]any{"transactionEventId": evs[1], "amount": 150})
		assert.EqualValues(t, 150, dig(r.JSON, "processor", "amountRefunded"))
		r = a.must(200, "POST", "/payments/"+id+"/refund", map[string]any{"transactionEventId": evs[1]})
		assert.EqualValues(t, 400, dig(r.JSON, "processor", "amountRefunded"), "default is what is left of that capture")
		requireError(t, refund(id, map[string]any{"transactionEventId": evs[1]}), 409, "PaymentAlreadyRefunded")
		r = a.must(200, "POST", "/payments/"+id+"/refund", map[string]any{"amount": 600})
		assert.EqualValues(t, 1000, dig(r.JSON, "processor", "amountRefunded"), "an untargeted refund takes the other capture")
	})
	t.Run("unknown or malformed transactionEventId -> 422", func(t *testing.T) {
		id, _ := settled(1000)
		assert.Equal(t, []string{"$.transactionEventId"}, violations(t, refund(id, map[string]any{"transactionEventId": "00000000-0000-4000-8000-999999999999"}), "PaymentRefundAPIRequest"))
		assert.Equal(t, []string{"$.transactionEventId"}, violations(t, refund(id, map[string]any{"transactionEventId": "nope"}), "PaymentRefundAPIRequest"))
	})
	t.Run("refund of PARTIALLY_SETTLED keeps the status", func(t *testing.T) {
		id, _ := settled(400)
		r := a.must(200, "POST", "/payments/"+id+"/refund", nil)
		assert.Equal(t, "PARTIALLY_SETTLED", r.Str("status"))
		assert.EqualValues(t, 400, dig(r.JSON, "processor", "amountRefunded"))
		r = a.must(200, "POST", "/payments/"+id+"/capture", nil)
		assert.Equal(t, "SETTLED", r.Str("status"), "further captures stay open after a refund")
		r = a.must(200, "POST", "/payments/"+id+"/refund", nil)
		assert.EqualValues(t, 1000, dig(r.JSON, "processor", "amountRefunded"))
	})
	t.Run("AUTHORIZED, DECLINED refuse", func(t *testing.T) {
		for _, id := range []string{a.pay(10, numOK).Str("id"), a.pay(10, numDecline).Str("id")} {
			requireError(t, refund(id, nil), 400, "InvalidPaymentStatus")
		}
	})
	t.Run("not JSON -> 400", func(t *testing.T) {
		id, _ := settled(1000)
		requireError(t, refund(id, "{"), 400, "BadRequest")
	})
}

// TestPayment3DS: the challenge flow through the client side, resume, and
// the control plane's shortcut.
func TestPayment3DS(t *testing.T) {
	a := newTestAPI(t)
	challenged := func() (string, string) {
		p := a.pay(1000, numChallenge)
		require.Equal(t, "PENDING", p.Str("status"))
		require.Equal(t, "3DS_AUTHENTICATION", dig(p.JSON, "requiredAction", "name"))
		return p.Str("id"), dig(p.JSON, "requiredAction", "clientToken").(string)
	}
	answer := func(ct, result string) string {
		return a.must(200, "POST", "/client/3ds/challenge", map[string]any{"result": result}, "X-Client-Token: "+ct, "X-API-KEY:", "X-API-VERSION:").Str("resumeToken")
	}
	resume := func(id string, body any) *resp { return a.req("POST", "/payments/"+id+"/resume", body) }

	t.Run("AUTH_SUCCESS then resume -> AUTHORIZED", func(t *testing.T) {
		id, ct := challenged()
		assert.Equal(t, []string{"$.resumeToken"}, violations(t, resume(id, map[string]any{"resumeToken": "00000000-0000-4000-8000-000000000999"}), "PaymentResumeAPIRequest"), "nothing answered yet")
		rt := answer(ct, "AUTH_SUCCESS")
		require.NotEmpty(t, rt)
		assert.Equal(t, "PENDING", a.must(200, "GET", "/payments/"+id, nil).Str("status"), "the payment moves at resume")
		assert.Equal(t, []string{"$.resumeToken"}, violations(t, resume(id, map[string]any{"resumeToken": "00000000-0000-4000-8000-000000000999"}), "PaymentResumeAPIRequest"))
		r := resume(id, map[string]any{"resumeToken": rt})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, "AUTHORIZED", r.Str("status"))
		assert.NotContains(t, r.JSON, "requiredAction")
		assert.Equal(t, "AUTH_SUCCESS", dig(r.JSON, "paymentMethod", "threeDSecureAuthentication", "responseCode"))
		assert.Equal(t, "THREE_DS", dig(r.JSON, "riskData", "fraudChecks", "preAuthorizationResult"))
		requireError(t, resume(id, map[string]any{"resumeToken": rt}), 400, "InvalidPaymentStatus")
		a.must(200, "POST", "/payments/"+id+"/capture", nil)
	})
	t.Run("AUTH_FAILED then resume -> DECLINED", func(t *testing.T) {
		id, ct := challenged()
		rt := answer(ct, "AUTH_FAILED")
		r := a.must(200, "POST", "/payments/"+id+"/resume", map[string]any{"resumeToken": rt})
		assert.Equal(t, "DECLINED", r.Str("status"))
		assert.Equal(t, "ISSUER_DECLINED", dig(r.JSON, "statusReason", "type"))
		assert.Equal(t, "AUTHENTICATION_REQUIRED", dig(r.JSON, "statusReason", "code"))
	})
	t.Run("the shopper may change the answer before resume", func(t *testing.T) {
		id, ct := challenged()
		rt1 := answer(ct, "AUTH_FAILED")
		rt2 := answer(ct, "AUTH_SUCCESS")
		assert.Equal(t, rt1, rt2)
		assert.Equal(t, "AUTHORIZED", a.must(200, "POST", "/payments/"+id+"/resume", map[string]any{"resumeToken": rt2}).Str("status"))
	})
	t.Run("client resume", func(t *testing.T) {
		ct := a.session(plainSession(1000))
		pt := a.tokenize(ct, numChallenge).Str("token")
		p := a.must(200, "POST", "/client/payments", map[string]any{"paymentMethodToken": pt}, "X-Client-Token: "+ct, "X-API-KEY:", "X-API-VERSION:")
		rt := answer(dig(p.JSON, "requiredAction", "clientToken").(string), "AUTH_SUCCESS")
		r := a.must(200, "POST", "/client/payments/"+p.Str("id")+"/resume", map[string]any{"resumeToken": rt}, "X-Client-Token: "+ct, "X-API-KEY:", "X-API-VERSION:")
		assert.Equal(t, "AUTHORIZED", r.Str("status"))
	})
	t.Run("bad bodies", func(t *testing.T) {
		id, _ := challenged()
		requireError(t, resume(id, nil), 400, "BadRequest")
		requireError(t, resume(id, "resume"), 400, "BadRequest")
		assert.Equal(t, []string{"$.resumeToken"}, violations(t, resume(id, map[string]any{}), "PaymentResumeAPIRequest"))
		requireError(t, a.req("POST", "/client/3ds/challenge", map[string]any{"result": "AUTH_SUCCESS"}, "X-Client-Token: nope"), 400, "ClientSessionValidationError")
		assert.Equal(t, []string{"$.result"}, violations(t, a.req("POST", "/client/3ds/challenge", map[string]any{"result": "MAYBE"}, "X-Client-Token: nope"), ""))
	})
	t.Run("nothing to resume -> 400", func(t *testing.T) {
		for _, id := range []string{a.pay(10, numOK).Str("id"), a.pay(10, numDecline).Str("id")} {
			r := resume(id, map[string]any{"resumeToken": "00000000-0000-4000-8000-000000000999"})
			requireError(t, r, 400, "InvalidPaymentStatus")
			assert.Equal(t, id, r.Err()["paymentId"])
		}
	})
	t.Run("control plane shortcut", func(t *testing.T) {
		id, _ := challenged()
		r := a.must(200, "POST", "/_sandbox/payments/"+id+"/3ds", map[string]any{"result": "AUTH_SUCCESS"}, "X-API-VERSION:")
		assert.Equal(t, "AUTHORIZED", r.Str("status"))
		requireError(t, a.req("POST", "/_sandbox/payments/"+id+"/3ds", map[string]any{"result": "AUTH_SUCCESS"}), 400, "InvalidPaymentStatus")
		id, _ = challenged()
		r = a.must(200, "POST", "/_sandbox/payments/"+id+"/3ds", map[string]any{"result": "AUTH_FAILED"})
		assert.Equal(t, "DECLINED", r.Str("status"))
		assert.Equal(t, "AUTHENTICATION_REQUIRED", dig(r.JSON, "statusReason", "code"))
		requireError(t, a.req("POST", "/_sandbox/payments/nope/3ds", map[string]any{"result": "AUTH_FAILED"}), 400, "PaymentError")
	})
}

// riskData.cvvCheck says whether a CVV came with the card for this payment:
// MATCHED when the shopper typed one, NOT_PROVIDED without one and on
// vaulted (merchant-initiated) payments. The CVV itself is never kept.
func TestPaymentCVVCheck(t *testing.T) {
	a := newTestAPI(t)
	cvv := func(p *resp) any { return dig(p.JSON, "riskData", "cvvCheck", "result") }

	assert.Equal(t, "MATCHED", cvv(a.pay(1000, "4111111111111111")))

	ct := a.session(plainSession(1000))
	noCVV := a.must(200, "POST", "/client/payment-instruments", map[string]any{"paymentInstrument": map[string]any{
		"number": "4111111111111111", "expirationMonth": "12", "expirationYear": "2030"}}, "X-Client-Token: "+ct).Str("token")
	assert.Equal(t, "NOT_PROVIDED", cvv(a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": noCVV})))

	pt := tokenIn(a, plainSession(1000), "4111111111111111")
	vt := a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-1"}).Str("token")
	p := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": vt, "amount": 500, "currencyCode": "EUR", "customerId": "cust-1", "orderId": "o-2"})
	assert.Equal(t, "NOT_PROVIDED", cvv(p))
}
