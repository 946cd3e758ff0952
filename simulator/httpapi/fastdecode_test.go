package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// fastCase is one handler's decode call: its schema, optional flag, extra
// rules and request type (nil for a body that must be empty), as the
// handler passes them.
type fastCase struct {
	name     string
	s        *schema
	optional bool
	extra    func(map[string]any) []simulator.FieldError
	newDst   func() any
}

var fastCases = []fastCase{
	{"payment", paymentCreate, false, nil, func() any { return new(createPaymentBody) }},
	{"session", clientSessionCreate, true, sessionCrossFieldRules, func() any { return new(createSessionRequest) }},
	{"tokenize", tokenizeRequest, false, nil, func() any { return new(tokenizeBody) }},
	{"clientPayment", clientPaymentCreate, false, nil, func() any { return new(clientPaymentRequest) }},
	{"authorize", paymentAuthorize, false, nil, func() any { return new(authorizeBody) }},
	{"capture", paymentCapture, true, nil, func() any { return new(captureBody) }},
	{"cancel", paymentCancel, true, nil, func() any { return new(cancelBody) }},
	{"refund", paymentRefund, true, nil, func() any { return new(refundBody) }},
	{"resume", paymentResume, false, nil, func() any { return new(resumeBody) }},
	{"vault", vaultRequest, false, nil, func() any { return new(vaultBody) }},
	{"3ds", threeDSRequest, false, nil, func() any { return new(threeDSRequestBody) }},
	{"empty", emptyRequest, true, nil, func() any { return nil }},
}

func fastCaseNamed(tb testing.TB, name string) fastCase {
	tb.Helper()
	for _, fc := range fastCases {
		if fc.name == name {
			return fc
		}
	}
	tb.Fatalf("no fast case %q", name)
	return fastCase{}
}

// diffFast decodes body on both paths. When the fast path accepts, the full
// path must accept too, with a deeply equal value; it reports whether the
// fast path accepted.
func diffFast(tb testing.TB, fc fastCase, body []byte) bool {
	tb.Helper()
	fast := fc.newDst()
	if !decodeFast(body, fc.s, fast, fc.optional) {
		return false
	}
	full := fc.newDst()
	_, err := decodeFull(body, fc.s, "Model", full, fc.optional, fc.extra)
	if err != nil {
		tb.Fatalf("%s: the fast path accepted %q, the full path refused it: %v", fc.name, body, err)
	}
	if !reflect.DeepEqual(fast, full) {
		tb.Fatalf("%s: %q decodes differently:\nfast %#v\nfull %#v", fc.name, body, fast, full)
	}
	return true
}

func TestFastDecodeDifferential(t *testing.T) {
	long := strings.Repeat("x", 256)
	deep := strings.Repeat(`{"a":`, MaxDepth-1) + "1" + strings.Repeat("}", MaxDepth-1)
	tooDeep := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	tests := []struct {
		name, cas, body string
		fast            bool // the fast path takes it (else the full path decides)
	}{
		// Taken: the bodies clients send.
		{"payment/minimal", "payment", benchPaymentMinimal, true},
		{"payment/typical", "payment", benchPaymentTypical, true},
		{"payment/whitespace", "payment", " \t\r\n{ \"paymentMethodToken\" : \"t\" , \"amount\" : 0 }\n", true},
		{"payment/nulls are absent", "payment", `{"paymentMethodToken":"t","amount":null,"order":null,"metadata":null,"customer":null,"expand":null,"orderId":null}`, true},
		{"payment/empty containers", "payment", `{"paymentMethodToken":"t","metadata":{},"order":{"lineItems":[],"fees":[]},"expand":[],"customer":{},"paymentMethod":{}}`, true},
		{"payment/escaped strings", "payment", `{"paymentMethodToken":"t\u00e9\n\"\/","orderId":"a\ud83d\ude00b","customerId":"\ud800"}`, true},
		{"payment/invalid utf-8 in a string", "payment", "{\"paymentMethodToken\":\"t\xff\xfe\"}", true},
		{"payment/unicode", "payment", `{"paymentMethodToken":"tökén✓"}`, true},
		{"payment/metadata values", "payment", `{"paymentMethodToken":"t","metadata":{"n":1.5e3,"i":-0,"s":"x","b":false,"z":null,"a":[1,{"k":[]}],"o":{},"dup":1,"dup":2,"e\u0301":"k"}}`, true},
		{"payment/metadata nested to the limit", "payment", `{"paymentMethodToken":"t","metadata":` + deep + `}`, true},
		{"payment/int64 bounds", "payment", `{"paymentMethodToken":"t","amount":9223372036854775807,"order":{"lineItems":[{"amount":0,"quantity":1}]}}`, true},
		{"payment/weight", "payment", `{"paymentMethodToken":"t","order":{"lineItems":[{"amount":1,"productData":{"weight":1.25e1}}]}}`, true},
		{"payment/max length", "payment", `{"paymentMethodToken":"t","orderId":"` + long[:255] + `"}`, true},
		{"session/bench", "session", `{"orderId":"bench","currencyCode":"EUR","amount":1000}`, true},
		{"session/manual", "session", `{"orderId":"bench","currencyCode":"EUR","amount":1000,"approvalMode":"MANUAL"}`, true},
		{"session/empty body", "session", "", true},
		{"session/whitespace body", "session", " \n", true},
		{"session/options and networks", "session", `{"paymentMethod":{"options":{"x":{"y":1}},"orderedAllowedCardNetworks":["VISA"],"vaultOnSuccess":true}}`, true},
		{"session/fees and shipping", "session", `{"currencyCode":"USD","order":{"fees":[{"amount":1,"type":"t"}],"shipping":{"amount":2,"methodId":"m"}}}`, true},
		{"tokenize/bench", "tokenize", `{"paymentInstrument":{"number":"4111111111111111","cvv":"123","expirationMonth":"12","expirationYear":"2030","cardholderName":"Bench"}}`, true},
		{"tokenize/empty required strings", "tokenize", `{"paymentInstrument":{"number":"4","expirationMonth":"","expirationYear":""}}`, true},
		{"clientPayment", "clientPayment", `{"paymentMethodToken":"t","expand":["transactions.events"]}`, true},
		{"authorize", "authorize", `{"processor":{"processorMerchantId":"m","name":"n"}}`, true},
		{"capture/empty", "capture", `{}`, true},
		{"capture/no body", "capture", ``, true},
		{"capture/all", "capture", `{"amount":5,"final":false,"order":{"x":1},"metadata":{"k":"v"},"expand":[]}`, true},
		{"cancel", "cancel", `{"reason":"r"}`, true},
		{"refund", "refund", `{"amount":1,"transactionEventId":"0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d","reason":"","orderId":"o"}`, true},
		{"resume", "resume", `{"resumeToken":"r"}`, true},
		{"vault", "vault", `{"customerId":"c","verify":true}`, true},
		{"3ds", "3ds", `{"result":"AUTH_SUCCESS"}`, true},
		{"empty/no body", "empty", "", true},
		{"empty/object", "empty", " {} ", true},

		// Declined: the full path decides (mostly an error; a few quirks).
		{"payment/case-insensitive key", "payment", `{"PAYMENTMETHODTOKEN":"t"}`, false},
		{"payment/duplicate key", "payment", `{"paymentMethodToken":"t","paymentMethodToken":"u"}`, false},
		{"payment/duplicate key null", "payment", `{"paymentMethodToken":"t","amount":1,"amount":null}`, false},
		{"payment/escaped key", "payment", `{"paymentMethodTok\u0065n":"t"}`, false},
		{"payment/exponent integer", "payment", `{"paymentMethodToken":"t","amount":1e2}`, false},
		{"payment/fraction integer", "payment", `{"paymentMethodToken":"t","amount":1.0}`, false},
		{"payment/int64 overflow", "payment", `{"paymentMethodToken":"t","amount":9223372036854775808}`, false},
		{"payment/negative amount", "payment", `{"paymentMethodToken":"t","amount":-1}`, false},
		{"payment/leading zero", "payment", `{"paymentMethodToken":"t","amount":01}`, false},
		{"payment/string amount", "payment", `{"paymentMethodToken":"t","amount":"1"}`, false},
		{"payment/required null", "payment", `{"paymentMethodToken":null}`, false},
		{"payment/required missing", "payment", `{}`, false},
		{"payment/empty required", "payment", `{"paymentMethodToken":""}`, false},
		{"payment/unknown field", "payment", `{"paymentMethodToken":"t","x":1}`, false},
		{"payment/session-only payment method field", "payment", `{"paymentMethodToken":"t","paymentMethod":{"options":{}}}`, false},
		{"payment/too long", "payment", `{"paymentMethodToken":"t","orderId":"` + long + `"}`, false},
		{"payment/bad currency", "payment", `{"paymentMethodToken":"t","currencyCode":"EURO"}`, false},
		{"payment/bad email", "payment", `{"paymentMethodToken":"t","customer":{"emailAddress":"nope"}}`, false},
		{"payment/bad country", "payment", `{"paymentMethodToken":"t","order":{"countryCode":"de"}}`, false},
		{"payment/null line item", "payment", `{"paymentMethodToken":"t","order":{"lineItems":[null]}}`, false},
		{"payment/line item without amount", "payment", `{"paymentMethodToken":"t","order":{"lineItems":[{}]}}`, false},
		{"payment/null expand item", "payment", `{"paymentMethodToken":"t","expand":[null]}`, false},
		{"payment/bad expand", "payment", `{"paymentMethodToken":"t","expand":["x"]}`, false},
		{"payment/metadata array", "payment", `{"paymentMethodToken":"t","metadata":[]}`, false},
		{"payment/metadata too deep", "payment", `{"paymentMethodToken":"t","metadata":` + tooDeep + `}`, false},
		{"payment/metadata too big", "payment", `{"paymentMethodToken":"t","metadata":{"k":"` + strings.Repeat("<", 3000) + `"}}`, false},
		{"payment/trailing data", "payment", `{"paymentMethodToken":"t"} x`, false},
		{"payment/two objects", "payment", `{"paymentMethodToken":"t"}{}`, false},
		{"payment/vertical tab after", "payment", "{\"paymentMethodToken\":\"t\"}\v", false},
		{"payment/control byte in string", "payment", "{\"paymentMethodToken\":\"t\x01\"}", false},
		{"payment/bad escape", "payment", `{"paymentMethodToken":"t\x"}`, false},
		{"payment/truncated", "payment", `{"paymentMethodToken":"t"`, false},
		{"payment/trailing comma", "payment", `{"paymentMethodToken":"t",}`, false},
		{"payment/top-level array", "payment", `[]`, false},
		{"payment/top-level null", "payment", `null`, false},
		{"payment/no body", "payment", ``, false},
		{"payment/bool as string", "payment", `{"paymentMethodToken":"t","paymentMethod":{"vaultOnSuccess":"true"}}`, false},
		{"payment/negative weight", "payment", `{"paymentMethodToken":"t","order":{"lineItems":[{"amount":1,"productData":{"weight":-1}}]}}`, false},
		{"payment/huge weight", "payment", `{"paymentMethodToken":"t","order":{"lineItems":[{"amount":1,"productData":{"weight":1e999}}]}}`, false},
		{"session/amount without currency", "session", `{"amount":1}`, false},
		{"session/line item amount without currency", "session", `{"order":{"lineItems":[{"amount":1}]}}`, false},
		{"session/null currency", "session", `{"currencyCode":null,"order":{"shipping":{"amount":1}}}`, false},
		{"session/bad approval mode", "session", `{"approvalMode":"auto"}`, false},
		{"session/unicode space body", "session", "\u00a0", false},
		{"tokenize/missing month", "tokenize", `{"paymentInstrument":{"number":"4","expirationYear":"2030"}}`, false},
		{"tokenize/null month", "tokenize", `{"paymentInstrument":{"number":"4","expirationMonth":null,"expirationYear":"2030"}}`, false},
		{"authorize/no processor", "authorize", `{}`, false},
		{"capture/zero", "capture", `{"amount":0}`, false},
		{"capture/order not an object", "capture", `{"order":1}`, false},
		{"refund/bad uuid", "refund", `{"transactionEventId":"x"}`, false},
		{"3ds/bad result", "3ds", `{"result":"x"}`, false},
		{"empty/field", "empty", `{"a":1}`, false},
		{"empty/null", "empty", `null`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.fast, diffFast(t, fastCaseNamed(t, tc.cas), []byte(tc.body)))
		})
	}
}

// TestFastDecodeAllCases runs every body of the table under every case: a
// body meant for one request must never be taken wrongly by another.
func TestFastDecodeAllCases(t *testing.T) {
	bodies := []string{benchPaymentMinimal, benchPaymentTypical, `{}`, ``, `{"amount":1}`, `{"reason":"r","expand":["transactions.events"]}`,
		`{"paymentInstrument":{"number":"4111111111111111","expirationMonth":"12","expirationYear":"2030"}}`}
	for _, fc := range fastCases {
		for i, b := range bodies {
			t.Run(fmt.Sprintf("%s/%d", fc.name, i), func(t *testing.T) { diffFast(t, fc, []byte(b)) })
		}
	}
}

// TestFastDecodeWiring: through decodeRequest, a body the fast path takes
// returns a nil tree, one it declines returns the full path's 422 with
// every broken rule (and leaves nothing of a partial fast decode behind).
func TestFastDecodeWiring(t *testing.T) {
	var req createPaymentBody
	tree, err := decodeRequestBody([]byte(benchPaymentTypical), &req)
	require.NoError(t, err)
	assert.Nil(t, tree)
	assert.Equal(t, "order-12345", req.OrderID)

	req = createPaymentBody{}
	_, err = decodeRequestBody([]byte(`{"orderId":"o","amount":-1,"x":1}`), &req)
	var se *simulator.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, simulator.CodeRequestValidationError, se.Code)
	assert.Len(t, se.Fields, 3) // amount, paymentMethodToken, x
	assert.Empty(t, req.OrderID, "the full path refused: nothing decoded")

	req = createPaymentBody{}
	tree, err = decodeRequestBody([]byte(`{"paymentMethodToken":"t","PaymentMethodToken":"u"}`), &req)
	require.Error(t, err, "the fast path declines; the full path refuses the unknown key")
	assert.Nil(t, tree)
}

// decodeRequestBody is decodeWith for a POST /payments body without an echo context.
func decodeRequestBody(b []byte, dst *createPaymentBody) (map[string]any, error) {
	if decodeFast(b, paymentCreate, dst, false) {
		return nil, nil
	}
	*dst = createPaymentBody{}
	return decodeFull(b, paymentCreate, "PaymentCreationAPIRequest", dst, false, nil)
}

// FuzzFastDecode: for any body and any hot request type, when the fast path
// takes the body, the full path takes it too and decodes the same value.
func FuzzFastDecode(f *testing.F) {
	seeds := []string{benchPaymentMinimal, benchPaymentTypical, `{}`, ``,
		`{"orderId":"bench","currencyCode":"EUR","amount":1000,"approvalMode":"MANUAL"}`,
		`{"paymentInstrument":{"number":"4111111111111111","cvv":"123","expirationMonth":"12","expirationYear":"2030","cardholderName":"Bench"}}`,
		`{"processor":{"processorMerchantId":"m"}}`, `{"amount":5,"final":false,"order":{"x":1},"metadata":{"k":[1.5,null]}}`,
		`{"reason":"r","expand":["transactions.events"]}`, `{"amount":1,"transactionEventId":"0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"}`,
		`{"resumeToken":"r"}`, `{"customerId":"c","verify":true}`, `{"result":"AUTH_SUCCESS"}`,
		`{"paymentMethodToken":"t\u00e9","metadata":{"a":1,"a":2}}`}
	for _, s := range seeds {
		for i := range fastCases {
			f.Add(append([]byte{byte(i)}, s...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		diffFast(t, fastCases[int(data[0])%len(fastCases)], data[1:])
	})
}

// The fast path must hold the value the full path gives; json.Number
// metadata is part of that (a guard on the test's own comparison).
func TestFastDecodeKeepsNumbers(t *testing.T) {
	var req createPaymentBody
	require.True(t, decodeFast([]byte(`{"paymentMethodToken":"t","metadata":{"n":1.50}}`), paymentCreate, &req, false))
	assert.Equal(t, json.Number("1.50"), req.Metadata["n"])
}
