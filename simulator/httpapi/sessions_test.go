package httpapi_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
)

// fullSession is a ClientSessionAPIRequest with every field the sandbox takes.
func fullSession() map[string]any {
	address := func(city string) map[string]any {
		return map[string]any{
			"firstName": "Jane", "lastName": "Doe", "addressLine1": "1 Rue de Rivoli", "addressLine2": "Apt 2",
			"city": city, "state": "IDF", "countryCode": "FR", "postalCode": "75001",
		}
	}
	return map[string]any{
		"orderId":      "order-123",
		"currencyCode": "EUR",
		"amount":       4200,
		"customerId":   "cust-123",
		"order": map[string]any{
			"lineItems": []any{map[string]any{
				"itemId": "shoe-1", "name": "Shoe", "description": "Blue shoe", "amount": 1000, "quantity": 2,
				"discountAmount": 100, "taxAmount": 50, "taxCode": "A1", "productType": "PHYSICAL",
				"productData": map[string]any{
					"sku": "SKU-1", "brand": "Acme", "color": "blue", "globalTradeItemNumber": "0123456789012",
					"manufacturerPartNumber": "MPN-1", "weight": 1.25, "weightUnit": "kg", "pageUrl": "https://shop.example/shoe",
				},
			}},
			"countryCode":         "FR",
			"retailerCountryCode": "DE",
			"fees":                []any{map[string]any{"amount": 25, "type": "SURCHARGE", "description": "Card fee"}},
			"shipping":            map[string]any{"amount": 500, "methodId": "std", "methodName": "Standard", "methodDescription": "3-5 days"},
		},
		"customer": map[string]any{
			"emailAddress": "jane@example.com", "mobileNumber": "+33600000000", "firstName": "Jane", "lastName": "Doe",
			"billingAddress": address("Paris"), "shippingAddress": address("Lyon"),
			"taxId": "FR123", "nationalDocumentId": "ID-9",
		},
		"metadata": map[string]any{"productId": 1001, "channel": "web", "nested": map[string]any{"a": "b"}},
		"paymentMethod": map[string]any{
			"paymentType": "FIRST_PAYMENT", "descriptor": "Acme shoes", "vaultOnSuccess": true, "vaultOn3DS": false,
			"vaultOnAgreement": true, "authorizationType": "FINAL", "firstPaymentReason": "CardOnFile",
			"orderedAllowedCardNetworks": []any{"VISA", "MASTERCARD"},
		},
		"approvalMode": "MANUAL",
	}
}

// sessionContent is a session answer without what differs from the request
// (token, expiry, approval mode, current attempt).
func sessionContent(t *testing.T, r *resp) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, v := range r.JSON {
		switch k {
		case "clientToken", "clientTokenExpirationDate", "approvalMode", "currentAttemptId":
		default:
			out[k] = v
		}
	}
	return out
}

// asJSON round-trips v so it compares with decoded answers.
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

// fieldErrors returns the (path, description) pairs of a 422 and checks the
// envelope's shape: one validationErrors entry naming the model.
func fieldErrors(t testing.TB, r *resp, model string) map[string]string {
	t.Helper()
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.Equal(t, "RequestValidationError", r.ErrorID(), "%s", r.Body)
	ves, ok := r.Err()["validationErrors"].([]any)
	require.True(t, ok, "validationErrors missing: %s", r.Body)
	require.Len(t, ves, 1, "%s", r.Body)
	ve := ves[0].(map[string]any)
	if model != "" {
		assert.Equal(t, model, ve["model"], "%s", r.Body)
	}
	errs, _ := ve["errors"].([]any)
	out := map[string]string{}
	for _, e := range errs {
		m := e.(map[string]any)
		path, _ := m["path"].(string)
		desc, _ := m["description"].(string)
		assert.NotEmpty(t, desc, "empty description at %s", path)
		out[path] = desc
	}
	assert.Len(t, out, len(errs), "duplicate paths: %s", r.Body)
	return out
}

// paths lists the paths of fieldErrors.
func paths(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	return out
}

func TestClientSessionCreateAndGet(t *testing.T) {
	a := newTestAPI(t)
	body := fullSession()
	c := a.must(200, "POST", "/client-session", body)
	apitest.AssertGolden(t, "session_create", c.Body)
	tok := c.Str("clientToken")
	require.NotEmpty(t, tok)
	assert.Equal(t, "2026-11-23T07:30:00.000000Z", c.Str("clientTokenExpirationDate"), "manual clock + 24h")
	assert.Equal(t, "MANUAL", c.Str("approvalMode"))
	assert.NotContains(t, c.JSON, "currentAttemptId", "no attempt before tokenising")

	want := asJSON(t, body)
	delete(want, "approvalMode")
	assert.Equal(t, want, sessionContent(t, c), "every field comes back as sent")

	g := a.must(200, "GET", "/client-session?clientToken="+tok, nil)
	apitest.AssertGolden(t, "session_get", g.Body)
	assert.Equal(t, want, sessionContent(t, g))
	assert.NotContains(t, g.JSON, "clientToken", "GET answers the session, not a new token")

	t.Run("currentAttemptId after tokenising in a MANUAL session", func(t *testing.T) {
		att := a.tokenize(tok, "4111111111111111").Str("paymentAttemptId")
		require.NotEmpty(t, att)
		g := a.must(200, "GET", "/client-session?clientToken="+tok, nil)
		assert.Equal(t, att, g.Str("currentAttemptId"))
		att2 := a.tokenize(tok, "4242424242424242").Str("paymentAttemptId")
		require.NotEqual(t, att, att2)
		g = a.must(200, "GET", "/client-session?clientToken="+tok, nil)
		assert.Equal(t, att2, g.Str("currentAttemptId"), "the newest attempt is current")
	})

	t.Run("an AUTO session has no attempt", func(t *testing.T) {
		tok := a.session(map[string]any{"orderId": "o-auto"})
		tr := a.tokenize(tok, "4111111111111111")
		assert.NotContains(t, tr.JSON, "paymentAttemptId")
		g := a.must(200, "GET", "/client-session?clientToken="+tok, nil)
		assert.Equal(t, "AUTO", g.Str("approvalMode"), "AUTO is the default")
		assert.NotContains(t, g.JSON, "currentAttemptId")
	})

	t.Run("empty session", func(t *testing.T) {
		for _, b := range []any{nil, map[string]any{}} {
			r := a.must(200, "POST", "/client-session", b)
			assert.NotEmpty(t, r.Str("clientToken"))
			assert.Equal(t, "AUTO", r.Str("approvalMode"))
		}
	})
}

func TestClientTokenLooksUnguessable(t *testing.T) {
	a, _ := startAPI(t, apiOptions{IDs: simulator.RandomIDs{}})
	// cst_, the tenant it belongs to, ~, its session's 16 bytes
	// (simulator.WithSession), ~, 16 random bytes
	pattern := regexp.MustCompile(`^cst_[A-Za-z0-9_-]+~[A-Za-z0-9_-]{22}~[A-Za-z0-9_-]{22}$`)
	seen := map[string]bool{}
	for range 5 {
		c := a.must(200, "POST", "/client-session", map[string]any{"orderId": "o-1"})
		tok := c.Str("clientToken")
		assert.Regexp(t, pattern, tok)
		assert.False(t, seen[tok], "tokens differ")
		tid, ok := simulator.TenantOfToken(tok)
		assert.True(t, ok)
		assert.Equal(t, "default", tid)
		_, ok = simulator.SessionOfToken(tok)
		assert.True(t, ok, "it names its session")
		seen[tok] = true
		assert.Equal(t, "2026-11-23T07:30:00.000000Z", c.Str("clientTokenExpirationDate"))
	}
}

// TestClientTokenExpiry: 24h on the tenant's clock, which the control plane moves.
func TestClientTokenExpiry(t *testing.T) {
	a := newTestAPI(t)
	tok := a.session(map[string]any{"orderId": "o-1"})
	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "23h59m59s"})
	a.must(200, "GET", "/client-session?clientToken="+tok, nil)
	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1s"})
	for _, r := range []*resp{
		a.req("GET", "/client-session?clientToken="+tok, nil),
		a.req("PATCH", "/client-session", map[string]any{"clientToken": tok, "orderId": "o-2"}),
		a.req("POST", "/client/payment-instruments", card("4111111111111111"), "X-Client-Token: "+tok),
	} {
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "ClientSessionValidationError", r.ErrorID())
	}
	t.Run("another tenant's clock does not expire it", func(t *testing.T) {
		tok := a.session(map[string]any{"orderId": "o-1"})
		b := a.as(a.newTenant(nil))
		b.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "48h"})
		a.must(200, "GET", "/client-session?clientToken="+tok, nil)
	})
}

func TestClientSessionValidation(t *testing.T) {
	a := newTestAPI(t)
	long := strings.Repeat("x", 256)
	tests := []struct {
		name    string
		body    string
		status  int
		errorID string
		paths   []string
	}{
		{name: "amount without currencyCode", body: `{"amount": 100}`, status: 422, paths: []string{"$.currencyCode"}},
		{name: "line item amount without currencyCode", body: `{"order": {"lineItems": [{"amount": 100}]}}`, status: 422, paths: []string{"$.currencyCode"}},
		{name: "fee without currencyCode", body: `{"order": {"fees": [{"amount": 5}]}}`, status: 422, paths: []string{"$.currencyCode"}},
		{name: "shipping without currencyCode", body: `{"order": {"shipping": {"amount": 5}}}`, status: 422, paths: []string{"$.currencyCode"}},
		{name: "zero amount without currencyCode", body: `{"amount": 0}`, status: 422, paths: []string{"$.currencyCode"}},
		{name: "currency outside the list", body: `{"currencyCode": "XXX", "amount": 1}`, status: 422, paths: []string{"$.currencyCode"}},
		{name: "lower-case currency", body: `{"currencyCode": "eur"}`, status: 422, paths: []string{"$.currencyCode"}},
		{name: "negative amount", body: `{"currencyCode": "EUR", "amount": -1}`, status: 422, paths: []string{"$.amount"}},
		{name: "fractional amount", body: `{"currencyCode": "EUR", "amount": 1.5}`, status: 422, paths: []string{"$.amount"}},
		{name: "amount beyond int64", body: `{"currencyCode": "EUR", "amount": 1e30}`, status: 422, paths: []string{"$.amount"}},
		{name: "amount 2^63", body: `{"currencyCode": "EUR", "amount": 9223372036854775808}`, status: 422, paths: []string{"$.amount"}},
		{name: "amount as a string", body: `{"currencyCode": "EUR", "amount": "10"}`, status: 422, paths: []string{"$.amount"}},
		{name: "negative line item amounts", body: `{"currencyCode": "EUR", "order": {"lineItems": [{"amount": -1, "discountAmount": -2, "taxAmount": -3, "quantity": 0}]}}`, status: 422,
			paths: []string{"$.order.lineItems[0].amount", "$.order.lineItems[0].discountAmount", "$.order.lineItems[0].taxAmount", "$.order.lineItems[0].quantity"}},
		{name: "line item without amount", body: `{"currencyCode": "EUR", "order": {"lineItems": [{"itemId": "a"}]}}`, status: 422, paths: []string{"$.order.lineItems[0].amount"}},
		{name: "negative fee and shipping", body: `{"currencyCode": "EUR", "order": {"fees": [{"amount": -1}], "shipping": {"amount": -1}}}`, status: 422,
			paths: []string{"$.order.fees[0].amount", "$.order.shipping.amount"}},
		{name: "orderId too long", body: `{"orderId": "` + long + `"}`, status: 422, paths: []string{"$.orderId"}},
		{name: "customerId too long", body: `{"customerId": "` + long + `"}`, status: 422, paths: []string{"$.customerId"}},
		{name: "255 characters are fine", body: `{"orderId": "` + long[1:] + `", "customerId": "` + long[1:] + `"}`, status: 200},
		{name: "approvalMode outside the enum", body: `{"approvalMode": "SOMETIMES"}`, status: 422, paths: []string{"$.approvalMode"}},
		{name: "bad enums of paymentMethod", body: `{"paymentMethod": {"paymentType": "X", "authorizationType": "X", "firstPaymentReason": "X", "orderedAllowedCardNetworks": ["VISA", "X"]}}`, status: 422,
			paths: []string{"$.paymentMethod.paymentType", "$.paymentMethod.authorizationType", "$.paymentMethod.firstPaymentReason", "$.paymentMethod.orderedAllowedCardNetworks[1]"}},
		{name: "bad productType and country", body: `{"currencyCode": "EUR", "order": {"countryCode": "France", "lineItems": [{"amount": 1, "productType": "X"}]}}`, status: 422,
			paths: []string{"$.order.countryCode", "$.order.lineItems[0].productType"}},
		{name: "bad customer fields", body: `{"customer": {"emailAddress": "not-an-email", "billingAddress": {"countryCode": "fr", "zip": "1"}}}`, status: 422,
			paths: []string{"$.customer.emailAddress", "$.customer.billingAddress.countryCode", "$.customer.billingAddress.zip"}},
		{name: "metadata not an object", body: `{"metadata": "x"}`, status: 422, paths: []string{"$.metadata"}},
		{name: "empty metadata key alone", body: `{"metadata": {"": "x"}}`, status: 400, errorID: "MetadataContainsEmptyKey"},
		{name: "empty nested metadata key alone", body: `{"metadata": {"a": {"": "x"}}}`, status: 400, errorID: "MetadataContainsEmptyKey"},
		{name: "empty metadata key and a schema rule", body: `{"metadata": {"": "x"}, "amount": -1}`, status: 422, paths: []string{"$.amount", "$.currencyCode", "$.metadata"}},
		{name: "a schema rule and the currency rule together", body: `{"amount": 100, "orderId": 5}`, status: 422, paths: []string{"$.orderId", "$.currencyCode"}},
		{name: "empty metadata key and the currency rule", body: `{"metadata": {"": "x"}, "amount": 1}`, status: 422, paths: []string{"$.currencyCode", "$.metadata"}},
		{name: "unknown field", body: `{"bogusField": 1}`, status: 422, paths: []string{"$.bogusField"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req("POST", "/client-session", tc.body)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			switch {
			case tc.status == 422:
				assert.ElementsMatch(t, tc.paths, paths(fieldErrors(t, r, "ClientSessionAPIRequest")))
			case tc.errorID != "":
				assert.Equal(t, tc.errorID, r.ErrorID())
			}
		})
	}
	t.Run("empty metadata key golden", func(t *testing.T) {
		apitest.AssertGolden(t, "error_metadata_empty_key", a.req("POST", "/client-session", `{"metadata": {"": 1}}`).Body)
	})
}

// TestClientSessionComputedAmount: with no top-level amount the amount is
// the vendor's sum: line items (amount x quantity - discount + tax), plus
// shipping and fees.
func TestClientSessionComputedAmount(t *testing.T) {
	a := newTestAPI(t)
	tests := []struct {
		name  string
		order map[string]any
		want  any // nil: no amount in the answer
	}{
		{name: "everything", order: map[string]any{
			"lineItems": []any{
				map[string]any{"amount": 1000, "quantity": 2, "discountAmount": 100, "taxAmount": 50},
				map[string]any{"amount": 300},
			},
			"shipping": map[string]any{"amount": 500},
			"fees":     []any{map[string]any{"amount": 25}, map[string]any{"amount": 5}},
		}, want: 2780.0},
		{name: "quantity defaults to 1", order: map[string]any{"lineItems": []any{map[string]any{"amount": 700}}}, want: 700.0},
		{name: "fees and shipping only", order: map[string]any{"fees": []any{map[string]any{"amount": 10}}, "shipping": map[string]any{"amount": 90}}, want: 100.0},
		{name: "no amounts", order: map[string]any{"countryCode": "FR"}, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := a.must(200, "POST", "/client-session", map[string]any{"currencyCode": "EUR", "order": tc.order})
			g := a.must(200, "GET", "/client-session?clientToken="+c.Str("clientToken"), nil)
			for _, r := range []*resp{c, g} {
				if tc.want == nil {
					assert.NotContains(t, r.JSON, "amount")
				} else {
					assert.Equal(t, tc.want, r.JSON["amount"])
				}
			}
		})
	}
	t.Run("a top-level amount wins", func(t *testing.T) {
		c := a.must(200, "POST", "/client-session", map[string]any{"currencyCode": "EUR", "amount": 1, "order": map[string]any{"lineItems": []any{map[string]any{"amount": 700}}}})
		assert.Equal(t, 1.0, c.JSON["amount"])
	})
	t.Run("a total beyond int64 is refused", func(t *testing.T) {
		r := a.req("POST", "/client-session", `{"currencyCode": "EUR", "order": {"lineItems": [{"amount": 9223372036854775807, "quantity": 2}]}}`)
		assert.Equal(t, []string{"$.order"}, paths(fieldErrors(t, r, "ClientSessionAPIRequest")))
	})
	t.Run("a negative total is refused", func(t *testing.T) {
		r := a.req("POST", "/client-session", `{"currencyCode": "EUR", "order": {"lineItems": [{"amount": 1, "discountAmount": 5}]}}`)
		assert.Equal(t, []string{"$.order"}, paths(fieldErrors(t, r, "ClientSessionAPIRequest")))
	})
}

func TestClientSessionPatch(t *testing.T) {
	a := newTestAPI(t)
	newSession := func(t *testing.T) string {
		t.Helper()
		return a.session(fullSession())
	}
	get := func(t *testing.T, tok string) map[string]any {
		t.Helper()
		return a.must(200, "GET", "/client-session?clientToken="+tok, nil).JSON
	}
	patch := func(t *testing.T, tok string, body map[string]any) *resp {
		t.Helper()
		body["clientToken"] = tok
		return a.req("PATCH", "/client-session", body)
	}

	tests := []struct {
		name  string
		patch map[string]any
		// edit turns the session before the patch into the expected one.
		edit func(s map[string]any)
	}{
		{name: "only given fields change", patch: map[string]any{"orderId": "order-2"},
			edit: func(s map[string]any) { s["orderId"] = "order-2" }},
		{name: "nested customer merges field by field", patch: map[string]any{"customer": map[string]any{"firstName": "Janet", "billingAddress": map[string]any{"city": "Nice"}}},
			edit: func(s map[string]any) {
				c := s["customer"].(map[string]any)
				c["firstName"] = "Janet"
				c["billingAddress"].(map[string]any)["city"] = "Nice"
			}},
		{name: "arrays are replaced whole", patch: map[string]any{"order": map[string]any{"lineItems": []any{map[string]any{"itemId": "hat", "amount": 5}}}},
			edit: func(s map[string]any) {
				s["order"].(map[string]any)["lineItems"] = []any{map[string]any{"itemId": "hat", "amount": 5.0}}
			}},
		{name: "allowed networks are replaced whole", patch: map[string]any{"paymentMethod": map[string]any{"orderedAllowedCardNetworks": []any{"AMEX"}}},
			edit: func(s map[string]any) {
				s["paymentMethod"].(map[string]any)["orderedAllowedCardNetworks"] = []any{"AMEX"}
			}},
		{name: "null clears", patch: map[string]any{"customerId": nil, "customer": map[string]any{"mobileNumber": nil, "shippingAddress": nil}, "order": map[string]any{"fees": nil}},
			edit: func(s map[string]any) {
				delete(s, "customerId")
				c := s["customer"].(map[string]any)
				delete(c, "mobileNumber")
				delete(c, "shippingAddress")
				delete(s["order"].(map[string]any), "fees")
			}},
		{name: "metadata is replaced whole", patch: map[string]any{"metadata": map[string]any{"nested": map[string]any{"c": "d"}}},
			edit: func(s map[string]any) { s["metadata"] = map[string]any{"nested": map[string]any{"c": "d"}} }},
		{name: "currency and amount together", patch: map[string]any{"currencyCode": "GBP", "amount": 99},
			edit: func(s map[string]any) { s["currencyCode"], s["amount"] = "GBP", 99.0 }},
		{name: "clearing the amount computes it from the order", patch: map[string]any{"amount": nil},
			edit: func(s map[string]any) { s["amount"] = 2000.0 - 100 + 50 + 25 + 500 }},
		{name: "paymentMethod merges", patch: map[string]any{"paymentMethod": map[string]any{"vaultOnSuccess": false, "descriptor": "New"}},
			edit: func(s map[string]any) {
				pm := s["paymentMethod"].(map[string]any)
				pm["vaultOnSuccess"], pm["descriptor"] = false, "New"
			}},
		{name: "nothing to change", patch: map[string]any{}, edit: func(map[string]any) {}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := newSession(t)
			want := get(t, tok)
			tc.edit(want)
			r := patch(t, tok, tc.patch)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.Equal(t, want, r.JSON, "PATCH answers the whole session")
			assert.Equal(t, want, get(t, tok), "and keeps it")
		})
	}

	refused := []struct {
		name    string
		setup   map[string]any // the session (nil: fullSession)
		patch   map[string]any
		status  int
		errorID string
		paths   []string
	}{
		{name: "approvalMode", patch: map[string]any{"approvalMode": "AUTO"}, status: 422, paths: []string{"$.approvalMode"}},
		{name: "approvalMode with an allowed change", patch: map[string]any{"approvalMode": "MANUAL", "orderId": "changed"}, status: 422, paths: []string{"$.approvalMode"}},
		{name: "approvalMode and another rule", patch: map[string]any{"approvalMode": "AUTO", "amount": -5}, status: 422, paths: []string{"$.approvalMode", "$.amount"}},
		{name: "currency cleared while the merged session has an amount", patch: map[string]any{"currencyCode": nil}, status: 422, paths: []string{"$.currencyCode"}},
		{name: "amount added to a session without currency", setup: map[string]any{"orderId": "o"}, patch: map[string]any{"amount": 5}, status: 422, paths: []string{"$.currencyCode"}},
		{name: "line item added to a session without currency", setup: map[string]any{"orderId": "o"}, patch: map[string]any{"order": map[string]any{"lineItems": []any{map[string]any{"amount": 5}}}}, status: 422, paths: []string{"$.currencyCode"}},
		{name: "currency outside the list", patch: map[string]any{"currencyCode": "XXX"}, status: 422, paths: []string{"$.currencyCode"}},
		{name: "unknown field", patch: map[string]any{"bogusField": 1}, status: 422, paths: []string{"$.bogusField"}},
		{name: "empty metadata key", patch: map[string]any{"metadata": map[string]any{"": 1}}, status: 400, errorID: "MetadataContainsEmptyKey"},
		{name: "empty metadata key and a rule", patch: map[string]any{"metadata": map[string]any{"": 1}, "orderId": ""}, status: 422, paths: []string{"$.orderId", "$.metadata"}},
		{name: "empty metadata key and the merged currency rule", patch: map[string]any{"metadata": map[string]any{"": 1}, "currencyCode": nil}, status: 422, paths: []string{"$.currencyCode", "$.metadata"}},
	}
	for _, tc := range refused {
		t.Run("refused/"+tc.name, func(t *testing.T) {
			setup := tc.setup
			if setup == nil {
				setup = fullSession()
			}
			tok := a.session(setup)
			before := get(t, tok)
			r := patch(t, tok, tc.patch)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			if tc.status == 422 {
				assert.ElementsMatch(t, tc.paths, paths(fieldErrors(t, r, "ClientSessionUpdateAPIRequest")))
			} else {
				assert.Equal(t, tc.errorID, r.ErrorID())
			}
			assert.Equal(t, before, get(t, tok), "the session is unchanged")
		})
	}

	t.Run("int64 amounts survive a merge exactly", func(t *testing.T) {
		const big = `9223372036854775807`
		c := a.must(200, "POST", "/client-session", `{"currencyCode": "EUR", "amount": `+big+`, "order": {"lineItems": [{"amount": 9007199254740993}]}}`)
		r := a.must(200, "PATCH", "/client-session", `{"clientToken": "`+c.Str("clientToken")+`", "orderId": "o-2"}`)
		for _, b := range []string{string(r.Body), string(a.must(200, "GET", "/client-session?clientToken="+c.Str("clientToken"), nil).Body)} {
			assert.Contains(t, b, `"amount":`+big)
			assert.Contains(t, b, `"amount":9007199254740993`)
		}
	})

	t.Run("approvalMode golden", func(t *testing.T) {
		tok := newSession(t)
		apitest.AssertGolden(t, "error_session_patch_approval_mode", patch(t, tok, map[string]any{"approvalMode": "AUTO"}).Body)
	})

	other := a.as(a.newTenant(nil))
	tokens := []struct {
		name string
		app  *testAPI
		body string
	}{
		{name: "missing clientToken", app: a, body: `{"orderId": "o"}`},
		{name: "empty clientToken", app: a, body: `{"clientToken": "", "orderId": "o"}`},
	}
	for _, tc := range tokens {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.app.req("PATCH", "/client-session", tc.body)
			assert.Contains(t, paths(fieldErrors(t, r, "ClientSessionUpdateAPIRequest")), "$.clientToken")
		})
	}
	t.Run("unknown token", func(t *testing.T) {
		r := a.req("PATCH", "/client-session", map[string]any{"clientToken": "cst_nope", "orderId": "o"})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "ClientSessionValidationError", r.ErrorID())
	})
	t.Run("another tenant's token", func(t *testing.T) {
		tok := newSession(t)
		before := get(t, tok)
		r := other.req("PATCH", "/client-session", map[string]any{"clientToken": tok, "orderId": "stolen"})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "ClientSessionValidationError", r.ErrorID())
		assert.Equal(t, before, get(t, tok))
	})
}

func TestClientSessionTenantIsolation(t *testing.T) {
	a := newTestAPI(t)
	tok := a.session(map[string]any{"orderId": "secret-order"})
	b := a.as(a.newTenant(nil))
	for _, path := range []string{"/client-session?clientToken=" + tok, "/client-session?clientToken=", "/client-session", "/client-session?clientToken=cst_nope"} {
		r := b.req("GET", path, nil)
		require.Equal(t, 400, r.Status, "%s: %s", path, r.Body)
		assert.Equal(t, "ClientSessionValidationError", r.ErrorID())
		assert.NotContains(t, string(r.Body), "secret-order")
	}
	a.must(200, "GET", "/client-session?clientToken="+tok, nil)
}

// Numbers in free-form metadata come back exactly as sent, also beyond 2^53,
// on the session, after a PATCH, and on the payment made from it.
func TestMetadataNumbersStayExact(t *testing.T) {
	a := newTestAPI(t)
	body := `{"orderId": "o-1", "currencyCode": "EUR", "amount": 100, "metadata": {"big": 9007199254740993, "neg": -12345678901234567, "frac": 0.1}}`
	ct := a.must(200, "POST", "/client-session", body).Str("clientToken")
	for _, raw := range [][]byte{
		a.must(200, "GET", "/client-session?clientToken="+ct, nil).Body,
		a.must(200, "PATCH", "/client-session", map[string]any{"clientToken": ct, "orderId": "o-2"}).Body,
	} {
		assert.Contains(t, string(raw), `"big":9007199254740993`)
		assert.Contains(t, string(raw), `"neg":-12345678901234567`)
		assert.Contains(t, string(raw), `"frac":0.1`)
	}
	pt := a.tokenize(ct, "4111111111111111").Str("token")
	p := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt})
	assert.Contains(t, string(p.Body), `"big":9007199254740993`)
	got := a.must(200, "GET", "/payments/"+p.Str("id"), nil)
	assert.Contains(t, string(got.Body), `"big":9007199254740993`)
}
