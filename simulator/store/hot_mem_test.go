package store_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// BenchmarkHotMemory reports what the hot cache costs in memory: checkouts
// like the bench's (session, token, payment authorized and captured) fill
// it, and the heap is measured with the cache and again once it is dropped.
// It reports bytes per cached entry and per checkout, then per payment with
// only the payments read into an empty cache, and the live heap per stored
// checkout (its records and events, the cache dropped); it asserts nothing.
//
//	go test ./simulator/store -run '^$' -bench HotMemory -benchtime 1x
func BenchmarkHotMemory(b *testing.B) {
	const checkouts = 4000
	for range b.N {
		base := heap()
		db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		cat, err := cards.Parse(fixtures.Cards)
		if err != nil {
			b.Fatal(err)
		}
		svc := service.NewService(db, clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)),
			simulator.RandomIDs{}, cat, processors.NewFake(nil, nil), nil, service.Config{})
		tn, err := svc.EnsureTenant(service.TenantSpec{ID: "bench", SigningSecret: "s",
			APIKeys: []simulator.APIKey{{Key: "key", Scopes: simulator.AllScopes}}})
		if err != nil {
			b.Fatal(err)
		}
		amount := int64(1000)
		ids := make([]string, 0, checkouts)
		for range checkouts {
			cs, err := svc.CreateSession(tn, simulator.SessionData{OrderID: "bench", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalAuto)
			if err != nil {
				b.Fatal(err)
			}
			tk, err := svc.Tokenize(cs.ClientToken, service.CardInput{Number: "4111111111111111", CVV: "123",
				ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Bench"})
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := svc.ClientSession(cs.ClientToken); err != nil { // the client token too
				b.Fatal(err)
			}
			p, err := svc.CreatePayment(context.Background(), tn, service.PaymentRequest{Token: tk.Instrument.Token})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := svc.CapturePayment(context.Background(), tn, p.ID, service.CaptureRequest{}); err != nil {
				b.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		entries := db.HotLen()
		with := heap()
		db.DropHotCache()
		without := heap()
		b.ReportMetric(float64(without-base)/float64(checkouts), "B/stored-checkout")
		b.ReportMetric(float64(with-without)/float64(entries), "B/entry")
		b.ReportMetric(float64(with-without)/float64(checkouts), "B/checkout")
		b.ReportMetric(float64(entries), "entries")
		for _, id := range ids { // payments only, as GET /payments/{id} fills it
			if _, err := db.HotPayment(tn.ID, id); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(heap()-without)/float64(len(ids)), "B/payment")
		_ = db.Close()
	}
}

func heap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
