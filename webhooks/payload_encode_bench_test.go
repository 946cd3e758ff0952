package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/webhooks"
)

// BenchmarkRenderEvent renders the PAYMENT.STATUS body of a payment made
// through the real service (customer, metadata, card with BIN data, risk
// data), captured and partly refunded, so it carries three transactions.
func BenchmarkRenderEvent(b *testing.B) {
	e := newEnv(b, nil)
	ctx := context.Background()
	p := e.pay(b, 1000, "4111111111111111")
	e.clk.Advance(time.Minute)
	_, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{})
	require.NoError(b, err)
	_, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{Amount: i64(300), Reason: "Item returned."})
	require.NoError(b, err)
	p, err = e.svc.Payment(e.t, p.ID)
	require.NoError(b, err)
	ev := &simulator.Event{ID: "ev-1", TenantID: e.t.ID, Type: simulator.EventPaymentStatus, PaymentID: p.ID, CreatedAt: epoch}
	body, err := webhooks.Renderer{}.RenderEvent(ev, p, nil, nil)
	require.NoError(b, err)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (webhooks.Renderer{}).RenderEvent(ev, p, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
