package httpapi_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
)

// Each test of a version difference makes the same request with an older
// version and with 2.4 and checks both answers.

func ver(v simulator.APIVersion) string { return "X-API-VERSION: " + string(v) }

func TestAPIVersionHeader(t *testing.T) {
	a := newTestAPI(t)
	for _, v := range simulator.APIVersions {
		for _, name := range []string{"X-API-VERSION", "X-Api-Version"} {
			t.Run(string(v)+"/"+name, func(t *testing.T) {
				a.must(200, "GET", "/payments", nil, "X-API-VERSION:", name+": "+string(v))
			})
		}
	}
	for _, bad := range []string{"2", "2.0", "2.5", "2.4.0", "2021-09-27"} {
		t.Run("refused "+bad, func(t *testing.T) {
			r := a.req("GET", "/payments", nil, "X-API-VERSION: "+bad)
			requireError(t, r, 400, "UnsupportedApiVersion")
			assert.Contains(t, r.Err()["description"], "2.1, 2.2, 2.3 or 2.4")
		})
	}
	t.Run("missing: 400 with a missing-api-version hint", func(t *testing.T) {
		r := a.req("GET", "/payments", nil, "X-API-VERSION:")
		requireError(t, r, 400, "UnsupportedApiVersion")
		assert.Contains(t, r.Err()["description"], "2.1, 2.2, 2.3 or 2.4")
		rid := r.Header.Get("X-Request-Id")
		e := journalEntry(t, a, rid)
		hints, _ := e["hints"].([]any)
		require.Len(t, hints, 1)
		h := hints[0].(map[string]any)
		assert.Equal(t, "missing-api-version", h["kind"])
		assert.Contains(t, h["message"], "earliest version (2.1)")
		_, has := e["apiVersion"]
		assert.False(t, has)
	})
}

// journalEntry finds the tenant's journal entry of a request id.
func journalEntry(t *testing.T, a *testAPI, rid string) map[string]any {
	t.Helper()
	var list struct {
		Data []map[string]any `json:"data"`
	}
	r := a.must(200, "GET", "/_sandbox/requests?limit=100", nil)
	require.NoError(t, json.Unmarshal(r.Body, &list), "%s", r.Body)
	for _, e := range list.Data {
		if e["requestId"] == rid {
			return e
		}
	}
	t.Fatalf("no journal entry %s in %s", rid, r.Body)
	return nil
}

func TestAPIVersionDeprecationHeaders(t *testing.T) {
	a := newTestAPI(t)
	assert.Equal(t, int64(1780272000), time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).Unix())
	for _, v := range []simulator.APIVersion{simulator.V21, simulator.V22, simulator.V23} {
		t.Run(string(v), func(t *testing.T) {
			r := a.must(200, "GET", "/payments", nil, ver(v))
			assert.Equal(t, "@1780272000", r.Header.Get("Deprecation"))
			assert.Equal(t, "Tue, 01 Jun 2027 00:00:00 GMT", r.Header.Get("Sunset"))
			link := r.Header.Get("Link")
			assert.Contains(t, link, `rel="deprecation"`)
			require.True(t, strings.HasPrefix(link, "<"))
			target := link[1:strings.IndexByte(link, '>')]
			// The link resolves, without a key.
			notes := a.must(200, "GET", target, nil, "X-API-KEY:", "X-API-VERSION:")
			assert.Equal(t, "2.4", notes.Str("current"))
			vs := notes.JSON["versions"].([]any)
			require.Len(t, vs, 4)
			found := false
			for _, x := range vs {
				n := x.(map[string]any)
				if n["version"] == string(v) {
					found = true
					assert.Equal(t, true, n["deprecated"])
					assert.Equal(t, "2027-06-01T00:00:00.000000Z", n["sunset"])
					assert.Len(t, n["differences"], len(simulator.DifferencesOf(v)))
				}
			}
			assert.True(t, found)
			assert.Equal(t, string(v), journalEntry(t, a, r.Header.Get("X-Request-Id"))["apiVersion"])
		})
	}
	t.Run("2.4 has none", func(t *testing.T) {
		r := a.must(200, "GET", "/payments", nil)
		for _, h := range []string{"Deprecation", "Sunset", "Link"} {
			assert.Empty(t, r.Header.Get(h), h)
		}
		assert.Equal(t, "2.4", journalEntry(t, a, r.Header.Get("X-Request-Id"))["apiVersion"])
	})
}

// TestAPIVersionMethodNotAllowed: a merchant route's 405 (answered before
// the key and version checks) carries an older version's Deprecation,
// Sunset and Link headers; 2.4's, a bad version's and the control plane's
// do not.
func TestAPIVersionMethodNotAllowed(t *testing.T) {
	a := newTestAPI(t)
	for _, tc := range []struct {
		name, method, path, version string
		headers                     bool
	}{
		{"2.2 DELETE /payments", "DELETE", "/payments", "2.2", true},
		{"2.1 PUT /payments/{id}/capture", "PUT", "/payments/abc/capture", "2.1", true},
		{"2.3 without a key", "DELETE", "/client-session", "2.3", true},
		{"2.4", "DELETE", "/payments", "2.4", false},
		{"unknown version", "DELETE", "/payments", "2.0", false},
		{"control plane", "DELETE", "/_sandbox/clock", "2.2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			headers := []string{"X-API-VERSION: " + tc.version}
			if tc.name == "2.3 without a key" {
				headers = append(headers, "X-API-KEY:")
			}
			r := a.req(tc.method, tc.path, nil, headers...)
			requireError(t, r, 405, "MethodNotAllowed")
			if tc.headers {
				assert.Equal(t, "@1780272000", r.Header.Get("Deprecation"))
				assert.Equal(t, "Tue, 01 Jun 2027 00:00:00 GMT", r.Header.Get("Sunset"))
				assert.Contains(t, r.Header.Get("Link"), `rel="deprecation"`)
			} else {
				for _, h := range []string{"Deprecation", "Sunset", "Link"} {
					assert.Empty(t, r.Header.Get(h), h)
				}
			}
		})
	}
}

func TestAPIVersionAttemptRoutes(t *testing.T) {
	a := newTestAPI(t)
	id := "00000000-0000-4000-8000-000000000001"
	old := a.req("POST", "/payment-attempts/"+id+"/approve", nil, ver(simulator.V23))
	requireError(t, old, 404, "NotFound")
	unknown := a.req("POST", "/no-such-route", nil, ver(simulator.V23))
	assert.Equal(t, unknown.Err()["description"], old.Err()["description"], "as an unknown route")
	requireError(t, a.req("POST", "/payment-attempts/"+id+"/abort", nil, ver(simulator.V21)), 404, "NotFound")
	requireError(t, a.req("POST", "/payment-attempts/"+id+"/approve", nil, ver(simulator.V23), "X-API-KEY: nope"), 401, "Unauthorized")
	requireError(t, a.req("POST", "/payment-attempts/"+id+"/approve", nil, "X-API-VERSION: 2.0"), 400, "UnsupportedApiVersion")
	requireError(t, a.req("POST", "/payment-attempts/"+id+"/approve", nil, ver(simulator.V24)), 404, "PaymentAttemptNotFound")
}

func TestAPIVersionUnknownFields(t *testing.T) {
	a := newTestAPI(t)
	settled := func(v simulator.APIVersion) string {
		id := a.pay(1000, numOK).Str("id")
		a.must(200, "POST", "/payments/"+id+"/capture", nil, ver(v))
		return id
	}
	lineItems := map[string]any{"lineItems": []any{map[string]any{"itemId": "i1", "amount": 1000, "quantity": 1, "productData": map[string]any{"sku": "s-1"}}}}
	for _, tc := range []struct {
		name   string
		method string
		path   func(v simulator.APIVersion) string
		body   map[string]any
		field  string
		until  simulator.APIVersion
	}{
		{"approvalMode", "POST", func(simulator.APIVersion) string { return "/client-session" }, map[string]any{"orderId": "o", "approvalMode": "MANUAL"}, "$.approvalMode", simulator.V24},
		{"firstPaymentReason", "POST", func(simulator.APIVersion) string { return "/client-session" }, map[string]any{"orderId": "o", "paymentMethod": map[string]any{"firstPaymentReason": "CardOnFile"}}, "$.paymentMethod.firstPaymentReason", simulator.V24},
		{"vaultOnAgreement", "POST", func(simulator.APIVersion) string { return "/client-session" }, map[string]any{"orderId": "o", "paymentMethod": map[string]any{"vaultOnAgreement": true}}, "$.paymentMethod.vaultOnAgreement", simulator.V24},
		{"expand", "POST", func(v simulator.APIVersion) string { return "/payments/" + a.pay(1000, numOK).Str("id") + "/capture" }, map[string]any{"expand": []string{"transactions.events"}}, "$.expand", simulator.V24},
		{"transactionEventId", "POST", func(v simulator.APIVersion) string { return "/payments/" + settled(v) + "/refund" }, map[string]any{"transactionEventId": "00000000-0000-4000-8000-000000000001"}, "$.transactionEventId", simulator.V24},
		{"productData", "POST", func(simulator.APIVersion) string { return "/client-session" }, map[string]any{"orderId": "o", "currencyCode": "EUR", "order": lineItems}, "$.order.lineItems[0].productData", simulator.V22},
	} {
		for _, v := range simulator.APIVersions {
			t.Run(tc.name+"/"+string(v), func(t *testing.T) {
				r := a.req(tc.method, tc.path(v), tc.body, ver(v))
				if v.Before(tc.until) {
					requireError(t, r, 422, "RequestValidationError")
					assert.Contains(t, string(r.Body), `"path":"`+tc.field+`"`)
					assert.Contains(t, string(r.Body), "Extra fields not permitted")
				} else {
					assert.NotContains(t, string(r.Body), "Extra fields not permitted", "%s", r.Body)
				}
			})
		}
	}
}

// TestAPIVersionAnswerShape: the same payment read with 2.3 and 2.4; the
// older answer lacks authorizationCode and events, keeps the processor ids.
func TestAPIVersionAnswerShape(t *testing.T) {
	a := newTestAPI(t)
	id := a.pay(1000, numOK).Str("id")
	a.must(200, "POST", "/payments/"+id+"/capture", nil)
	now := a.must(200, "GET", "/payments/"+id+"?expand=transactions.events", nil)
	old := a.must(200, "GET", "/payments/"+id+"?expand=transactions.events", nil, ver(simulator.V23))
	tn, to := txns(now.JSON)[0], txns(old.JSON)[0]
	assert.NotEmpty(t, tn["authorizationCode"])
	assert.NotEmpty(t, tn["events"])
	assert.NotContains(t, to, "authorizationCode")
	assert.NotContains(t, to, "events")
	for _, k := range []string{"processorTransactionId", "processorMerchantId"} {
		assert.NotEmpty(t, to[k], k)
		assert.Equal(t, tn[k], to[k], k)
	}
	assert.NotContains(t, string(old.Body), "processorData")

	t.Run("sessions", func(t *testing.T) {
		body := map[string]any{"orderId": "o", "approvalMode": "MANUAL"}
		ct := a.session(body)
		s24 := a.must(200, "GET", "/client-session?clientToken="+ct, nil)
		s23 := a.must(200, "GET", "/client-session?clientToken="+ct, nil, ver(simulator.V23))
		assert.Equal(t, "MANUAL", s24.Str("approvalMode"))
		assert.NotContains(t, s23.JSON, "approvalMode")
	})
	t.Run("answers without a version header use the payment's", func(t *testing.T) {
		old := a.payFull(1000, numOK, nil, ver(simulator.V23)).Str("id")
		cur := a.payFull(1000, numOK, nil).Str("id")
		ro := a.must(200, "GET", "/payments/"+old, nil)
		assert.Equal(t, "ECOMMERCE", dig(ro.JSON, "paymentMethod", "paymentType"), "recorded at creation")
		assert.NotContains(t, txns(settle(t, a, old))[0], "authorizationCode")
		assert.Contains(t, txns(settle(t, a, cur))[0], "authorizationCode")
	})
}

// settle captures id (2.4; the default rules settle at once) and answers
// the control plane's view of it (GET /_sandbox/wait, no version header).
func settle(t *testing.T, a *testAPI, id string) map[string]any {
	t.Helper()
	a.must(200, "POST", "/payments/"+id+"/capture", nil)
	r := a.must(200, "GET", "/_sandbox/wait?paymentId="+id+"&status=SETTLED&timeout=1s", nil, "X-API-VERSION:")
	return r.JSON
}

func TestAPIVersionGatewayTimeout(t *testing.T) {
	root, _ := startAPI(t, apiOptions{RequestTimeout: 200 * time.Millisecond})
	for _, v := range []simulator.APIVersion{simulator.V23, simulator.V24} {
		t.Run(string(v), func(t *testing.T) {
			a := root.asNewTenant()
			r := a.payFull(5042, numOK, nil, ver(v), "X-Idempotency-Key: k")
			require.Equal(t, 504, r.Status, "%s", r.Body)
			id := r.Err()["paymentId"].(string)
			a.advance("2m")
			p := a.must(200, "GET", "/payments/"+id, nil, ver(v))
			require.Equal(t, "FAILED", p.Str("status"))
			want := "GATEWAY_TIMEOUT"
			if v == simulator.V23 {
				want = "APPLICATION_ERROR"
			}
			assert.Equal(t, want, sub(p.JSON, "statusReason")["type"])
		})
	}
}

// TestAPIVersionTimeoutRecovery: a 504's recoverySuggestion names what a
// retry with the same idempotency key answers in the request's version, and
// the retry answers exactly that.
func TestAPIVersionTimeoutRecovery(t *testing.T) {
	root, _ := startAPI(t, apiOptions{RequestTimeout: 200 * time.Millisecond})
	for _, v := range simulator.APIVersions {
		t.Run(string(v), func(t *testing.T) {
			a := root.asNewTenant()
			r := a.payFull(5040, numOK, nil, ver(v), "X-Idempotency-Key: k")
			require.Equal(t, 504, r.Status, "%s", r.Body)
			want := "409 IdempotencyKeyAlreadyExists"
			if v.Has(simulator.DiffIdempotency400) {
				want = "400 TransactionRequestIdempotencyKeyAlreadyExists"
			}
			assert.Contains(t, r.Err()["recoverySuggestion"], "a retry with the same X-Idempotency-Key answers "+want+" with it")
			again := a.payFull(5040, numOK, nil, ver(v), "X-Idempotency-Key: k")
			status, code, _ := strings.Cut(want, " ")
			assert.Equal(t, status, fmt.Sprint(again.Status))
			assert.Equal(t, code, again.ErrorID())
			assert.Equal(t, r.Err()["paymentId"], again.Err()["paymentId"])
		})
	}
}

// TestAPIVersionPartialCaptures: every version keeps further captures open
// after final: false (the repro: at 2.2, 400 then 100 of 1000); below 2.4
// the captures have no identity (no transactions[].events), and no answer
// carries a Sandbox-Warning.
func TestAPIVersionPartialCaptures(t *testing.T) {
	a := newTestAPI(t)
	for _, v := range simulator.APIVersions {
		t.Run(string(v), func(t *testing.T) {
			id := a.pay(1000, numOK).Str("id")
			first := a.must(200, "POST", "/payments/"+id+"/capture", map[string]any{"amount": 400, "final": false}, ver(v))
			assert.Equal(t, "PARTIALLY_SETTLED", first.Str("status"))
			second := a.req("POST", "/payments/"+id+"/capture", map[string]any{"amount": 100}, ver(v))
			require.Equal(t, 200, second.Status, "%s", second.Body)
			assert.Empty(t, second.Header.Get("Sandbox-Warning"))
			assert.EqualValues(t, 500, dig(second.JSON, "processor", "amountCaptured"))
			requireError(t, a.req("POST", "/payments/"+id+"/capture", map[string]any{"amount": 100}, ver(v)), 400, "InvalidPaymentStatus")
			read := a.must(200, "GET", "/payments/"+id+"?expand=transactions.events", nil, ver(v))
			events := 0
			for _, tx := range txns(read.JSON) {
				evs, _ := tx["events"].([]any)
				events += len(evs)
			}
			if v.Has(simulator.DiffCaptureIdentity) {
				assert.Zero(t, events, "no capture identity below 2.4")
			} else {
				assert.NotZero(t, events)
			}
		})
	}
}

func TestAPIVersionComputedPaymentType(t *testing.T) {
	a := newTestAPI(t)
	pt := tokenIn(a, map[string]any{"orderId": "o"}, numOK)
	vt := a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-v"}).Str("token")
	vaulted := func(v simulator.APIVersion) *resp {
		return a.must(200, "POST", "/payments", map[string]any{
			"paymentMethodToken": vt, "amount": 100, "currencyCode": "EUR", "customerId": "cust-v", "orderId": "o-v",
		}, ver(v))
	}
	for _, v := range []simulator.APIVersion{simulator.V21, simulator.V23, simulator.V24} {
		t.Run(string(v), func(t *testing.T) {
			oneOff := a.payFull(1000, numOK, nil, ver(v))
			require.Equal(t, 200, oneOff.Status)
			if v == simulator.V24 {
				assert.Nil(t, dig(oneOff.JSON, "paymentMethod", "paymentType"))
				assert.Nil(t, dig(vaulted(v).JSON, "paymentMethod", "paymentType"))
				return
			}
			assert.Equal(t, "ECOMMERCE", dig(oneOff.JSON, "paymentMethod", "paymentType"))
			assert.Equal(t, "UNSCHEDULED", dig(vaulted(v).JSON, "paymentMethod", "paymentType"))
			given := a.payFull(1000, numOK, map[string]any{"paymentMethod": map[string]any{"paymentType": "SUBSCRIPTION"}}, ver(v))
			assert.Equal(t, "SUBSCRIPTION", dig(given.JSON, "paymentMethod", "paymentType"), "a supplied one is kept")
		})
	}
}

func TestAPIVersionIdempotencyError(t *testing.T) {
	a := newTestAPI(t)
	first := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(1000), numOK)}, "X-Idempotency-Key: key-v")
	for _, v := range simulator.APIVersions {
		t.Run(string(v), func(t *testing.T) {
			r := a.req("POST", "/payments/"+first.Str("id")+"/capture", nil, ver(v), "X-Idempotency-Key: key-v")
			if v.Before(simulator.V23) {
				requireError(t, r, 400, "TransactionRequestIdempotencyKeyAlreadyExists")
				assert.Equal(t, "Transaction request already exists with idempotency key 'key-v'.", r.Err()["description"])
			} else {
				requireError(t, r, 409, "IdempotencyKeyAlreadyExists")
			}
			assert.Equal(t, first.Str("id"), r.Err()["paymentId"])
			assert.Equal(t, "AUTHORIZED", r.Err()["paymentStatus"])
		})
	}
}

func TestAPIVersionProductData(t *testing.T) {
	a := newTestAPI(t)
	ct := a.session(map[string]any{"orderId": "o", "currencyCode": "EUR", "order": map[string]any{"lineItems": []any{
		map[string]any{"itemId": "i1", "amount": 1000, "quantity": 1, "productData": map[string]any{"sku": "s-1"}},
	}}})
	for _, v := range simulator.APIVersions {
		r := a.must(200, "GET", "/client-session?clientToken="+ct, nil, ver(v))
		li := dig(r.JSON, "order", "lineItems", 0).(map[string]any)
		if v == simulator.V21 {
			assert.NotContains(t, li, "productData", v)
		} else {
			assert.Contains(t, li, "productData", v)
		}
	}
}

// goldenPaths maps each difference to the answer paths (arrays as [])
// it may change; an older version's golden may differ from its 2.4 twin only
// at the paths of the differences its version has.
var goldenPaths = map[string][]string{
	simulator.DiffAnswerShape:    {"transactions[].authorizationCode", "transactions[].events", "currentAttemptId", "approvalMode"},
	simulator.DiffComputedType:   {"paymentMethod.paymentType"},
	simulator.DiffProductData:    {"order.lineItems[].productData"},
	simulator.DiffNewFields:      {},
	simulator.DiffGatewayTimeout: {"statusReason.type", "transactions[].processorStatusReason.type"},
}

// TestAPIVersionGoldens: the answers of older versions, as goldens, each
// checked against its 2.4 twin and the difference table.
func TestAPIVersionGoldens(t *testing.T) {
	for _, v := range []simulator.APIVersion{simulator.V21, simulator.V22, simulator.V23} {
		t.Run(string(v), func(t *testing.T) {
			a := newTestAPI(t)
			r := a.payFull(1000, numOK, nil, ver(v))
			require.Equal(t, 200, r.Status, "%s", r.Body)
			name := "payment_create_authorized_v" + string(v)
			apitest.AssertGolden(t, name, r.Body)
			checkAgainstTable(t, v, "payment_create_authorized", name)
		})
	}
}

func checkAgainstTable(t *testing.T, v simulator.APIVersion, base, name string) {
	t.Helper()
	read := func(n string) map[string]string {
		b, err := os.ReadFile(filepath.Join("testdata", n+".json"))
		require.NoError(t, err)
		var x any
		require.NoError(t, json.Unmarshal(b, &x))
		out := map[string]string{}
		flatten("", x, out)
		return out
	}
	want, got := read(base), read(name)
	allowed := map[string]bool{}
	for _, d := range simulator.DifferencesOf(v) {
		for _, p := range goldenPaths[d.Kind] {
			allowed[p] = true
		}
	}
	var bad []string
	for _, p := range unionKeys(want, got) {
		if want[p] == got[p] {
			continue
		}
		ok := false
		for a := range allowed {
			if p == a || strings.HasPrefix(p, a+".") || strings.HasPrefix(p, a+"[]") {
				ok = true
			}
		}
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: %q on 2.4, %q on %s", p, want[p], got[p], v))
		}
	}
	assert.Empty(t, bad, "differences the version table does not explain")
}

func unionKeys(a, b map[string]string) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// flatten lists the leaves of a JSON value by path, arrays as [] (values of
// one array's items are joined, so counts and order still compare).
func flatten(path string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			flatten(p, val, out)
		}
	case []any:
		for _, val := range x {
			sub := map[string]string{}
			flatten("", val, sub)
			for k, s := range sub {
				p := path + "[]"
				if k != "" {
					p += "." + k
				}
				out[p] += s + "|"
			}
		}
	default:
		b, _ := json.Marshal(x)
		out[path] = string(b)
	}
}
