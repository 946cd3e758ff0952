package httpapi

import (
	"bytes"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// referenceJSON is encoding/json's encoding of v with HTML escaping off,
// without the trailing newline.
func referenceJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := newJSONEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// TestWriteJSON: a payment answer is written with its challenge URL
// (Options.ChallengePage) on the request's host, every answer as encoding/json writes it without HTML escaping
// and without the trailing newline; a pooled encoder carries nothing from
// one answer (a long one, a failed one) into the next.
func TestWriteJSON(t *testing.T) {
	p := typicalPayment()
	p.Status = simulator.StatusPending
	p.Required = &simulator.RequiredAction{Name: simulator.ActionThreeDS, Description: "3DS <challenge> & more", ClientToken: "ct_1"}
	d := toPaymentDTO(p, "", true)
	require.NotNil(t, d.RequiredAction)
	abs := d
	ra := *d.RequiredAction
	ra.ChallengeURL = "http://sandbox.test/challenge?token=ct_1"
	abs.RequiredAction = &ra
	wantPayment, err := referenceJSON(abs)
	require.NoError(t, err)
	long := map[string]string{"a": string(bytes.Repeat([]byte("x"), 5000))}
	wantLong, err := referenceJSON(long)
	require.NoError(t, err)

	tests := []struct {
		name string
		v    any
		want string
	}{
		{"payment with challenge", d, string(wantPayment)},
		{"long", long, string(wantLong)},
		{"map", map[string]string{"a": "<&>\u2028"}, `{"a":"<&>\u2028"}`},
		{"after a failure", []int{1}, `[1]`},
	}
	e := echo.New()
	srv := &Server{opt: Options{ChallengePage: func(tok string) string { return "/challenge?token=" + tok }}}
	call := func(v any) (*httptest.ResponseRecorder, error) {
		req := httptest.NewRequest(http.MethodGet, "http://sandbox.test/payments/x", nil)
		rec := httptest.NewRecorder()
		c := e.NewContext(req, rec)
		notesOf(c).server = srv
		return rec, writeJSON(c, http.StatusOK, v)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := call(tc.v)
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, echo.MIMEApplicationJSON, rec.Header().Get(echo.HeaderContentType))
			assert.Equal(t, tc.want, rec.Body.String())
		})
		_, err := call(math.NaN()) // encoding/json refuses it; nothing is written
		require.Error(t, err)
	}
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
// /payments/{id}) as writeJSON does, with a pooled encoder; dto+ includes
// building the DTO from the payment.
func BenchmarkPaymentAnswer(b *testing.B) {
	p := typicalPayment()
	for _, withDTO := range []bool{false, true} {
		name := "encode"
		if withDTO {
			name = "dto+encode"
		}
		b.Run(name, func(b *testing.B) {
			var v any = toPaymentDTO(p, "", false)
			b.ReportAllocs()
			for b.Loop() {
				if withDTO {
					v = toPaymentDTO(p, "", false)
				}
				e := getAnswerEncoder()
				if _, err := e.encode(v); err != nil {
					b.Fatal(err)
				}
				putAnswerEncoder(e)
			}
		})
	}
}
