package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/redact"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/observe"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// countingStore is the real store with its write transactions counted.
// Embedding keeps every other method (the memories the service's reads
// use) as the store has them.
type countingStore struct {
	*store.DB
	updates atomic.Int64
}

func (s *countingStore) Update(fn func(tx simulator.Tx) error) error {
	s.updates.Add(1)
	return s.DB.Update(fn)
}

// SaveObserved counts the observers' writes (observe.Store) too.
func (s *countingStore) SaveObserved(tid string, records ...observe.Record) error {
	s.updates.Add(1)
	return s.DB.SaveObserved(tid, records...)
}

// pipeline is the server (Guard over the routes, as serve has it) called in-process (no connection, no client), with
// the scheduler stopped and migration notes stored only when flushed, so
// that every store transaction counted is the request's own.
type pipeline struct {
	t   testing.TB
	st  *countingStore
	svc *service.Service
	h   http.Handler
}

func newPipeline(t testing.TB) *pipeline {
	t.Helper()
	db, err := store.Open(":memory:", "never", store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	st := &countingStore{DB: db}
	// production ids: no uuid of 12 digits in a row for redact to check
	svc := newServiceOn(t, st, db, clock.NewManual(testEpoch), simulator.RandomIDs{}, service.Config{AttemptTTL: 15 * time.Minute, MigrationFlush: time.Hour})
	_, err = svc.EnsureTenant(service.TenantSpec{
		ID: simulator.DefaultTenantID, SigningSecret: simulator.DefaultSigningSecret,
		APIKeys: []simulator.APIKey{{Key: simulator.DefaultAPIKey, Scopes: simulator.AllScopes}},
	})
	require.NoError(t, err)
	logger := slog.New(redact.Handler(slog.NewTextHandler(io.Discard, nil))) // serve's logger, at Info
	api := httpapi.New(svc, httpapi.Options{RequestTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, Logger: logger})
	return &pipeline{t: t, st: st, svc: svc, h: api.Guard(api.Routes())} // as serve stacks them
}

// do serves one request and returns the recorder; body nil sends none.
func (p *pipeline) do(method, path string, body []byte, headers ...string) *httptest.ResponseRecorder {
	var r *http.Request
	if body == nil {
		r = httptest.NewRequest(method, path, nil)
	} else {
		r = httptest.NewRequest(method, path, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("X-API-KEY", simulator.DefaultAPIKey)
	r.Header.Set("X-API-VERSION", "2.4")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	p.h.ServeHTTP(w, r)
	return w
}

// must serves a request, requires 200 and returns the answer's field key.
func (p *pipeline) must(method, path string, body any, key string, headers ...string) string {
	p.t.Helper()
	var raw []byte
	if body != nil {
		var err error
		raw, err = json.Marshal(body)
		require.NoError(p.t, err)
	}
	w := p.do(method, path, raw, headers...)
	require.Equal(p.t, 200, w.Code, "%s %s: %s", method, path, w.Body)
	var m map[string]any
	require.NoError(p.t, json.Unmarshal(w.Body.Bytes(), &m))
	s, _ := m[key].(string)
	return s
}

// commits serves the request and returns how many write transactions it ran.
func (p *pipeline) commits(method, path string, body any, headers ...string) int64 {
	p.t.Helper()
	before := p.st.updates.Load()
	p.must(method, path, body, "", headers...)
	return p.st.updates.Load() - before
}

// TestStoreCommitsPerRequest: a read commits nothing and a write commits
// once. The scheduler is stopped, so jobs a write schedules (settlement,
// webhooks) are not counted: they run later, each in its own transaction.
func TestStoreCommitsPerRequest(t *testing.T) {
	p := newPipeline(t)
	session := func() string { return p.must("POST", "/client-session", plainSession(1000), "clientToken") }
	tokenize := func(ct string) string {
		return p.must("POST", "/client/payment-instruments", card(numOK), "token", "X-Client-Token", ct)
	}
	id := p.must("POST", "/payments", map[string]any{"paymentMethodToken": tokenize(session())}, "id")
	capturable := p.must("POST", "/payments", map[string]any{"paymentMethodToken": tokenize(session())}, "id")
	refundable := p.must("POST", "/payments", map[string]any{"paymentMethodToken": tokenize(session())}, "id")
	p.must("POST", "/payments/"+refundable+"/capture", nil, "")

	cancelable := p.must("POST", "/payments", map[string]any{"paymentMethodToken": tokenize(session())}, "id")
	ct := session()
	pt := tokenize(session())
	vaultable := tokenize(p.must("POST", "/client-session", map[string]any{"orderId": "o"}, "clientToken"))
	cases := []struct {
		name         string
		method, path string
		body         any
		headers      []string
		want         int64
	}{
		{"GET /payments/{id}", "GET", "/payments/" + id, nil, nil, 0},
		{"GET /payments", "GET", "/payments", nil, nil, 0},
		{"GET /client-session", "GET", "/client-session?clientToken=" + ct, nil, nil, 0},
		{"POST /client-session", "POST", "/client-session", plainSession(1000), nil, 1},
		{"POST /client/payment-instruments", "POST", "/client/payment-instruments", card(numOK), []string{"X-Client-Token", ct}, 1},
		{"POST /payments", "POST", "/payments", map[string]any{"paymentMethodToken": pt}, []string{"X-Idempotency-Key", "k1"}, 1},
		{"POST /payments/{id}/capture", "POST", "/payments/" + capturable + "/capture", nil, []string{"X-Idempotency-Key", "k2"}, 1},
		{"POST /payments/{id}/refund", "POST", "/payments/" + refundable + "/refund", nil, []string{"X-Idempotency-Key", "k3"}, 1},
		{"POST /payments/{id}/cancel", "POST", "/payments/" + cancelable + "/cancel", nil, []string{"X-Idempotency-Key", "k4"}, 1},
		{"POST /payment-instruments/{token}/vault", "POST", "/payment-instruments/" + vaultable + "/vault", map[string]any{"customerId": "c"}, nil, 1},
		{"GET /_sandbox/requests", "GET", "/_sandbox/requests", nil, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, p.commits(tc.method, tc.path, tc.body, tc.headers...))
		})
	}
}

// BenchmarkPipeline serves GET /payments/{id} and POST /payments in-process
// (no connection, no client): the server's whole work per request, the
// middleware chain and the journal included. Nothing asserts a time.
//
//	go test ./simulator/httpapi -run '^$' -bench Pipeline -benchmem
func BenchmarkPipeline(b *testing.B) {
	b.Run("GET /payments/{id}", func(b *testing.B) {
		p := newPipeline(b)
		ct := p.must("POST", "/client-session", plainSession(1000), "clientToken")
		pt := p.must("POST", "/client/payment-instruments", card(numOK), "token", "X-Client-Token", ct)
		id := p.must("POST", "/payments", map[string]any{"paymentMethodToken": pt}, "id")
		path := "/payments/" + id
		b.ReportAllocs()
		for b.Loop() {
			if w := p.do("GET", path, nil); w.Code != 200 {
				b.Fatal(w.Code, w.Body)
			}
		}
	})
	b.Run("POST /payments", func(b *testing.B) {
		p := newPipeline(b)
		ct := p.must("POST", "/client-session", map[string]any{"orderId": "o"}, "clientToken")
		pt := p.must("POST", "/client/payment-instruments", card(numOK), "token", "X-Client-Token", ct)
		vt := p.must("POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-bench"}, "token")
		body := []byte(`{"paymentMethodToken":"` + vt + `","amount":1000,"currencyCode":"EUR","customerId":"cust-bench","orderId":"bench"}`)
		n := 0
		b.ReportAllocs()
		for b.Loop() {
			n++
			if w := p.do("POST", "/payments", body, "X-Idempotency-Key", "bench-"+strconv.Itoa(n)); w.Code != 200 {
				b.Fatal(w.Code, w.Body)
			}
		}
	})
}
