package store

import (
	"testing"
	"time"

	"github.com/tinylib/msgp/msgp"

	"github.com/paysandbox/paysandbox/simulator"
)

// The measurement behind the choice of codec (codec.go): a typical
// checkout's records, bytes and encode+decode, in the store's format and,
// for reference, as encoding/json writes the kernel's values.
//
//	go test ./simulator/store -run '^$' -bench Codec -benchmem

func typicalRecords() (pay *simulator.Payment, ev *simulator.Event, cs *simulator.ClientSession) {
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
	cs = &simulator.ClientSession{ID: "00000000-0000-4000-8000-000000000001", TenantID: p.TenantID, ClientToken: "cst_test_000001_aaaaaaaaaaaaaaaaaaaa",
		ExpiresAt: at.Add(24 * time.Hour), CreatedAt: at, ApprovalMode: simulator.ApprovalAuto,
		Data: simulator.SessionData{OrderID: "order-00042", CurrencyCode: "EUR", Amount: &amt, Metadata: map[string]any{"cart": "c-42"}}}
	return p, e, cs
}

// BenchmarkCodec: "store" is the whole path of a record (kernel value ->
// record -> bytes -> record -> kernel value, what a write and a read pay),
// "codec" the records' encoding and decoding alone (records mapped once).
func BenchmarkCodec(b *testing.B) {
	pay, ev, cs := typicalRecords()
	payRec, sessRec := payRecordOf(pay), sessionRecordOf(cs)
	evSt, err := eventInputs(ev, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range []struct {
		name, record string
		run          func() (int, error)
	}{
		{"store", "payment", func() (int, error) {
			enc, err := encodePayment(pay)
			if err != nil {
				return 0, err
			}
			_, err = decodePayment(string(enc), pay.TenantID)
			return len(enc), err
		}},
		{"store", "event", func() (int, error) {
			st, err := eventInputs(ev, nil)
			if err != nil {
				return 0, err
			}
			v, err := eventValue(&st)
			if err != nil {
				return 0, err
			}
			back, err := decodeEventStore(v)
			if err != nil {
				return 0, err
			}
			var p payRecord
			if _, err := p.UnmarshalMsg(back.P); err != nil {
				return 0, err
			}
			_, err = p.payment(pay.TenantID)
			return len(v), err
		}},
		{"store", "session", func() (int, error) {
			enc, err := marshal(sessionRecordOf(cs))
			if err != nil {
				return 0, err
			}
			_, err = decodeSession(string(enc), cs.TenantID)
			return len(enc), err
		}},
		{"codec", "payment", func() (int, error) { return msgpRoundTrip(&payRec, new(payRecord)) }},
		{"codec", "event", func() (int, error) {
			n, err := msgpRoundTrip(&evSt, new(evStore))
			if err != nil {
				return 0, err
			}
			_, err = new(payRecord).UnmarshalMsg(evSt.P)
			return n, err
		}},
		{"codec", "session", func() (int, error) { return msgpRoundTrip(sessRec, new(sessionRecord)) }},
	} {
		b.Run(r.name+"/"+r.record, func(b *testing.B) {
			var n int
			for b.Loop() {
				var err error
				if n, err = r.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "bytes")
		})
	}
}

func msgpRoundTrip(v msgp.Marshaler, into msgp.Unmarshaler) (int, error) {
	enc, err := v.MarshalMsg(nil)
	if err != nil {
		return 0, err
	}
	_, err = into.UnmarshalMsg(enc)
	return len(enc), err
}
