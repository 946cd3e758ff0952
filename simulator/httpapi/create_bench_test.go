//go:build unix

package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// BenchmarkCreatePayment is POST /payments through the whole server (guard,
// middleware, handler, service, store on a file, as serve runs it) with a
// fresh single-use token each, as the shared benchmark loads it; the tokens
// are made before the timer starts. Besides ns/op it reports cpu-ns/op, the
// process's CPU time (user and system, GC and background goroutines
// included) per request: on a loaded machine it moves much less than the
// wall time. Profile it with -cpuprofile.
func BenchmarkCreatePayment(b *testing.B) {
	a, _ := startAPI(b, apiOptions{Path: filepath.Join(b.TempDir(), "bench.db"), Fsync: "everysecond", IDs: simulator.RandomIDs{}})
	h := a.srv.Config.Handler
	tokens := make([]string, b.N)
	for i := range tokens {
		ct := a.session(map[string]any{"orderId": fmt.Sprintf("bench-%06d", i), "currencyCode": "EUR", "amount": 1000})
		tokens[i] = a.tokenize(ct, "4111111111111111").Str("token")
	}
	b.ReportAllocs()
	cpu0 := processCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := httptest.NewRequest("POST", "/payments", strings.NewReader(`{"paymentMethodToken":"`+tokens[i]+`"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-API-KEY", simulator.DefaultAPIKey)
		r.Header.Set("X-API-VERSION", "2.4")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			require.Equal(b, http.StatusOK, w.Code, w.Body.String())
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time the process has used so far (user and system).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
