package httpapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
)

// cardWith is card(number) with some fields of paymentInstrument replaced (nil removes).
func cardWith(number string, fields map[string]any) map[string]any {
	b := card(number)
	pi := b["paymentInstrument"].(map[string]any)
	for k, v := range fields {
		if v == nil {
			delete(pi, k)
		} else {
			pi[k] = v
		}
	}
	return b
}

func TestTokenize(t *testing.T) {
	a := newTestAPI(t)
	tok := a.session(map[string]any{"orderId": "o-1", "currencyCode": "EUR", "amount": 1000})
	r := a.tokenize(tok, "4111111111111111")
	apitest.AssertGolden(t, "tokenize_visa", r.Body)
	assert.Equal(t, "SINGLE_USE", r.Str("tokenType"))
	assert.Equal(t, "PAYMENT_CARD", r.Str("paymentInstrumentType"))
	assert.Equal(t, false, r.JSON["isVaulted"])
	assert.NotEmpty(t, r.Str("analyticsId"))
	assert.NotContains(t, r.JSON, "paymentAttemptId", "AUTO session")
	data := r.JSON["paymentInstrumentData"].(map[string]any)
	v, present := data["first6Digits"]
	assert.True(t, present, "first6Digits is present")
	assert.Nil(t, v, "and null by default")
	assert.Equal(t, "1111", data["last4Digits"])
	assert.NotContains(t, string(r.Body), "4111111111111111")
	assert.NotContains(t, string(r.Body), "411111", "no BIN unless the tenant opts in")

	networks := []struct {
		number, display, enum, last4 string
	}{
		{"4111111111111111", "Visa", "VISA", "1111"},
		{"5555555555554444", "Mastercard", "MASTERCARD", "4444"},
		{"2223003122003222", "Mastercard", "MASTERCARD", "3222"},
		{"378282246310005", "American Express", "AMEX", "0005"},
		{"4000056655665556", "Visa", "VISA", "5556"}, // not in the catalogue: known by its prefix
	}
	for _, n := range networks {
		t.Run(n.display+" "+n.last4, func(t *testing.T) {
			b := card(n.number)
			if n.enum == "AMEX" {
				b["paymentInstrument"].(map[string]any)["cvv"] = "1234"
			}
			r := a.must(200, "POST", "/client/payment-instruments", b, "X-Client-Token: "+tok)
			d := r.JSON["paymentInstrumentData"].(map[string]any)
			assert.Equal(t, n.display, d["network"], "display name")
			assert.Equal(t, n.enum, d["binData"].(map[string]any)["network"], "binData enum")
			assert.Equal(t, n.last4, d["last4Digits"])
			assert.Equal(t, "12", d["expirationMonth"])
			assert.Equal(t, "2030", d["expirationYear"])
			assert.Equal(t, "Jane Doe", d["cardholderName"])
			assert.Equal(t, false, d["isNetworkTokenized"])
			assert.Nil(t, d["first6Digits"])
		})
	}

	t.Run("tokens are single-use and distinct", func(t *testing.T) {
		t1 := a.tokenize(tok, "4111111111111111").Str("token")
		t2 := a.tokenize(tok, "4111111111111111").Str("token")
		assert.NotEqual(t, t1, t2)
	})
}

func TestTokenizeRefused(t *testing.T) {
	a := newTestAPI(t)
	tok := a.session(map[string]any{"orderId": "o-1"})
	tests := []struct {
		name    string
		body    any
		token   string
		status  int
		errorID string
		paths   []string
	}{
		{name: "Luhn failure", body: card("4111111111111112"), status: 422, paths: []string{"$.paymentInstrument.number"}},
		{name: "too short, though Luhn-valid", body: card("42"), status: 422, paths: []string{"$.paymentInstrument.number"}},
		{name: "too long, though Luhn-valid", body: card("41111111111111111111110"), status: 422, paths: []string{"$.paymentInstrument.number"}},
		{name: "letters in the number", body: card("4111-1111-1111-1111"), status: 422, paths: []string{"$.paymentInstrument.number"}},
		{name: "month 13", body: cardWith("4111111111111111", map[string]any{"expirationMonth": "13"}), status: 422, paths: []string{"$.paymentInstrument.expirationMonth"}},
		{name: "month 00", body: cardWith("4111111111111111", map[string]any{"expirationMonth": "00"}), status: 422, paths: []string{"$.paymentInstrument.expirationMonth"}},
		{name: "one-digit month", body: cardWith("4111111111111111", map[string]any{"expirationMonth": "1"}), status: 422, paths: []string{"$.paymentInstrument.expirationMonth"}},
		{name: "two-digit year", body: cardWith("4111111111111111", map[string]any{"expirationYear": "30"}), status: 422, paths: []string{"$.paymentInstrument.expirationYear"}},
		{name: "bad cvv", body: cardWith("4111111111111111", map[string]any{"cvv": "12a"}), status: 422, paths: []string{"$.paymentInstrument.cvv"}},
		{name: "every card rule at once", body: cardWith("4111111111111112", map[string]any{"expirationMonth": "13", "expirationYear": "x", "cvv": "1"}), status: 422,
			paths: []string{"$.paymentInstrument.number", "$.paymentInstrument.expirationMonth", "$.paymentInstrument.expirationYear", "$.paymentInstrument.cvv"}},
		{name: "missing fields", body: map[string]any{"paymentInstrument": map[string]any{}}, status: 422,
			paths: []string{"$.paymentInstrument.number", "$.paymentInstrument.expirationMonth", "$.paymentInstrument.expirationYear"}},
		{name: "no paymentInstrument", body: map[string]any{}, status: 422, paths: []string{"$.paymentInstrument"}},
		{name: "unknown field", body: cardWith("4111111111111111", map[string]any{"pin": "0000"}), status: 422, paths: []string{"$.paymentInstrument.pin"}},
		{name: "number as a number", body: `{"paymentInstrument": {"number": 4111111111111111, "expirationMonth": "12", "expirationYear": "2030"}}`, status: 422, paths: []string{"$.paymentInstrument.number"}},
		{name: "not JSON", body: `{`, status: 400, errorID: "BadRequest"},
		{name: "missing client token", token: "-", body: card("4111111111111111"), status: 400, errorID: "ClientSessionValidationError"},
		{name: "unknown client token", token: "cst_nope", body: card("4111111111111111"), status: 400, errorID: "ClientSessionValidationError"},
		{name: "client token checked before the body", token: "cst_nope", body: card("4111111111111112"), status: 400, errorID: "ClientSessionValidationError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := "X-Client-Token: " + tok
			switch tc.token {
			case "-":
				h = "X-Client-Token:"
			case "":
			default:
				h = "X-Client-Token: " + tc.token
			}
			r := a.req("POST", "/client/payment-instruments", tc.body, h)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			if tc.status == 422 {
				assert.ElementsMatch(t, tc.paths, paths(fieldErrors(t, r, "PaymentInstrumentTokenizationRequest")))
				return
			}
			assert.Equal(t, tc.errorID, r.ErrorID())
		})
	}
	t.Run("Luhn golden", func(t *testing.T) {
		r := a.req("POST", "/client/payment-instruments", card("4111111111111112"), "X-Client-Token: "+tok)
		apitest.AssertGolden(t, "error_tokenize_luhn", r.Body)
	})
	t.Run("expired client token", func(t *testing.T) {
		a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "24h"})
		r := a.req("POST", "/client/payment-instruments", card("4111111111111111"), "X-Client-Token: "+tok)
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "ClientSessionValidationError", r.ErrorID())
		apitest.AssertGolden(t, "error_client_token", r.Body)
	})
}

func TestTokenizeManualSession(t *testing.T) {
	a := newTestAPI(t)
	tok := a.session(map[string]any{"orderId": "o-1", "currencyCode": "EUR", "amount": 1000, "approvalMode": "MANUAL"})
	r := a.tokenize(tok, "4111111111111111")
	apitest.AssertGolden(t, "tokenize_manual", r.Body)
	att := r.Str("paymentAttemptId")
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, att)
	g := a.must(200, "GET", "/_sandbox/payment-attempts/"+att, nil)
	assert.Equal(t, "AWAITING_APPROVAL", g.Str("status"))
}

func TestVault(t *testing.T) {
	a := newTestAPI(t)
	single := func(t *testing.T, number string) string {
		t.Helper()
		tok := a.session(map[string]any{"orderId": "o-1", "customerId": "cust-1"})
		return a.tokenize(tok, number).Str("token")
	}
	pt := single(t, "4111111111111111")
	v := a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-1"})
	apitest.AssertGolden(t, "instrument_vault", v.Body)
	vt := v.Str("token")
	assert.NotEqual(t, pt, vt, "a new token")
	assert.Equal(t, "MULTI_USE", v.Str("tokenType"))
	assert.Equal(t, "PAYMENT_CARD", v.Str("paymentMethodType"))
	assert.Equal(t, "cust-1", v.Str("customerId"))
	assert.Equal(t, false, v.JSON["deleted"])
	assert.Equal(t, true, v.JSON["default"], "a customer's first method is the default")
	assert.Equal(t, false, v.JSON["isVerified"])
	assert.Equal(t, "2026-11-22T07:30:00.000000Z", v.Str("createdAt"))
	for _, k := range []string{"createdAt", "deleted", "token", "tokenType", "analyticsId", "paymentMethodType", "paymentMethodData", "customerId", "default", "isVerified"} {
		assert.Contains(t, v.JSON, k)
	}

	t.Run("vaulting again returns the same record", func(t *testing.T) {
		for _, tok := range []string{pt, vt} {
			again := a.must(200, "POST", "/payment-instruments/"+tok+"/vault", map[string]any{"customerId": "cust-1"})
			assert.Equal(t, v.JSON, again.JSON, "via %s", tok)
		}
		l := a.must(200, "GET", "/payment-instruments?customer_id=cust-1", nil)
		assert.Len(t, l.JSON["data"], 1, "no second record")
	})

	t.Run("verify with a good card", func(t *testing.T) {
		r := a.must(200, "POST", "/payment-instruments/"+single(t, "5555555555554444")+"/vault", map[string]any{"customerId": "cust-v", "verify": true})
		assert.Equal(t, true, r.JSON["isVerified"])
	})
	t.Run("verify with a decline card", func(t *testing.T) {
		tok := single(t, "4000000000000002")
		r := a.req("POST", "/payment-instruments/"+tok+"/vault", map[string]any{"customerId": "cust-d", "verify": true})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "FailedVerification", r.ErrorID())
		apitest.AssertGolden(t, "error_failed_verification", r.Body)
		l := a.must(200, "GET", "/payment-instruments?customer_id=cust-d", nil)
		assert.Empty(t, l.JSON["data"], "nothing vaulted")
		r = a.must(200, "POST", "/payment-instruments/"+tok+"/vault", map[string]any{"customerId": "cust-d"})
		assert.Equal(t, false, r.JSON["isVerified"], "without verify the card is vaulted unverified")
	})

	other := a.as(a.newTenant(nil))
	refused := []struct {
		name    string
		app     *testAPI
		token   string
		body    any
		status  int
		errorID string
		paths   []string
	}{
		{name: "missing customerId", token: single(t, "4111111111111111"), body: map[string]any{"verify": true}, status: 422, paths: []string{"$.customerId"}},
		{name: "empty customerId", token: single(t, "4111111111111111"), body: map[string]any{"customerId": ""}, status: 422, paths: []string{"$.customerId"}},
		{name: "customerId too long", token: single(t, "4111111111111111"), body: map[string]any{"customerId": strings.Repeat("c", 256)}, status: 422, paths: []string{"$.customerId"}},
		{name: "verify not a boolean", token: single(t, "4111111111111111"), body: map[string]any{"customerId": "c", "verify": "yes"}, status: 422, paths: []string{"$.verify"}},
		{name: "unknown field", token: single(t, "4111111111111111"), body: map[string]any{"customerId": "c", "bogusField": 1}, status: 422, paths: []string{"$.bogusField"}},
		{name: "no body", token: single(t, "4111111111111111"), status: 400, errorID: "BadRequest"},
		{name: "unknown token", token: "tok_nope", body: map[string]any{"customerId": "c"}, status: 400, errorID: "InvalidPaymentInstrumentToken"},
		{name: "another tenant's token", app: other, token: single(t, "4111111111111111"), body: map[string]any{"customerId": "c"}, status: 400, errorID: "InvalidPaymentInstrumentToken"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			app := tc.app
			if app == nil {
				app = a
			}
			r := app.req("POST", "/payment-instruments/"+tc.token+"/vault", tc.body)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			if tc.status == 422 {
				assert.ElementsMatch(t, tc.paths, paths(fieldErrors(t, r, "VaultPaymentInstrumentAPIRequest")))
				return
			}
			assert.Equal(t, tc.errorID, r.ErrorID())
		})
	}
}

func TestSavedPaymentMethods(t *testing.T) {
	a := newTestAPI(t)
	vault := func(t *testing.T, cust, number string) string {
		t.Helper()
		tok := a.session(map[string]any{"orderId": "o-1"})
		pt := a.tokenize(tok, number).Str("token")
		return a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": cust}).Str("token")
	}
	list := func(t *testing.T, cust string) []map[string]any {
		t.Helper()
		r := a.must(200, "GET", "/payment-instruments?customer_id="+cust, nil)
		var out []map[string]any
		for _, d := range r.JSON["data"].([]any) {
			out = append(out, d.(map[string]any))
		}
		return out
	}
	defaults := func(t *testing.T, cust string) map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for _, d := range list(t, cust) {
			out[d["token"].(string)] = d["default"].(bool)
		}
		return out
	}

	first := vault(t, "cust-1", "4111111111111111")
	a.Clock.Advance(1)
	second := vault(t, "cust-1", "5555555555554444")
	vault(t, "cust-2", "378282246310005")

	l := a.must(200, "GET", "/payment-instruments?customer_id=cust-1", nil)
	apitest.AssertGolden(t, "instrument_list", l.Body)
	assert.Equal(t, map[string]bool{first: true, second: false}, defaults(t, "cust-1"))
	assert.Len(t, list(t, "cust-2"), 1, "customers are separate")
	assert.Empty(t, list(t, "nobody"))
	other := a.as(a.newTenant(nil))
	assert.Empty(t, other.must(200, "GET", "/payment-instruments?customer_id=cust-1", nil).JSON["data"], "tenants are separate")
	for _, r := range []*resp{other.req("DELETE", "/payment-instruments/"+first, nil), other.req("POST", "/payment-instruments/"+second+"/default", nil)} {
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "InvalidPaymentInstrumentToken", r.ErrorID(), "another tenant's token is unknown")
	}
	assert.Equal(t, map[string]bool{first: true, second: false}, defaults(t, "cust-1"), "and stays as it was")

	t.Run("missing customer_id", func(t *testing.T) {
		for _, p := range []string{"/payment-instruments", "/payment-instruments?customer_id="} {
			r := a.req("GET", p, nil)
			assert.Equal(t, []string{"$.customer_id"}, paths(fieldErrors(t, r, "")))
		}
	})

	t.Run("default moves", func(t *testing.T) {
		r := a.must(200, "POST", "/payment-instruments/"+second+"/default", nil)
		assert.Equal(t, true, r.JSON["default"])
		assert.Equal(t, map[string]bool{first: false, second: true}, defaults(t, "cust-1"))
		a.must(200, "POST", "/payment-instruments/"+first+"/default", map[string]any{})
		assert.Equal(t, map[string]bool{first: true, second: false}, defaults(t, "cust-1"))
	})

	t.Run("default of an unknown token", func(t *testing.T) {
		r := a.req("POST", "/payment-instruments/tok_nope/default", nil)
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "InvalidPaymentInstrumentToken", r.ErrorID())
	})

	t.Run("delete", func(t *testing.T) {
		r := a.must(200, "DELETE", "/payment-instruments/"+second, nil)
		assert.Equal(t, true, r.JSON["deleted"])
		assert.Equal(t, "2026-11-22T07:30:00.000000Z", r.Str("deletedAt"))
		assert.Equal(t, map[string]bool{first: true}, defaults(t, "cust-1"))
		again := a.req("DELETE", "/payment-instruments/"+second, nil)
		require.Equal(t, 400, again.Status, "%s", again.Body)
		assert.Equal(t, "InvalidPaymentInstrumentToken", again.ErrorID())
		d := a.req("POST", "/payment-instruments/"+second+"/default", nil)
		assert.Equal(t, "InvalidPaymentInstrumentToken", d.ErrorID(), "a deleted method cannot become the default")
		v := a.req("POST", "/payment-instruments/"+second+"/vault", map[string]any{"customerId": "cust-1"})
		assert.Equal(t, "InvalidPaymentInstrumentToken", v.ErrorID(), "nor be vaulted again")
	})

	t.Run("deleting the default leaves none, vaulting makes a new default", func(t *testing.T) {
		a.must(200, "DELETE", "/payment-instruments/"+first, nil)
		assert.Empty(t, list(t, "cust-1"))
		third := vault(t, "cust-1", "4242424242424242")
		assert.Equal(t, map[string]bool{third: true}, defaults(t, "cust-1"))
	})

	t.Run("a single-use token is not a saved method", func(t *testing.T) {
		tok := a.session(map[string]any{"orderId": "o-1"})
		pt := a.tokenize(tok, "4111111111111111").Str("token")
		for _, m := range []string{"DELETE", "POST"} {
			path := "/payment-instruments/" + pt
			if m == "POST" {
				path += "/default"
			}
			r := a.req(m, path, nil)
			require.Equal(t, 400, r.Status, "%s", r.Body)
			assert.Equal(t, "InvalidPaymentInstrumentToken", r.ErrorID())
		}
	})
}
