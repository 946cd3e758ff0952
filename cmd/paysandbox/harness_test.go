package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
)

// update rewrites golden files: go test ./cmd/paysandbox -run X -update
var update = flag.Bool("update", false, "rewrite golden files under testdata/")

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
type resp struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// ErrorID is error.errorId of an error body, "" otherwise.
func (r *resp) ErrorID() string {
	if e, ok := r.JSON["error"].(map[string]any); ok {
		s, _ := e["errorId"].(string)
		return s
	}
	return ""
}

// Str reads a top-level string field.
func (r *resp) Str(key string) string { s, _ := r.JSON[key].(string); return s }

// Err reads the error object.
func (r *resp) Err() map[string]any { e, _ := r.JSON["error"].(map[string]any); return e }

// req sends a request. body: nil (no body), string or []byte (raw), else JSON.
// headers are "Name: value" pairs; the API key and version are sent unless
// overridden (an empty value removes the header).
func (a *testApp) req(method, path string, body any, headers ...string) *resp {
	a.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(a.t, err)
		rd = bytes.NewReader(raw)
	}
	r, err := http.NewRequest(method, a.URL()+path, rd)
	require.NoError(a.t, err)
	r.Header.Set("X-API-KEY", a.Key)
	r.Header.Set("X-API-VERSION", "2.4")
	if rd != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		v = strings.TrimSpace(v)
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	res, err := a.http.Do(r)
	require.NoError(a.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(a.t, err)
	out := &resp{Status: res.StatusCode, Header: res.Header, Body: raw}
	if len(raw) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		require.NoError(a.t, json.Unmarshal(raw, &out.JSON), "body: %s", raw)
	}
	return out
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
	return a.must(200, "POST", "/client/payment-instruments", map[string]any{"paymentInstrument": map[string]any{
		"number": number, "cvv": "123", "expirationMonth": "12", "expirationYear": "2030", "cardholderName": "Jane Doe",
	}}, "X-Client-Token: "+clientToken)
}

// pay makes a session (amount, EUR, order-1, cust-1), tokenises number and pays with it.
func (a *testApp) pay(amount int64, number string) *resp {
	a.t.Helper()
	tok := a.session(map[string]any{"orderId": "order-1", "currencyCode": "EUR", "amount": amount, "customerId": "cust-1"})
	pt := a.tokenize(tok, number).Str("token")
	return a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt})
}

// assertGolden compares body (re-indented, diagnosticsId scrubbed) with
// testdata/<name>.json; -update rewrites it.
func assertGolden(t testing.TB, name string, body []byte) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v))
	scrub(v)
	got, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing: run with -update")
	require.Equal(t, string(want), string(got), "golden %s differs (run with -update if intended)", path)
}

// scrub removes values that differ per request (request ids).
func scrub(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if k == "diagnosticsId" {
				x[k] = "<diagnosticsId>"
				continue
			}
			if s, ok := val.(string); ok && strings.HasPrefix(s, "http://127.0.0.1:") {
				// The server's free port differs per run.
				x[k] = "http://HOST" + s[strings.IndexByte(s[len("http://"):], '/')+len("http://"):]
				continue
			}
			scrub(val)
		}
	case []any:
		for _, val := range x {
			scrub(val)
		}
	}
}
