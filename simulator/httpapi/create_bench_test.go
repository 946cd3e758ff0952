package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// BenchmarkCreatePayment is POST /payments through the whole server (guard,
// middleware, handler, service, store on a file, as serve runs it) with a
// fresh single-use token each, as the shared benchmark loads it; the tokens
// are made before the timer starts. Profile it with -cpuprofile.
func BenchmarkCreatePayment(b *testing.B) {
	a, _ := startAPI(b, apiOptions{Path: filepath.Join(b.TempDir(), "bench.db"), Fsync: "everysecond", IDs: simulator.RandomIDs{}})
	h := a.srv.Config.Handler
	tokens := make([]string, b.N)
	for i := range tokens {
		ct := a.session(map[string]any{"orderId": fmt.Sprintf("bench-%06d", i), "currencyCode": "EUR", "amount": 1000})
		tokens[i] = a.tokenize(ct, "4111111111111111").Str("token")
	}
	b.ReportAllocs()
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
}
