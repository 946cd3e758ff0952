package httpapi

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// answerTypes are the answers with a hand-written encoder (dto_encode.go).
var answerTypes = []reflect.Type{
	reflect.TypeFor[paymentDTO](),
	reflect.TypeFor[sessionDTO](),
	reflect.TypeFor[tokenizeDTO](),
	reflect.TypeFor[instrumentDTO](),
	reflect.TypeFor[approveDTO](),
	reflect.TypeFor[attemptStatusDTO](),
	reflect.TypeFor[attemptDTO](),
	reflect.TypeFor[paymentListDTO](),
	reflect.TypeFor[errorBody](),
}

// Generation modes: random, every optional part present and non-empty, every
// pointer set but every string, slice and map empty (non-nil), all zero.
const (
	genRandom = iota
	genFull
	genEmpty
	genZero
	genModes
)

// dtoGen fills any DTO by reflection, so a field added to a DTO is generated
// (and a kind it does not know panics): the appender must then encode it or
// the comparison fails. Its choices come from rnd, or from fuzz input when
// rnd is nil (zero once the input runs out).
type dtoGen struct {
	rnd   *rand.Rand
	data  []byte
	mode  int
	depth int
}

func (g *dtoGen) byte() byte {
	if g.rnd != nil {
		return byte(g.rnd.Uint32())
	}
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *dtoGen) uint64() uint64 {
	var u uint64
	for range 8 {
		u = u<<8 | uint64(g.byte())
	}
	return u
}

// present decides whether an optional part (pointer, slice, map) is there.
func (g *dtoGen) present() bool {
	switch g.mode {
	case genFull, genEmpty:
		return true
	case genZero:
		return false
	}
	return g.byte()&1 == 1
}

// count is the length of a present slice or map.
func (g *dtoGen) count() int {
	switch g.mode {
	case genFull:
		return 1 + int(g.byte()%3)
	case genEmpty:
		return 0
	}
	return int(g.byte() % 4)
}

// nastyStrings are the escaping cases encoding/json treats specially.
var nastyStrings = []string{
	"VISA", "<a href=\"x\">&amp;</a>", "\u2028\u2029", "a\u2028b\u2029c", "\x00\x01\x1f\x7f",
	"\b\f\n\r\t", `"\/`, "é漢字😀", "\xff", "\xe2\x80", "\xe2\x80\xa8", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"a\xc3", "\ufffd", "ok\xffok", " ", "2026-11-22T07:30:00.000000Z", "https://x.test/3ds?t=1&u=2",
}

// runeAlphabet is what random strings are made of: ASCII, control bytes,
// multi-byte runes, the line separators and bytes that are not UTF-8.
var runeAlphabet = []string{
	"a", "Z", "0", " ", "\"", "\\", "/", "<", ">", "&", "\x00", "\x07", "\x08", "\x0c", "\x0a", "\x0d", "\x09",
	"\x1b", "\x1f", "\x7f", "é", "ß", "漢", "😀", "\u2028", "\u2029", "\ufeff", "\xff", "\xc3", "\xe2\x80", "\x80",
}

func (g *dtoGen) string() string {
	if g.mode == genEmpty || g.mode == genZero {
		return ""
	}
	if g.rnd == nil { // fuzz input: the bytes themselves
		n := int(g.byte() % 24)
		if g.mode == genFull && n == 0 {
			n = 1
		}
		b := make([]byte, 0, n)
		for range n {
			b = append(b, g.byte())
		}
		return string(b)
	}
	switch k := g.byte() % 8; {
	case k == 0 && g.mode == genRandom:
		return ""
	case k <= 2:
		return nastyStrings[int(g.byte())%len(nastyStrings)]
	case k == 3: // raw random bytes
		b := make([]byte, 1+g.byte()%16)
		for i := range b {
			b[i] = g.byte()
		}
		return string(b)
	default:
		var b []byte
		for range 1 + g.byte()%20 {
			b = append(b, runeAlphabet[int(g.byte())%len(runeAlphabet)]...)
		}
		return string(b)
	}
}

func (g *dtoGen) int64() int64 {
	if g.mode == genEmpty || g.mode == genZero {
		return 0
	}
	switch g.byte() % 6 {
	case 0:
		return 0
	case 1:
		return math.MaxInt64
	case 2:
		return math.MinInt64
	case 3:
		return -int64(g.byte())
	case 4:
		return int64(g.uint64())
	}
	return int64(g.byte()) * 1000
}

var interestingFloats = []float64{0, math.Copysign(0, -1), 0.5, -1.25, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789012345678901234.0,
	math.MaxFloat64, math.SmallestNonzeroFloat64, 1.0 / 3, math.Inf(1), math.NaN()}

func (g *dtoGen) float64() float64 {
	if g.mode == genEmpty || g.mode == genZero {
		return 0
	}
	if g.byte()%2 == 0 {
		return interestingFloats[int(g.byte())%len(interestingFloats)]
	}
	return math.Float64frombits(g.uint64()) // NaN and infinities included now and then
}

var numberLiterals = []json.Number{"0", "-0", "12", "-3.5e+10", "1E2", "0.000001", "12345678901234567890123", "", "01", "1.", "abc", "+1", "NaN"}

// any is a free-form (metadata) value.
func (g *dtoGen) any() any {
	if g.depth > 3 {
		return g.string()
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.byte() % 9 {
	case 0:
		return nil
	case 1:
		return g.byte()&1 == 1
	case 2:
		return numberLiterals[int(g.byte())%len(numberLiterals)]
	case 3:
		return g.float64()
	case 4:
		m := map[string]any{}
		for range g.count() {
			m[g.string()] = g.any()
		}
		return m
	case 5:
		l := []any{}
		for range g.count() {
			l = append(l, g.any())
		}
		return l
	}
	return g.string()
}

func (g *dtoGen) fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(g.string())
	case reflect.Int64:
		v.SetInt(g.int64())
	case reflect.Bool:
		v.SetBool(g.mode == genFull || g.mode == genRandom && g.byte()&1 == 1)
	case reflect.Float64:
		v.SetFloat(g.float64())
	case reflect.Pointer:
		if g.present() {
			p := reflect.New(v.Type().Elem())
			g.fill(p.Elem())
			v.Set(p)
		}
	case reflect.Slice:
		if g.present() {
			n := g.count()
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				g.fill(s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Map:
		if v.Type() != reflect.TypeFor[map[string]any]() {
			panic("dtoGen: map type " + v.Type().String())
		}
		if g.present() {
			m := map[string]any{}
			for range g.count() {
				m[g.string()] = g.any()
			}
			v.Set(reflect.ValueOf(m))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				g.fill(v.Field(i))
			}
		}
	default:
		panic("dtoGen: kind " + v.Kind().String() + " of " + v.Type().String())
	}
}

func (g *dtoGen) value(t reflect.Type) any {
	v := reflect.New(t).Elem()
	g.fill(v)
	return v.Interface()
}

// referenceJSON is what writeJSON sent before the appenders.
func referenceJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := newJSONEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// checkSameAsEncodingJSON fails t unless v's appender writes encoding/json's
// bytes (after a prefix, to check it appends) or fails exactly when it fails.
func checkSameAsEncodingJSON(t *testing.T, v any) {
	t.Helper()
	want, wantErr := referenceJSON(v)
	got, err := v.(jsonAppender).appendJSON([]byte("[1,"))
	if wantErr != nil {
		require.Errorf(t, err, "encoding/json fails (%v) on %#v", wantErr, v)
		assert.Equal(t, wantErr.Error(), err.Error())
		return
	}
	require.NoErrorf(t, err, "value %#v", v)
	if !bytes.Equal([]byte("[1,"), got[:3]) || !bytes.Equal(want, got[3:]) {
		t.Fatalf("%T differs from encoding/json\nwant %q\ngot  %q\nvalue %#v", v, want, got[3:], v)
	}
}

func TestAnswerEncodingMatchesEncodingJSON(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for _, typ := range answerTypes {
		t.Run(typ.Name(), func(t *testing.T) {
			_, ok := reflect.New(typ).Elem().Interface().(jsonAppender)
			require.True(t, ok, "%s has no appendJSON", typ)
			for mode := range genModes {
				if mode == genRandom {
					continue
				}
				checkSameAsEncodingJSON(t, (&dtoGen{rnd: rand.New(rand.NewPCG(1, uint64(mode))), mode: mode}).value(typ))
			}
			g := &dtoGen{rnd: rand.New(rand.NewPCG(2, 7))}
			for range n {
				checkSameAsEncodingJSON(t, g.value(typ))
			}
		})
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := append([]string{""}, nastyStrings...)
	for b := range 256 { // every single byte, alone and inside text
		cases = append(cases, string([]byte{byte(b)}), "x"+string([]byte{byte(b)})+"y")
	}
	for r := rune(0x2000); r < 0x2100; r++ {
		cases = append(cases, string(r))
	}
	for _, s := range cases {
		want, err := referenceJSON(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(appendString(nil, s)), "%q", s)
	}
}

// TestWriteJSONUsesAppender: a payment answer goes through the appender with
// the challenge URL made absolute, other answers through encoding/json.
func TestWriteJSONUsesAppender(t *testing.T) {
	p := typicalPayment()
	p.Status = simulator.StatusPending
	p.Required = &simulator.RequiredAction{Name: simulator.ActionThreeDS, Description: "3DS <challenge> & more", ClientToken: "ct_1"}
	d := toPaymentDTO(p, true)
	require.NotNil(t, d.RequiredAction)
	abs := d
	ra := *d.RequiredAction
	ra.ChallengeURL = "http://sandbox.test" + ra.ChallengeURL
	abs.RequiredAction = &ra
	wantPayment, err := referenceJSON(abs)
	require.NoError(t, err)
	wantMap, err := referenceJSON(map[string]string{"a": "<&>"})
	require.NoError(t, err)

	tests := []struct {
		name string
		v    any
		want []byte
	}{
		{"payment with challenge", d, wantPayment},
		{"map", map[string]string{"a": "<&>"}, wantMap},
	}
	e := echo.New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "http://sandbox.test/payments/x", nil)
			rec := httptest.NewRecorder()
			require.NoError(t, writeJSON(e.NewContext(req, rec), http.StatusOK, tc.v))
			assert.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, echo.MIMEApplicationJSON, rec.Header().Get(echo.HeaderContentType))
			assert.Equal(t, string(tc.want), rec.Body.String())
		})
	}
}

// FuzzAnswerEncoding: the first byte picks the answer type, the second the
// generation mode, the rest drives every field; the appender must write
// encoding/json's bytes.
func FuzzAnswerEncoding(f *testing.F) {
	f.Add([]byte{0, genFull, 3, 'a', 0xff, 0xe2, 0x80, 0xa8})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		typ := answerTypes[int(data[0])%len(answerTypes)]
		g := &dtoGen{data: data[2:], mode: int(data[1]) % genModes}
		checkSameAsEncodingJSON(t, g.value(typ))
	})
}

// typicalPayment is a settled card payment with its processor, risk data and
// a SALE with two events (the shape of payment_settled.json).
func typicalPayment() *simulator.Payment {
	at := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	amt, final := int64(1000), true
	return &simulator.Payment{
		ID: "pay00001", Date: at, DateUpdated: at, Status: simulator.StatusSettled, OrderID: "order-1",
		CurrencyCode: "EUR", Amount: 1000, CustomerID: "cust-1", CardTokenType: "CARD_PAN",
		PaymentMethod: simulator.PaymentMethod{
			PaymentMethodToken: "tok_test_000001", AuthorizationType: "FINAL", AnalyticsID: "an_000001",
			PaymentMethodType: simulator.PaymentMethodTypeCard,
			Data: simulator.CardData{Last4Digits: "1111", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Jane Doe", Network: "Visa",
				BinData: simulator.BinData{Network: "VISA", IssuerCountryCode: "US", IssuerName: "Paysandbox Test Bank", IssuerCurrencyCode: "USD",
					RegionalRestriction: "NONE", AccountNumberType: "PRIMARY_ACCOUNT_NUMBER", AccountFundingType: "DEBIT",
					PrepaidReloadableIndicator: "NOT_APPLICABLE", ProductUsageType: "CONSUMER", ProductCode: "VISA", ProductName: "VISA DEBIT"}},
		},
		Processor: &simulator.ProcessorState{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", AmountCaptured: 1000},
		RiskData: &simulator.RiskData{
			FraudChecks: &simulator.FraudChecks{Source: "FRAUD_PROVIDER", PreAuthorizationResult: "ACCEPT", PostAuthorizationResult: "ACCEPT"},
			CVVCheck:    &simulator.RiskCheck{Source: "PROCESSOR", Result: "MATCHED"},
			AVSCheck:    &simulator.AVSCheck{Source: "PROCESSOR", Result: simulator.AVSResult{StreetAddress: "NOT_VERIFIED", PostalCode: "NOT_VERIFIED"}},
		},
		Transactions: []simulator.Transaction{{
			Type: "SALE", Date: at, Amount: 1000, CurrencyCode: "EUR", ProcessorStatus: simulator.StatusSettled,
			ProcessorName: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", ProcessorTransactionID: "txn_000001",
			CardTokenType: "CARD_PAN", AuthorizationCode: "A00001",
			Events: []simulator.TransactionEvent{
				{ID: "00000000-0000-4000-8000-000000000005", Date: at, Type: "AUTHORIZATION_SUCCEEDED", Amount: &amt},
				{ID: "00000000-0000-4000-8000-000000000007", Date: at, Type: "CAPTURE_SUCCEEDED", Amount: &amt, Final: &final},
			},
		}},
	}
}

// BenchmarkPaymentAnswer encodes a typical payment answer (GET
// /payments/{id}) into a pooled buffer as writeJSON does: reflect is
// encoding/json (before), append the hand-written encoder (after); dto+
// includes building the DTO from the payment.
func BenchmarkPaymentAnswer(b *testing.B) {
	p := typicalPayment()
	encoders := []struct {
		name string
		enc  func(buf *bytes.Buffer, v any) error
	}{
		{"reflect", func(buf *bytes.Buffer, v any) error { return newJSONEncoder(buf).Encode(v) }},
		{"append", func(buf *bytes.Buffer, v any) error {
			out, err := v.(jsonAppender).appendJSON(buf.AvailableBuffer())
			buf.Write(out)
			return err
		}},
	}
	for _, withDTO := range []bool{false, true} {
		for _, e := range encoders {
			name := e.name
			if withDTO {
				name = "dto+" + name
			}
			b.Run(name, func(b *testing.B) {
				var v any = toPaymentDTO(p, false)
				b.ReportAllocs()
				for b.Loop() {
					if withDTO {
						v = toPaymentDTO(p, false)
					}
					buf := getBuffer()
					if err := e.enc(buf, v); err != nil {
						b.Fatal(err)
					}
					putBuffer(buf)
				}
			})
		}
	}
}
