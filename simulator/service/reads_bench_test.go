package service_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// BenchmarkServicePayment measures Service.Payment (GET /payments/{id}
// without HTTP) on a payment read before, so that the store's memory has it;
// in parallel too, as the server reads. Nothing here asserts a time.
//
//	go test ./simulator -run '^$' -bench ServicePayment -benchmem
func BenchmarkServicePayment(b *testing.B) {
	e := newSvcEnv(b, nil)
	id := e.pay(b, 1000, cardOK).ID
	_, err := e.svc.Payment(e.t, id)
	require.NoError(b, err)
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := e.svc.Payment(e.t, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := e.svc.Payment(e.t, id); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkServiceCheckout measures the `auto` flow of `paysandbox bench`
// through the service (no HTTP): session, the client token resolved as
// /client/* does, tokenise, create (authorized at once), capture. Nothing
// here asserts a time.
//
//	go test ./simulator -run '^$' -bench ServiceCheckout -benchmem
func BenchmarkServiceCheckout(b *testing.B) {
	e := newSvcEnv(b, nil)
	ctx := context.Background()
	amount := int64(1000)
	b.ReportAllocs()
	for range b.N {
		cs, err := e.svc.CreateSession(e.t, simulator.SessionData{OrderID: "bench", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalAuto)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := e.svc.ClientSession(cs.ClientToken); err != nil {
			b.Fatal(err)
		}
		tk, err := e.svc.Tokenize(cs.ClientToken, service.CardInput{Number: cardOK, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Bench"})
		if err != nil {
			b.Fatal(err)
		}
		p, err := e.svc.CreatePayment(ctx, e.t, service.PaymentRequest{Token: tk.Instrument.Token})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}
