package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
)

// appHooks adjust startAppWith: options change what Open gets, before runs
// between Open and Start.
type appHooks struct {
	logOut    io.Writer
	ids       simulator.IDGen
	clock     *clock.Manual
	processor func(simulator.Processor) simulator.Processor
	before    func(*App)
}

// startAppWith is startApp with hooks (a log writer, real ids, a shared
// clock, a wrapper of the processors, a change before serving).
func startAppWith(t testing.TB, cfg Config, h appHooks) *testApp {
	t.Helper()
	clk := h.clock
	if clk == nil {
		clk = clock.NewManual(testEpoch)
	}
	seq, _ := h.ids.(*idgen.Seq)
	if h.ids == nil {
		seq = &idgen.Seq{}
		h.ids = seq
	}
	if h.logOut == nil {
		h.logOut = io.Discard
	}
	app, err := Open(cfg, AppOptions{LogOut: h.logOut, Clock: clk, IDs: h.ids, Processor: h.processor})
	require.NoError(t, err)
	if h.before != nil {
		h.before(app)
	}
	require.NoError(t, app.Start())
	t.Cleanup(func() { _ = app.Close() })
	return &testApp{App: app, t: t, Clock: clk, IDs: seq, Key: simulator.DefaultAPIKey, http: &http.Client{Timeout: 30 * time.Second}}
}

// as is the same app seen with another API key.
func (a *testApp) as(key string) *testApp {
	b := *a
	b.Key = key
	return &b
}

// newTenant creates a tenant through the control plane and returns its key.
func (a *testApp) newTenant(body map[string]any) string {
	a.t.Helper()
	var b any
	if body != nil {
		b = body
	}
	r := a.must(201, "POST", "/_sandbox/tenants", b)
	key := r.Str("apiKey")
	require.NotEmpty(a.t, key)
	return key
}

// fieldErrors returns the (path, description) pairs of a 422 and checks the
// envelope's shape: one validationErrors entry naming the model.
func fieldErrors(t testing.TB, r *resp, model string) map[string]string {
	t.Helper()
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.Equal(t, "RequestValidationError", r.ErrorID(), "%s", r.Body)
	ves, ok := r.Err()["validationErrors"].([]any)
	require.True(t, ok, "validationErrors missing: %s", r.Body)
	require.Len(t, ves, 1, "%s", r.Body)
	ve := ves[0].(map[string]any)
	if model != "" {
		assert.Equal(t, model, ve["model"], "%s", r.Body)
	}
	errs, _ := ve["errors"].([]any)
	out := map[string]string{}
	for _, e := range errs {
		m := e.(map[string]any)
		path, _ := m["path"].(string)
		desc, _ := m["description"].(string)
		assert.NotEmpty(t, desc, "empty description at %s", path)
		out[path] = desc
	}
	assert.Len(t, out, len(errs), "duplicate paths: %s", r.Body)
	return out
}

// paths lists the paths of fieldErrors.
func paths(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	return out
}

// TestPipelineOrder walks the order of checks of docs/api.md: route ->
// key -> scope -> version -> size -> JSON -> rules.
func TestPipelineOrder(t *testing.T) {
	a := newTestApp(t)
	narrow := a.newTenant(map[string]any{"scopes": []string{"transactions:retrieve"}})
	huge := `{"orderId": "` + strings.Repeat("x", 1<<20) + `"}`
	garbage := strings.Repeat("x", 1<<20+1)
	tests := []struct {
		name    string
		method  string
		path    string
		body    any
		headers []string
		status  int
		errorID string
		paths   []string // 422 only
	}{
		{name: "unknown route", method: "GET", path: "/nope", status: 404, errorID: "NotFound"},
		{name: "unknown route without key", method: "GET", path: "/nope", headers: []string{"X-API-KEY:", "X-API-VERSION:"}, status: 404, errorID: "NotFound"},
		{name: "unknown sub-route of a resource", method: "POST", path: "/payments/abc/explode", status: 404, errorID: "NotFound"},
		{name: "wrong method", method: "DELETE", path: "/client-session", status: 405, errorID: "MethodNotAllowed"},
		{name: "wrong method before key", method: "PUT", path: "/client-session", headers: []string{"X-API-KEY: nope"}, status: 405, errorID: "MethodNotAllowed"},
		{name: "missing key", method: "POST", path: "/client-session", body: map[string]any{}, headers: []string{"X-API-KEY:"}, status: 401, errorID: "Unauthorized"},
		{name: "unknown key", method: "POST", path: "/client-session", body: map[string]any{}, headers: []string{"X-API-KEY: nope"}, status: 401, errorID: "Unauthorized"},
		{name: "key without scope", method: "POST", path: "/client-session", body: map[string]any{}, headers: []string{"X-API-KEY: " + narrow}, status: 403, errorID: "Forbidden"},
		{name: "key without scope on instruments", method: "GET", path: "/payment-instruments?customer_id=c", headers: []string{"X-API-KEY: " + narrow}, status: 403, errorID: "Forbidden"},
		{name: "narrow key has its scope", method: "GET", path: "/payments", headers: []string{"X-API-KEY: " + narrow}, status: 200},
		{name: "missing version", method: "POST", path: "/client-session", body: map[string]any{}, headers: []string{"X-API-VERSION:"}, status: 400, errorID: "UnsupportedApiVersion"},
		{name: "wrong version", method: "POST", path: "/client-session", body: map[string]any{}, headers: []string{"X-API-VERSION: 2.5"}, status: 400, errorID: "UnsupportedApiVersion"},
		{name: "dated version", method: "GET", path: "/client-session?clientToken=x", headers: []string{"X-API-VERSION: 2021-09-27"}, status: 400, errorID: "UnsupportedApiVersion"},
		{name: "bad key and bad version", method: "POST", path: "/client-session", body: map[string]any{}, headers: []string{"X-API-KEY: nope", "X-API-VERSION: 1"}, status: 401, errorID: "Unauthorized"},
		{name: "scope missing and bad version", method: "POST", path: "/client-session", body: map[string]any{}, headers: []string{"X-API-KEY: " + narrow, "X-API-VERSION: 1"}, status: 403, errorID: "Forbidden"},
		{name: "bad version and huge body", method: "POST", path: "/client-session", body: huge, headers: []string{"X-API-VERSION: 1"}, status: 400, errorID: "UnsupportedApiVersion"},
		{name: "body over 1 MiB", method: "POST", path: "/client-session", body: huge, status: 413, errorID: "PayloadTooLarge"},
		{name: "body over 1 MiB and not JSON", method: "POST", path: "/client-session", body: garbage, status: 413, errorID: "PayloadTooLarge"},
		{name: "body over 1 MiB on the client side", method: "POST", path: "/client/payment-instruments", body: huge, status: 413, errorID: "PayloadTooLarge"},
		{name: "not JSON", method: "POST", path: "/client-session", body: "{orderId: 1", status: 400, errorID: "BadRequest"},
		{name: "trailing garbage", method: "POST", path: "/client-session", body: `{} {}`, status: 400, errorID: "BadRequest"},
		{name: "top-level array", method: "POST", path: "/client-session", body: `[{"orderId": "o"}]`, status: 400, errorID: "BadRequest"},
		{name: "top-level string", method: "POST", path: "/client-session", body: `"o"`, status: 400, errorID: "BadRequest"},
		{name: "empty body of a required body", method: "POST", path: "/payment-instruments/tok/vault", status: 400, errorID: "BadRequest"},
		{name: "three broken rules", method: "POST", path: "/client-session", body: map[string]any{"orderId": "", "currencyCode": "XXX", "amount": -1},
			status: 422, errorID: "RequestValidationError", paths: []string{"$.orderId", "$.currencyCode", "$.amount"}},
		{name: "unknown field", method: "POST", path: "/client-session", body: map[string]any{"bogusField": 1},
			status: 422, errorID: "RequestValidationError", paths: []string{"$.bogusField"}},
		{name: "nested unknown field and type", method: "POST", path: "/client-session", body: map[string]any{"order": map[string]any{"lineItems": []any{map[string]any{"amount": "1", "bogus": true}}}},
			status: 422, errorID: "RequestValidationError", paths: []string{"$.order.lineItems[0].amount", "$.order.lineItems[0].bogus", "$.currencyCode"}},
		{name: "path id and body rules together", method: "POST", path: "/payment-attempts/not-a-uuid/approve", body: map[string]any{"bogusField": 1},
			status: 422, errorID: "RequestValidationError", paths: []string{"$.id", "$.bogusField"}},
		{name: "trailing slash", method: "POST", path: "/client-session/", body: map[string]any{"orderId": "o-1"}, status: 200},
		{name: "trailing slash with query", method: "GET", path: "/payment-instruments/?customer_id=c", status: 200},
		{name: "healthz without key", method: "GET", path: "/healthz", headers: []string{"X-API-KEY:", "X-API-VERSION:"}, status: 200},
		{name: "readyz without key", method: "GET", path: "/readyz", headers: []string{"X-API-KEY:", "X-API-VERSION:"}, status: 200},
		{name: "client side needs no key or version", method: "POST", path: "/client/payment-instruments", body: map[string]any{}, headers: []string{"X-API-KEY:", "X-API-VERSION:"}, status: 400, errorID: "ClientSessionValidationError"},
		{name: "control plane needs a key", method: "GET", path: "/_sandbox/clock", headers: []string{"X-API-KEY:"}, status: 401, errorID: "Unauthorized"},
		{name: "control plane needs no version", method: "GET", path: "/_sandbox/clock", headers: []string{"X-API-VERSION:"}, status: 200},
		{name: "control plane needs no scope", method: "GET", path: "/_sandbox/clock", headers: []string{"X-API-KEY: " + narrow}, status: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req(tc.method, tc.path, tc.body, tc.headers...)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			rid := r.Header.Get("X-Request-Id")
			assert.NotEmpty(t, rid, "X-Request-Id")
			if tc.errorID == "" {
				return
			}
			assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
			assert.Equal(t, tc.errorID, r.ErrorID(), "%s", r.Body)
			assert.NotEmpty(t, r.Err()["description"])
			assert.Equal(t, rid, r.Err()["diagnosticsId"], "diagnosticsId is the request id")
			if tc.status == 405 {
				allow := r.Header.Get("Allow")
				for _, m := range []string{"GET", "POST", "PATCH"} {
					assert.Contains(t, allow, m)
				}
			}
			if tc.paths != nil {
				assert.ElementsMatch(t, tc.paths, paths(fieldErrors(t, r, "")))
			}
		})
	}
}

func TestValidationErrorEnvelope(t *testing.T) {
	a := newTestApp(t)
	r := a.req("POST", "/client-session", map[string]any{"customerId": 7, "bogusField": true})
	errs := fieldErrors(t, r, "ClientSessionAPIRequest")
	assert.Equal(t, map[string]string{
		"$.customerId": "Value must be a valid string",
		"$.bogusField": "Extra fields not permitted",
	}, errs)
	apitest.AssertGolden(t, "error_validation", r.Body)

	r = a.req("POST", "/client-session", nil, "X-API-KEY: nope")
	apitest.AssertGolden(t, "error_unauthorized", r.Body)
}

func TestRequestIDOnEveryResponse(t *testing.T) {
	a := newTestApp(t)
	seen := map[string]bool{}
	for _, r := range []*resp{
		a.req("GET", "/healthz", nil),
		a.req("POST", "/client-session", map[string]any{}),
		a.req("GET", "/nope", nil),
		a.req("OPTIONS", "/client/payment-instruments", nil),
		a.req("GET", "/_sandbox/clock", nil),
	} {
		rid := r.Header.Get("X-Request-Id")
		require.NotEmpty(t, rid, "%d %s", r.Status, r.Body)
		assert.False(t, seen[rid], "request ids are unique")
		seen[rid] = true
	}
}

func TestCORSOnClientRoutes(t *testing.T) {
	a := newTestApp(t)
	tok := a.session(map[string]any{"orderId": "o-1"})
	for _, p := range []string{"/client/payment-instruments", "/client/payments", "/client/3ds/challenge", "/client/payments/pay1/resume"} {
		t.Run("preflight "+p, func(t *testing.T) {
			r := a.req("OPTIONS", p, nil, "X-API-KEY:", "X-API-VERSION:", "Origin: https://shop.example",
				"Access-Control-Request-Method: POST", "Access-Control-Request-Headers: content-type, x-client-token")
			require.Less(t, r.Status, 300, "%s", r.Body)
			assert.Equal(t, "*", r.Header.Get("Access-Control-Allow-Origin"))
			assert.Contains(t, r.Header.Get("Access-Control-Allow-Methods"), "POST")
			assert.Contains(t, strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "x-client-token")
		})
	}
	t.Run("answer", func(t *testing.T) {
		r := a.req("POST", "/client/payment-instruments", map[string]any{"paymentInstrument": map[string]any{
			"number": "4111111111111111", "expirationMonth": "12", "expirationYear": "2030",
		}}, "X-API-KEY:", "X-API-VERSION:", "Origin: https://shop.example", "X-Client-Token: "+tok)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, "*", r.Header.Get("Access-Control-Allow-Origin"))
	})
	t.Run("error answer", func(t *testing.T) {
		r := a.req("POST", "/client/payment-instruments", map[string]any{}, "X-API-KEY:", "X-API-VERSION:", "Origin: https://shop.example")
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "*", r.Header.Get("Access-Control-Allow-Origin"))
	})
	t.Run("merchant API sends none", func(t *testing.T) {
		r := a.req("POST", "/client-session", map[string]any{}, "Origin: https://shop.example")
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"))
	})
}

func TestHealthAndReadiness(t *testing.T) {
	a := newTestApp(t)
	h := a.must(200, "GET", "/healthz", nil, "X-API-KEY:", "X-API-VERSION:")
	assert.Equal(t, "ok", h.Str("status"))
	r := a.must(200, "GET", "/readyz", nil, "X-API-KEY:", "X-API-VERSION:")
	assert.Equal(t, "ready", r.Str("status"))

	require.NoError(t, a.DB.Close()) // the store goes away under the running server
	r = a.req("GET", "/readyz", nil)
	assert.Equal(t, 503, r.Status, "%s", r.Body)
	a.must(200, "GET", "/healthz", nil) // the process is still up
}

// slowProcessor holds authorization until release is closed (10 s at
// most), like a `latency` rule: the way to make a merchant request outlive
// request_timeout. Only payments (and verifications) of customer
// "cust-slow" are slow.
type slowProcessor struct {
	simulator.Processor
	release chan struct{}
	once    sync.Once
	done    chan struct{}
}

func (p *slowProcessor) Authorize(ctx context.Context, t *simulator.Tenant, pay *simulator.Payment) simulator.AuthorizeDecision {
	if pay.CustomerID != "cust-slow" {
		return p.Processor.Authorize(ctx, t, pay)
	}
	select {
	case <-p.release:
	case <-time.After(10 * time.Second):
	}
	d := p.Processor.Authorize(ctx, t, pay)
	p.once.Do(func() { close(p.done) })
	return d
}

// TestRequestTimeout: a request still running after request_timeout answers
// 504 RequestTimeout in the error envelope; the work it started goes on.
func TestRequestTimeout(t *testing.T) {
	cfg := testConfig()
	// Generous enough for the ordinary requests of a loaded -race run.
	cfg.RequestTimeout = 120 * time.Millisecond
	slow := &slowProcessor{release: make(chan struct{}), done: make(chan struct{})}
	a := startAppWith(t, cfg, appHooks{processor: func(p simulator.Processor) simulator.Processor {
		slow.Processor = p
		return slow
	}})
	tok := a.session(map[string]any{"orderId": "o-1"})
	pt := a.tokenize(tok, "4111111111111111").Str("token")

	// The work is held until the answer is in: a 504 did not wait for it.
	r := a.req("POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-slow", "verify": true})
	close(slow.release)
	require.Equal(t, 504, r.Status, "%s", r.Body)
	assert.Equal(t, "RequestTimeout", r.ErrorID())
	assert.NotEmpty(t, r.Err()["description"])
	assert.Equal(t, r.Header.Get("X-Request-Id"), r.Err()["diagnosticsId"])

	select { // the late work completes...
	case <-slow.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the timed-out work never finished")
	}
	require.Eventually(t, func() bool { // ...and its effect is kept
		l := a.req("GET", "/payment-instruments?customer_id=cust-slow", nil)
		d, _ := l.JSON["data"].([]any)
		return l.Status == 200 && len(d) == 1
	}, 5*time.Second, 10*time.Millisecond)

	t.Run("control plane is not cut", func(t *testing.T) {
		pt := a.tokenize(a.session(map[string]any{"orderId": "o-2", "currencyCode": "EUR", "amount": 1000}), "4111111111111111").Str("token")
		// 200, or 504 on a very loaded machine: either way the payment
		// (the first, pay00001) goes on to AUTHORIZED.
		a.req("POST", "/payments", map[string]any{"paymentMethodToken": pt})
		a.must(200, "GET", "/_sandbox/wait?paymentId=pay00001&status=AUTHORIZED&timeout=5s", nil)
		start := time.Now()
		r := a.req("GET", "/_sandbox/wait?paymentId=pay00001&status=SETTLED&timeout=150ms", nil)
		require.Equal(t, 408, r.Status, "%s", r.Body)
		assert.Equal(t, "WaitTimeout", r.ErrorID(), "the wait's own timeout, not request_timeout's 504")
		assert.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
	})
}
