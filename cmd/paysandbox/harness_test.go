package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
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

// testEpoch is the manual clock's start; golden files depend on it.
var testEpoch = time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)

// testApp is the real application (real HTTP server on a free loopback port,
// real buntdb) with a manual clock and deterministic ids.
type testApp struct {
	*App
	t     testing.TB
	Clock *clock.Manual
	IDs   *idgen.Seq
	Key   string // API key used by default (the default tenant's)
	http  *http.Client
}

// testConfig is the configuration tests start from: in-memory store, free port.
func testConfig() Config {
	return Config{
		Addr: "127.0.0.1:0", DB: ":memory:", RequestTimeout: 5 * time.Second, AttemptTTL: 15 * time.Minute,
		Fsync: "never", LogFormat: "text", LogLevel: "error",
		ReadTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxConnections: 4096, ShutdownTimeout: 5 * time.Second,
	}
}

// startApp starts an app with cfg (see testConfig) and stops it with the test.
func startApp(t testing.TB, cfg Config) *testApp {
	t.Helper()
	clk := clock.NewManual(testEpoch)
	ids := &idgen.Seq{}
	app, err := Open(cfg, AppOptions{LogOut: io.Discard, Clock: clk, IDs: ids})
	require.NoError(t, err)
	require.NoError(t, app.Start())
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}}
	t.Cleanup(func() {
		client.CloseIdleConnections() // else Shutdown waits 5s for never-used connections
		_ = app.Close()
	})
	return &testApp{App: app, t: t, Clock: clk, IDs: ids, Key: simulator.DefaultAPIKey, http: client}
}

// newTestApp starts an app with the test configuration.
func newTestApp(t testing.TB) *testApp { t.Helper(); return startApp(t, testConfig()) }

// resp is an answer with its decoded JSON body.
type resp = apitest.Resp

// req sends a request (apitest.Client.Req) with the test's key.
func (a *testApp) req(method, path string, body any, headers ...string) *resp {
	a.t.Helper()
	return apitest.Client{T: a.t, HTTP: a.http, URL: a.URL(), Key: a.Key}.Req(method, path, body, headers...)
}

// must sends a request and requires the status.
func (a *testApp) must(status int, method, path string, body any, headers ...string) *resp {
	a.t.Helper()
	r := a.req(method, path, body, headers...)
	require.Equal(a.t, status, r.Status, "%s %s: %s", method, path, r.Body)
	return r
}

// session creates a client session and returns its client token.
func (a *testApp) session(body map[string]any) string {
	a.t.Helper()
	return a.must(200, "POST", "/client-session", body).Str("clientToken")
}

// tokenize tokenises a card in the session and returns the answer.
func (a *testApp) tokenize(clientToken, number string) *resp {
	a.t.Helper()
	return a.must(200, "POST", "/client/payment-instruments", card(number), "X-Client-Token: "+clientToken)
}

// pay makes a session (plainSession), tokenises number and pays with it.
func (a *testApp) pay(amount int64, number string) *resp {
	a.t.Helper()
	pt := a.tokenize(a.session(plainSession(amount)), number).Str("token")
	return a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt})
}

// Test cards of fixtures/cards.json.
const (
	numOK        = "4111111111111111"
	numDecline   = "4000000000000002"
	numChallenge = "4916994064252017"
	visa         = numOK
)

// asNewTenant is a copy of a that speaks as a fresh tenant (its own data,
// clock and rules).
func (a *testApp) asNewTenant() *testApp {
	a.t.Helper()
	r := a.must(201, "POST", "/_sandbox/tenants", nil, "X-API-KEY:")
	c := *a
	c.Key = r.Str("apiKey")
	return &c
}

// putRules replaces the tenant's rules with a YAML document.
func (a *testApp) putRules(doc string) *resp {
	a.t.Helper()
	return a.req("PUT", "/_sandbox/scenarios", doc, "Content-Type: application/yaml")
}

// payFull pays amount with number in a fresh session; extra fields go on
// POST /payments. It answers whatever the API answers.
func (a *testApp) payFull(amount int64, number string, extra map[string]any, headers ...string) *resp {
	a.t.Helper()
	body := map[string]any{"paymentMethodToken": a.tokenize(a.session(plainSession(amount)), number).Str("token")}
	for k, v := range extra {
		body[k] = v
	}
	return a.req("POST", "/payments", body, headers...)
}

// payment reads a payment with its events.
func (a *testApp) payment(id string) *resp {
	a.t.Helper()
	return a.must(200, "GET", "/payments/"+id+"?expand=transactions.events", nil)
}

func sub(m map[string]any, key string) map[string]any { v, _ := m[key].(map[string]any); return v }

func txns(p map[string]any) []map[string]any {
	var out []map[string]any
	for _, t := range p["transactions"].([]any) {
		out = append(out, t.(map[string]any))
	}
	return out
}

// card is a tokenisation request body for number.
func card(number string) map[string]any {
	return map[string]any{"paymentInstrument": map[string]any{
		"number": number, "cvv": "123", "expirationMonth": "12", "expirationYear": "2030", "cardholderName": "Jane Doe",
	}}
}

// cardWith is card(number) with some fields of paymentInstrument replaced (nil removes).
func cardWith(number string, fields map[string]any) map[string]any {
	b := card(number)
	pi := b["paymentInstrument"].(map[string]any)
	for k, v := range fields {
		if v == nil {
			delete(pi, k)
		} else {
			pi[k] = v
		}
	}
	return b
}

// plainSession is the content pay uses: amount EUR, order-1, cust-1.
func plainSession(amount int64) map[string]any {
	return map[string]any{"orderId": "order-1", "currencyCode": "EUR", "amount": amount, "customerId": "cust-1"}
}

// tokenIn makes a session from body and tokenises number in it.
func tokenIn(a *testApp, body map[string]any, number string) string {
	a.t.Helper()
	return a.tokenize(a.session(body), number).Str("token")
}

// tenantApp creates a tenant (POST /_sandbox/tenants with body) and returns
// the app seen with its key.
func tenantApp(a *testApp, body map[string]any) *testApp {
	a.t.Helper()
	return a.as(a.newTenant(body))
}

// manualSession makes a MANUAL session: amount 1000 EUR, order-1, cust-1
// unless fields say otherwise (a nil value removes a field).
func manualSession(a *testApp, fields map[string]any) string {
	a.t.Helper()
	body := plainSession(1000)
	body["approvalMode"] = "MANUAL"
	for k, v := range fields {
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	return a.session(body)
}

// newAttempt tokenises number in the MANUAL session ct: the attempt and its token.
func newAttempt(a *testApp, ct, number string) (string, string) {
	a.t.Helper()
	r := a.tokenize(ct, number)
	id := r.Str("paymentAttemptId")
	require.Len(a.t, id, 36, "a MANUAL session's tokenisation makes an attempt: %s", r.Body)
	return id, r.Str("token")
}

// freshAttempt is newAttempt in a new MANUAL session.
func freshAttempt(a *testApp, number string) string {
	a.t.Helper()
	id, _ := newAttempt(a, manualSession(a, nil), number)
	return id
}

func attApprove(a *testApp, id string) *resp {
	return a.req("POST", "/payment-attempts/"+id+"/approve", nil)
}
func attGet(a *testApp, id string) *resp {
	return a.req("GET", "/_sandbox/payment-attempts/"+id, nil, "X-API-VERSION:")
}

// runDueNow runs every job due now: when it returns, the background
// authorization of an approved attempt has run (the scheduler and a clock
// advance serialise per tenant).
func runDueNow(a *testApp) {
	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1ns"}) // 0 is refused; 1ns stays within the microsecond
}

// startOn starts the app with its scheduler on cfg and clk (random ids, so a
// reopened store gets no colliding ids) and returns its stop function.
func startOn(t testing.TB, cfg Config, clk *clock.Manual) (*testApp, func()) {
	t.Helper()
	app, err := Open(cfg, AppOptions{LogOut: io.Discard, Clock: clk})
	require.NoError(t, err)
	require.NoError(t, app.Start())
	var once sync.Once
	stop := func() { once.Do(func() { _ = app.Close() }) }
	t.Cleanup(stop)
	return &testApp{App: app, t: t, Clock: clk, Key: simulator.DefaultAPIKey, http: &http.Client{Timeout: 30 * time.Second}}, stop
}

// dig walks nested objects and arrays ("transactions", 0, "type").
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// violations returns the sorted paths of a 422 RequestValidationError of model.
func violations(t testing.TB, r *resp, model string) []string {
	t.Helper()
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.Equal(t, "RequestValidationError", r.ErrorID(), "%s", r.Body)
	ves, _ := r.Err()["validationErrors"].([]any)
	require.Len(t, ves, 1, "%s", r.Body)
	if model != "" {
		assert.Equal(t, model, dig(ves[0], "model"), "%s", r.Body)
	}
	var out []string
	for _, e := range dig(ves[0], "errors").([]any) {
		out = append(out, dig(e, "path").(string))
	}
	sort.Strings(out)
	return out
}

// cliOnPath is a directory whose `paysandbox` is this test binary, which
// runs main when cliOnPathEnv is in its environment (TestMain): shell
// blocks the tests run (doc walkthroughs, --help examples) call the CLI as
// users do, without a build.
func cliOnPath(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.Symlink(self, filepath.Join(dir, "paysandbox")))
	return dir
}

// cliOnPathEnv is what the environment of a shell using cliOnPath needs.
var cliOnPathEnv = benchChildMain + "=1"
