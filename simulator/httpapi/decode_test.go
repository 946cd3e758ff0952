package httpapi

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestDecodeMatchesTree: the request struct decodeFull fills from the body
// is the one the validated tree gives (re-encoded and decoded, decodeTree),
// error included: a repeated key keeps its last value whole (a decode of the
// body would merge the objects of both), at any depth, in structs, arrays and
// metadata; a case variant of a field name is refused.
func TestDecodeMatchesTree(t *testing.T) {
	payment := func() any { return new(createPaymentBody) }
	session := func() any { return new(createSessionRequest) }
	tests := []struct {
		name  string
		s     *schema
		dst   func() any
		body  string
		fails string // the error, if decodeFull refuses the body
	}{
		{"typical", paymentCreate, payment, benchPaymentTypical, ""},
		{"repeated scalar", paymentCreate, payment, `{"paymentMethodToken":"a","amount":1,"amount":2}`, ""},
		{"repeated object", paymentCreate, payment,
			`{"paymentMethodToken":"a","customer":{"emailAddress":"a@b.test","firstName":"A"},"customer":{"lastName":"B"}}`, ""},
		{"repeated nested object", paymentCreate, payment,
			`{"paymentMethodToken":"a","customer":{"billingAddress":{"city":"X","countryCode":"DE"},"billingAddress":{"postalCode":"1"}}}`, ""},
		{"repeated array of objects", paymentCreate, payment,
			`{"paymentMethodToken":"a","order":{"lineItems":[{"itemId":"1","amount":5,"taxAmount":1},{"itemId":"2","amount":6}],"lineItems":[{"name":"n","amount":1}]}}`, ""},
		{"repeated metadata", paymentCreate, payment,
			`{"paymentMethodToken":"a","metadata":{"a":1,"b":{"c":2}},"metadata":{"b":{"d":1.50}}}`, ""},
		{"repeated metadata key", paymentCreate, payment, `{"paymentMethodToken":"a","metadata":{"a":{"x":1},"a":{"y":2}}}`, ""},
		{"repeated key inside a string", paymentCreate, payment, `{"paymentMethodToken":"a:\"b\":","orderId":"o\\\":"}`, ""},
		{"repeated null", paymentCreate, payment, `{"paymentMethodToken":"a","customer":{"firstName":"A"},"customer":null}`, ""},
		{"repeated session options", clientSessionCreate, session,
			`{"paymentMethod":{"options":{"a":{"b":1}},"options":{"c":true}},"metadata":{"k":"v"},"metadata":{}}`, ""},
		{"numbers stay exact", paymentCreate, payment, `{"paymentMethodToken":"a","metadata":{"big":12345678901234567890,"f":1.10,"e":1E+2}}`, ""},
		{"case variant", paymentCreate, payment, `{"paymentMethodToken":"a","AMOUNT":5}`, "Extra fields not permitted"},
		{"nulls", paymentCreate, payment,
			`{"paymentMethodToken":"a","orderId":null,"amount":null,"order":null,"customer":null,"metadata":null,"paymentMethod":null,"expand":null}`, ""},
		{"empty members", paymentCreate, payment, `{"paymentMethodToken":"a","metadata":{},"expand":[],"order":{},"customer":{},"paymentMethod":{}}`, ""},
		{"every member", paymentCreate, payment,
			`{"paymentMethodToken":"a","orderId":"o","currencyCode":"EUR","amount":0,"customerId":"c","metadata":{"n":[1,{"x":2.50}],"s":"v"},` +
				`"paymentMethod":{"vaultOnSuccess":true,"paymentType":"ECOMMERCE"},"expand":["transactions.events"]}`, ""},
		{"empty optional", emptyRequest, func() any { return new(struct{}) }, ``, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.dst()
			_, err := decodeFull([]byte(tc.body), tc.s, "M", got, true, nil)
			if tc.fails != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error()+fieldErrors(err), tc.fails)
				return
			}
			require.NoError(t, err)
			tree, err := parseJSON([]byte(tc.body), true)
			require.NoError(t, err)
			want := tc.dst()
			require.NoError(t, decodeTree(tree, want))
			assert.Equal(t, want, got)
		})
	}
}

// TestDecodeErrorMatchesTree: a body the schema lets through but the struct
// refuses gets the tree's error (the first in sorted key order), not the
// first in the body.
func TestDecodeErrorMatchesTree(t *testing.T) {
	type two struct {
		B int64 `json:"b"`
		A int64 `json:"a"`
	}
	s := obj(true, field("a", number()), field("b", number()))
	body := `{"b":1.5,"a":2.5}`
	tree, err := parseJSON([]byte(body), false)
	require.NoError(t, err)
	wantErr := decodeTree(tree, new(two))
	require.Error(t, wantErr)
	_, err = decodeFull([]byte(body), s, "M", new(two), false, nil)
	require.Error(t, err)
	assert.Contains(t, fieldErrors(err), wantErr.Error())
}

// TestSchemaPropertiesFoldApart: no object of a request schema has two
// properties that encoding/json's case-insensitive field match could send to
// one struct field (decodeDTO relies on it).
func TestSchemaPropertiesFoldApart(t *testing.T) {
	all := []*schema{clientPaymentCreate, clientSessionCreate, clientSessionUpdate, clockAdvance, disputeRequest,
		disputeStatusRequest, emptyRequest, endpointUpdate, paymentAuthorize, paymentCancel, paymentCapture, paymentCreate,
		paymentRefund, paymentResume, scenarioNext, tenantCreate, threeDSRequest, tokenizeRequest, vaultRequest,
		webhookChaosRequest, webhookEndpointRequest}
	var walk func(s *schema, path string)
	walk = func(s *schema, path string) {
		if s == nil {
			return
		}
		seen := map[string]string{}
		for _, p := range s.props {
			folded := strings.ToLower(p.name)
			if other, ok := seen[folded]; ok {
				t.Errorf("%s: properties %q and %q fold alike", path, other, p.name)
			}
			seen[folded] = p.name
			walk(p.s, path+"."+p.name)
		}
		walk(s.items, path+"[]")
	}
	for i, s := range all {
		walk(s, "schema"+strings.Repeat("'", i))
	}
}

// fieldErrors is the descriptions of a 422's broken rules.
func fieldErrors(err error) string {
	var se *simulator.Error
	if !errors.As(err, &se) {
		return ""
	}
	var b strings.Builder
	for _, f := range se.Fields {
		b.WriteString(f.Description + "\n")
	}
	return b.String()
}

// FuzzDecode: for any body, decodeFull's request struct and error are the
// ones the validated tree gives (decodeTree). The first byte picks the
// request type.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("\x00" + benchPaymentTypical))
	f.Add([]byte("\x00" + `{"paymentMethodToken":"a","customer":{"firstName":"A"},"customer":{"lastName":"B"}}`))
	f.Add([]byte("\x01" + `{"paymentMethod":{"options":{"a":1},"options":{"b":2}}}`))
	f.Add([]byte("\x02" + `{"b":1.5,"a":2.5}`))
	type two struct {
		B int64 `json:"b"`
		A int64 `json:"a"`
	}
	kinds := []struct {
		s   *schema
		dst func() any
	}{
		{paymentCreate, func() any { return new(createPaymentBody) }},
		{clientSessionCreate, func() any { return new(createSessionRequest) }},
		{obj(true, field("a", number()), field("b", number())), func() any { return new(two) }},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		k := kinds[int(data[0])%len(kinds)]
		b := data[1:]
		got := k.dst()
		_, err := decodeFull(b, k.s, "M", got, true, nil)
		tree, perr := parseJSON(b, true)
		if perr != nil {
			require.Error(t, err)
			return
		}
		want := k.dst()
		var errs []simulator.FieldError
		k.s.validate(tree, "$", &errs)
		if len(errs) > 0 {
			require.Error(t, err)
			return
		}
		if wantErr := decodeTree(tree, want); wantErr != nil {
			require.Error(t, err)
			assert.Contains(t, fieldErrors(err), wantErr.Error())
			return
		}
		require.NoError(t, err)
		assert.Equal(t, want, got)
	})
}
