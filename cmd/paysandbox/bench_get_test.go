package main

import "testing"

// BenchmarkGetPayment measures GET /payments/{id} through the real HTTP
// server (the read path of `bench --flow read`), allocations included;
// nothing here asserts a time.
//
//	go test ./cmd/paysandbox -run '^$' -bench GetPayment -benchmem
func BenchmarkGetPayment(b *testing.B) {
	a := newTestApp(b)
	pt := tokenIn(a, plainSession(1000), numOK)
	id := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt}).Str("id")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a.must(200, "GET", "/payments/"+id, nil)
	}
}
