package simulator_test

import (
	"testing"

	"github.com/stretchr/testify/require"
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
