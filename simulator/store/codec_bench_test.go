package store

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// The measurement behind the choice of codec (codec.go): a typical
// checkout's records in each candidate encoding, bytes and encode+decode
// (msgpack was measured the same way when the codec was chosen).
//
//	go test ./simulator/store -run '^$' -bench Codec

func typicalRecords() (pay *payRec, ev *evStore, cs *simulator.ClientSession) {
	at := time.Date(2026, 11, 22, 7, 30, 0, 123456789, time.UTC)
	card := shippedCards().Identify("4111111111111111")
	amt := int64(1000)
	p := &simulator.Payment{ID: "Z926ZLaz", TenantID: "t_h4oTxgDO3w6u8vcn", Date: at, DateUpdated: at, Status: simulator.StatusSettled,
		OrderID: "order-00042", CurrencyCode: "EUR", Amount: 1000, Authorized: 1000, CardTokenType: "CARD_PAN", CVVGiven: true,
		SessionID: "00000000-0000-4000-8000-000000000001", Card: card,
		Metadata: map[string]any{"cart": "c-42"},
		PaymentMethod: simulator.PaymentMethod{PaymentMethodToken: "tok_test_000001", AuthorizationType: "FINAL", AnalyticsID: "an_000001",
			PaymentMethodType: simulator.PaymentMethodTypeCard, Data: (&simulator.Instrument{Card: card, ExpiryMonth: "12", ExpiryYear: "2030", CardholderName: "Seed"}).CardData(false)},
		Processor: &simulator.ProcessorState{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", AmountCaptured: 1000},
		Plan: &simulator.Plan{Why: "no rule matched", Steps: []simulator.AuthStep{{Account: simulator.ProcessorAccount{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", AuthorizationCode: true}, Status: simulator.StatusAuthorized}},
			Capture: &simulator.CaptureDecision{Status: simulator.StatusSettling, SettleAfter: time.Hour, SettleTo: simulator.StatusSettled}},
		Transactions: []simulator.Transaction{
			{ID: "x1", Type: simulator.TxnSale, Date: at, Amount: 1000, CurrencyCode: "EUR", ProcessorStatus: simulator.StatusAuthorized,
				ProcessorName: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", ProcessorTransactionID: "pi_000001", AuthorizationCode: "123456", CardTokenType: "CARD_PAN"},
			{ID: "x1", Type: simulator.TxnSale, Date: at, Amount: 1000, CurrencyCode: "EUR", ProcessorStatus: simulator.StatusSettled,
				ProcessorName: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", ProcessorTransactionID: "pi_000001", CardTokenType: "CARD_PAN",
				Events: []simulator.TransactionEvent{{ID: "ev1", Date: at, Type: simulator.EventCaptureSucceeded, Amount: &amt}}},
		},
	}
	p.RiskData = p.AuthorizationRisk()
	e := &simulator.Event{ID: "00000000-0000-4000-8000-000000000002", TenantID: p.TenantID, Type: simulator.EventPaymentStatus, PaymentID: p.ID,
		CreatedAt: at, Status: simulator.DeliveryDelivered, Payment: p,
		Attempts: []simulator.DeliveryAttempt{{At: at, StatusCode: 200, LatencyMs: 2, SignedAt: "1795332600"}}}
	st, err := eventInputs(e)
	if err != nil {
		panic(err)
	}
	cs = &simulator.ClientSession{ID: "00000000-0000-4000-8000-000000000001", TenantID: p.TenantID, ClientToken: "cst_test_000001_aaaaaaaaaaaaaaaaaaaa",
		ExpiresAt: at.Add(24 * time.Hour), CreatedAt: at, ApprovalMode: simulator.ApprovalAuto,
		Data: simulator.SessionData{OrderID: "order-00042", CurrencyCode: "EUR", Amount: &amt, Metadata: map[string]any{"cart": "c-42"}}}
	return payRecOf(p), st, cs
}

type codec struct {
	name string
	enc  func(v any) ([]byte, error)
	dec  func(b []byte, v any) error
}

func codecs() []codec {
	return []codec{
		{"json", json.Marshal, func(b []byte, v any) error {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			return d.Decode(v)
		}},
		{"cbor", encMode.Marshal, decMode.Unmarshal},
	}
}

func BenchmarkCodec(b *testing.B) {
	pay, ev, cs := typicalRecords()
	for _, c := range codecs() {
		// the event as each format holds it: record and payment
		evPay, err := c.enc(pay)
		if err != nil {
			b.Fatal(err)
		}
		type evAny struct {
			R evRec  `json:"r"`
			P []byte `json:"p"`
		}
		evv := &evAny{R: ev.R, P: evPay}
		for _, r := range []struct {
			name string
			v    any
			new  func() any
		}{
			{"payment", pay, func() any { return new(payRec) }},
			{"event", evv, func() any { return new(evAny) }},
			{"session", cs, func() any { return new(simulator.ClientSession) }},
		} {
			b.Run(c.name+"/"+r.name, func(b *testing.B) {
				var n int
				for b.Loop() {
					enc, err := c.enc(r.v)
					if err != nil {
						b.Fatal(err)
					}
					if err := c.dec(enc, r.new()); err != nil {
						b.Fatal(err)
					}
					n = len(enc)
					if r.name == "event" {
						p := new(payRec)
						if err := c.dec(evPay, p); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(n), "bytes")
			})
		}
	}
}
