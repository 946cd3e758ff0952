package service_test

import (
	"context"
	"testing"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// BenchmarkCreatePaymentUntraced is a payment created and authorized with
// tracing off (no Config.Tracer): the tracing hooks must add no allocation.
// Before the hooks and after (go test -bench CreatePaymentUntraced
// -benchmem): the same allocs/op.
func BenchmarkCreatePaymentUntraced(b *testing.B) {
	e := newSvcEnv(b, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		tk := e.tokenize(b, simulator.ApprovalAuto, 1000, cardOK)
		b.StartTimer()
		if _, err := e.svc.CreatePayment(ctx, e.t, service.PaymentRequest{Token: tk.Instrument.Token}); err != nil {
			b.Fatal(err)
		}
	}
}
