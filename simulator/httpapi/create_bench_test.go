//go:build unix

package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/redact"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
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

// BenchmarkCreatePaymentServer is a POST /payments' whole server side
// without a client: the handler serve runs (the guard, echo with its
// middleware, the request log and the journal, the handler, the service's
// commit on a file store with fsync everysecond, the answer), served into
// an httptest.ResponseRecorder on a loopback Host with serve's default
// options, the real clock and random ids. Requests, their bodies and their
// recorders (a body buffer of 4 KiB) are made before the timer, so
// allocs/op and B/op are the server's, apart from the recorder's copy of the
// answer's headers at WriteHeader. It does not run the test-only OpenAPI
// check of every answer that BenchmarkCreatePayment's server includes.
// "idempotency-key" sends a fresh X-Idempotency-Key with each request.
func BenchmarkCreatePaymentServer(b *testing.B) {
	for _, withKey := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "idempotency-key"}[withKey]
		b.Run(name, func(b *testing.B) {
			h := newServeHandler(b)
			do := func(method, path, body string, headers ...string) *httptest.ResponseRecorder {
				r := serveRequest(method, path, body, headers...)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				require.Equal(b, http.StatusOK, w.Code, "%s %s: %s", method, path, w.Body.String())
				return w
			}
			reqs := make([]*http.Request, b.N)
			recs := make([]*httptest.ResponseRecorder, b.N)
			for i := range reqs {
				w := do("POST", "/client-session", fmt.Sprintf(`{"orderId":"bench-%06d","currencyCode":"EUR","amount":1000}`, i))
				ct := jsonString(b, w.Body.Bytes(), "clientToken")
				w = do("POST", "/client/payment-instruments", `{"paymentInstrument":{"number":"4111111111111111","cvv":"123","expirationMonth":"12","expirationYear":"2030","cardholderName":"Jane Doe"}}`, "X-Client-Token", ct)
				var headers []string
				if withKey {
					headers = []string{"X-Idempotency-Key", fmt.Sprintf("bench-key-%06d", i)}
				}
				reqs[i] = serveRequest("POST", "/payments", `{"paymentMethodToken":"`+jsonString(b, w.Body.Bytes(), "token")+`"}`, headers...)
				recs[i] = httptest.NewRecorder()
				recs[i].Body = bytes.NewBuffer(make([]byte, 0, 4096))
			}
			serveTimed(b, h, reqs, recs)
		})
	}
}

// BenchmarkGetPaymentServer is a GET /payments/{id}'s whole server side
// without a client, as BenchmarkCreatePaymentServer drives a POST: the
// handler serve runs, served into a recorder made before the timer, over
// 1,000 payments made first (authorized, as the shared benchmark's POSTs
// leave them), read round robin.
func BenchmarkGetPaymentServer(b *testing.B) {
	h := newServeHandler(b)
	do := func(method, path, body string, headers ...string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, serveRequest(method, path, body, headers...))
		require.Equal(b, http.StatusOK, w.Code, "%s %s: %s", method, path, w.Body.String())
		return w
	}
	ids := make([]string, 1000)
	for i := range ids {
		w := do("POST", "/client-session", fmt.Sprintf(`{"orderId":"bench-%06d","currencyCode":"EUR","amount":1000}`, i))
		w = do("POST", "/client/payment-instruments", `{"paymentInstrument":{"number":"4111111111111111","cvv":"123","expirationMonth":"12","expirationYear":"2030","cardholderName":"Jane Doe"}}`,
			"X-Client-Token", jsonString(b, w.Body.Bytes(), "clientToken"))
		w = do("POST", "/payments", `{"paymentMethodToken":"`+jsonString(b, w.Body.Bytes(), "token")+`"}`)
		ids[i] = jsonString(b, w.Body.Bytes(), "id")
	}
	reqs := make([]*http.Request, b.N)
	recs := make([]*httptest.ResponseRecorder, b.N)
	for i := range reqs {
		reqs[i] = serveRequest("GET", "/payments/"+ids[i%len(ids)], "")
		reqs[i].Body, reqs[i].ContentLength = http.NoBody, 0
		reqs[i].Header.Del("Content-Type")
		recs[i] = httptest.NewRecorder()
		recs[i].Body = bytes.NewBuffer(make([]byte, 0, 4096))
	}
	serveTimed(b, h, reqs, recs)
}

// serveTimed serves reqs[i] into recs[i], timed, with the server's CPU time
// per request reported as cpu-ns/op; every answer must be a 200.
func serveTimed(b *testing.B, h http.Handler, reqs []*http.Request, recs []*httptest.ResponseRecorder) {
	b.ReportAllocs()
	cpu0 := processCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.ServeHTTP(recs[i], reqs[i])
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
	for _, w := range recs {
		if w.Code != http.StatusOK {
			require.Equal(b, http.StatusOK, w.Code, w.Body.String())
		}
	}
}

// newServeHandler is the API's handler as serve builds it with its
// defaults (the dashboard aside): a file store with fsync everysecond, the
// real clock, random ids, the request log (text, masked, discarded once
// formatted), the journal, the loopback Host check and the guard.
func newServeHandler(b *testing.B) http.Handler {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), store.FsyncEverySecond, store.Options{})
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })
	svc := newServiceOn(b, db, db, clock.Real{}, simulator.RandomIDs{}, service.Config{AttemptTTL: service.DefaultAttemptTTL})
	_, err = svc.EnsureTenant(service.TenantSpec{
		ID: simulator.DefaultTenantID, SigningSecret: simulator.DefaultSigningSecret,
		APIKeys: []simulator.APIKey{{Key: simulator.DefaultAPIKey, Scopes: simulator.AllScopes}},
	})
	require.NoError(b, err)
	api := httpapi.New(svc, httpapi.Options{
		RequestTimeout: 90 * time.Second, Ready: db.Ready,
		Logger:      slog.New(redact.Handler(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))),
		ReadTimeout: httpapi.DefaultReadTimeout, IdleTimeout: httpapi.DefaultIdleTimeout,
		Hosts: httpapi.LoopbackHosts(nil), ChallengePage: challengePage,
	})
	return api.HTTPServer(api.Routes(), nil).Handler
}

// serveRequest is a request of the default tenant's merchant (or, with an
// X-Client-Token header, its client) as it reaches serve on 127.0.0.1:8080;
// headers are name, value pairs.
func serveRequest(method, path, body string, headers ...string) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Host, r.RemoteAddr = "127.0.0.1:8080", "127.0.0.1:50000"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-API-KEY", simulator.DefaultAPIKey)
	r.Header.Set("X-API-VERSION", "2.4")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return r
}

// jsonString is the string member name of a JSON object.
func jsonString(b *testing.B, body []byte, name string) string {
	b.Helper()
	var m map[string]any
	require.NoError(b, json.Unmarshal(body, &m))
	s, ok := m[name].(string)
	require.True(b, ok, "%s in %s", name, body)
	return s
}

// processCPU is the CPU time the process has used so far (user and system).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
