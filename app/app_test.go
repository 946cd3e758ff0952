package app

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
)

// The tests here reach the composition root's insides (its tracing, its
// stop's deadline, its dashboard sources); the end-to-end tests of serve,
// its flags and its output are cmd/paysandbox's.

// testConfig is a server in memory on a free loopback port.
func testConfig() Config {
	return Config{
		Addr: "127.0.0.1:0", DB: ":memory:", RequestTimeout: 5 * time.Second, AttemptTTL: 15 * time.Minute,
		Fsync: "never", LogFormat: "text", LogLevel: "error",
		ReadTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxConnections: 4096, ShutdownTimeout: 5 * time.Second,
	}
}

// testApp is a started App and a client of its API with the default key.
type testApp struct {
	*App
	api apitest.Client
}

// startApp opens and starts an app with cfg, a manual clock and sequential
// ids, and closes it with the test.
func startApp(t *testing.T, cfg Config) *testApp {
	t.Helper()
	a, err := Open(cfg, Options{LogOut: io.Discard, Clock: clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)), IDs: &idgen.Seq{}})
	require.NoError(t, err)
	require.NoError(t, a.Start())
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}}
	t.Cleanup(func() {
		client.CloseIdleConnections()
		_ = a.Close()
	})
	return &testApp{App: a, api: apitest.Client{T: t, HTTP: client, URL: a.URL(), Key: simulator.DefaultAPIKey}}
}

// must sends a request and requires the status.
func (a *testApp) must(status int, method, path string, body any, headers ...string) *apitest.Resp {
	a.api.T.Helper()
	r := a.api.Req(method, path, body, headers...)
	require.Equal(a.api.T, status, r.Status, "%s %s: %s", method, path, r.Body)
	return r
}

// instrument is a payment method token of a test card in a new session.
func (a *testApp) instrument(session map[string]any, number string) string {
	a.api.T.Helper()
	tok := a.must(200, "POST", "/client-session", session).Str("clientToken")
	card := map[string]any{"paymentInstrument": map[string]any{"number": number, "expirationMonth": "12", "expirationYear": "2030", "cvv": "123", "cardholderName": "Test"}}
	return a.must(200, "POST", "/client/payment-instruments", card, "X-Client-Token: "+tok).Str("token")
}
