package store

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// filler sets every field a record type has, recursively, to random values:
// pointers and slices nil or not, strings with what JSON must escape, times
// in other zones. A field added to a stored type later is filled too, so
// the differential test below fails until its encoder writes it.
type filler struct {
	r    *rand.Rand
	strs []string
}

var zones = []*time.Location{time.UTC, time.FixedZone("", 2*3600), time.FixedZone("", -(5*3600 + 30*60))}

func (f *filler) str() string {
	if len(f.strs) > 0 && f.r.Intn(3) == 0 {
		return f.strs[f.r.Intn(len(f.strs))]
	}
	pool := []string{"", "a", "pay_01", "<b>&amp;</b>", "quote\" back\\slash", "tab\tnl\n\x01\x1f", "é ü 日本", "\u2028\u2029", "bad\xffutf8", "AUTHORIZED", "4111"}
	return pool[f.r.Intn(len(pool))]
}

func (f *filler) fill(v reflect.Value, depth int) {
	switch v.Type() {
	case reflect.TypeOf(time.Time{}):
		if f.r.Intn(4) == 0 {
			return // zero
		}
		t := time.Unix(f.r.Int63n(4e9), f.r.Int63n(1e9)*int64(f.r.Intn(2))).In(zones[f.r.Intn(len(zones))])
		v.Set(reflect.ValueOf(t))
		return
	case reflect.TypeOf(json.RawMessage{}):
		if f.r.Intn(2) == 0 {
			v.Set(reflect.ValueOf(json.RawMessage(`{"a":[1,"<x>"],"b":null}`)))
		}
		return
	case reflect.TypeOf(map[string]any{}):
		if f.r.Intn(2) == 0 {
			v.Set(reflect.ValueOf(map[string]any{f.str(): f.str(), "n": 1.5, "z": []any{true, nil}}))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.str())
	case reflect.Bool:
		v.SetBool(f.r.Intn(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		switch f.r.Intn(3) {
		case 0:
			v.SetInt(0)
		case 1:
			v.SetInt(f.r.Int63n(100000))
		default:
			v.SetInt(-f.r.Int63n(1 << 40))
		}
	case reflect.Pointer:
		if depth > 6 || f.r.Intn(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if depth > 6 || f.r.Intn(3) == 0 {
			return
		}
		n := f.r.Intn(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			f.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if f.r.Intn(2) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for i := f.r.Intn(3); i >= 0; i-- {
			k := reflect.New(v.Type().Key()).Elem()
			f.fill(k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			f.fill(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth+1)
			}
		}
	case reflect.Interface:
		if f.r.Intn(2) == 0 {
			v.Set(reflect.ValueOf(f.str()))
		}
	default:
		panic("filler: no rule for " + v.Type().String())
	}
}

// stdJSON is encoding/json's Encoder with HTML escaping off, less its newline.
func stdJSON(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func checkRecordEncoding(t testing.TB, f *filler) {
	var pr payRec
	f.fill(reflect.ValueOf(&pr).Elem(), 0)
	got, err := appendPayRec(nil, &pr)
	require.NoError(t, err)
	require.Equal(t, string(stdJSON(t, &pr)), string(got), "payment record")

	var ir instRec
	f.fill(reflect.ValueOf(&ir).Elem(), 0)
	got, err = appendInstRec(nil, &ir)
	require.NoError(t, err)
	require.Equal(t, string(stdJSON(t, &ir)), string(got), "instrument record")

	var er evRec
	f.fill(reflect.ValueOf(&er).Elem(), 0)
	got, err = appendEvRec(nil, &er)
	require.NoError(t, err)
	require.Equal(t, string(stdJSON(t, &er)), string(got), "event record")
}

// The record encoders write what encoding/json writes (HTML escaping off),
// for records with every field set at random.
func TestRecordEncodingMatchesEncodingJSON(t *testing.T) {
	f := &filler{r: rand.New(rand.NewSource(1))}
	for range 3000 {
		checkRecordEncoding(t, f)
	}
}

func FuzzRecordEncoding(f *testing.F) {
	f.Add(int64(1), "", "x")
	f.Add(int64(7), "<&>", "\x00\u2028")
	f.Fuzz(func(t *testing.T, seed int64, a, b string) {
		checkRecordEncoding(t, &filler{r: rand.New(rand.NewSource(seed)), strs: []string{a, b}})
	})
}

// A time outside encoding/json's years is refused, as encoding/json refuses it.
func TestRecordEncodingRefusesWhatEncodingJSONRefuses(t *testing.T) {
	p := &simulator.Payment{ID: "p", Date: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	_, err := appendPayRec(nil, &payRec{Payment: *p})
	assert.Error(t, err)
	_, jerr := json.Marshal(&payRec{Payment: *p})
	assert.Error(t, jerr)
}

// BenchmarkRecordEncoding: a captured card payment's record, as encoding/json
// wrote it before and as appendPayRec writes it.
func BenchmarkRecordEncoding(b *testing.B) {
	now := time.Date(2026, 11, 22, 7, 30, 0, 123456000, time.UTC)
	amount, final := int64(1999), true
	card := cards().Identify("4111111111111111")
	p := &simulator.Payment{ID: "pay_0f3a9c2e7b", Date: now, DateUpdated: now, Status: simulator.StatusSettled, OrderID: "order-1234",
		CurrencyCode: "EUR", Amount: amount, CustomerID: "cust-1", CardTokenType: "CARD_PAN", Card: card, CVVGiven: true,
		SessionID: "cs_1", Authorized: amount, FinalCaptured: true,
		Processor: &simulator.ProcessorState{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", AmountCaptured: amount},
		PaymentMethod: simulator.PaymentMethod{PaymentMethodToken: "tok_1", AuthorizationType: "FINAL", AnalyticsID: "an_1",
			PaymentMethodType: simulator.PaymentMethodTypeCard,
			Data:              (&simulator.Instrument{Card: card, ExpiryMonth: "12", ExpiryYear: "2030", CardholderName: "Jane Doe"}).CardData(false)},
		Transactions: []simulator.Transaction{{ID: "txn_1", Type: "SALE", Date: now, Amount: amount, CurrencyCode: "EUR",
			ProcessorStatus: simulator.StatusSettled, ProcessorName: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe",
			ProcessorTransactionID: "ptx_1", CardTokenType: "CARD_PAN", AuthorizationCode: "A00001",
			Events: []simulator.TransactionEvent{{ID: "ev_1", Date: now, Type: "CAPTURE", Amount: &amount, Final: &final}}}},
		Plan: &simulator.Plan{Steps: []simulator.AuthStep{{Account: simulator.ProcessorAccount{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", AuthorizationCode: true}, Status: simulator.StatusAuthorized}}},
	}
	p.RiskData = func() *simulator.RiskData { r := riskOf(p); return &r }()
	raw, err := encodePayment(p)
	require.NoError(b, err)
	var rec payRec
	require.NoError(b, json.Unmarshal(raw, &rec))
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(&rec)
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = appendPayRec(make([]byte, 0, 1536), &rec)
		}
	})
	b.Run("encodePayment", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = encodePayment(p)
		}
	})
}
