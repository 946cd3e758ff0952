package main

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// BenchmarkCreateCapture measures one payment created from a vaulted token
// and captured in full: through the real HTTP server (two requests), and
// through the service over the real in-memory store. It reports ns/op and
// allocations; nothing here asserts a time.
//
//	go test ./cmd/paysandbox -run '^$' -bench CreateCapture -benchmem
func BenchmarkCreateCapture(b *testing.B) {
	b.Run("http", func(b *testing.B) {
		a := newTestApp(b)
		pt := tokenIn(a, map[string]any{"orderId": "o"}, numOK)
		vt := a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-bench"}).Str("token")
		body := map[string]any{"paymentMethodToken": vt, "amount": 1000, "currencyCode": "EUR", "customerId": "cust-bench", "orderId": "bench"}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			id := a.must(200, "POST", "/payments", body).Str("id")
			a.must(200, "POST", "/payments/"+id+"/capture", nil)
		}
	})

	b.Run("service", func(b *testing.B) {
		app, err := Open(testConfig(), AppOptions{LogOut: io.Discard})
		require.NoError(b, err)
		b.Cleanup(func() { _ = app.Close() })
		svc := app.Svc
		t, err := svc.Tenant(simulator.DefaultTenantID)
		require.NoError(b, err)
		cs, err := svc.CreateSession(t, simulator.SessionData{OrderID: "o"}, simulator.ApprovalAuto)
		require.NoError(b, err)
		tk, err := svc.Tokenize(cs.ClientToken, service.CardInput{Number: numOK, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030"})
		require.NoError(b, err)
		v, err := svc.Vault(context.Background(), t, tk.Instrument.Token, "cust-bench", false)
		require.NoError(b, err)
		amount := int64(1000)
		req := service.PaymentRequest{Token: v.Token, Amount: &amount, CurrencyCode: "EUR", CustomerID: "cust-bench", OrderID: "bench"}
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			p, err := svc.CreatePayment(ctx, t, req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := svc.CapturePayment(ctx, t, p.ID, service.CaptureRequest{Final: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
