package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/dashboard"
	"github.com/paysandbox/paysandbox/simulator"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestEveryAnswerHasARequestID: every answer of the real server carries
// X-Request-Id: the API's (health, errors of routing, preflights, a 504),
// and the dashboard's pages, redirects, static assets, 404 page and event
// stream. An error envelope's diagnosticsId is the same value, and two
// answers never share one.
func TestEveryAnswerHasARequestID(t *testing.T) {
	cfg := testConfig()
	cfg.RequestTimeout = 300 * time.Millisecond // the held request below answers 504 after it
	a := startApp(t, cfg)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := a.URL()
	tok := a.session(map[string]any{"orderId": "o", "amount": 5040, "currencyCode": "EUR"})
	inst := a.tokenize(tok, "4111111111111111").Str("token")
	seen := map[string]string{}

	for _, tc := range []struct {
		name, method, path string
		headers            map[string]string
		body               string
		status             int
	}{
		{name: "healthz", method: "GET", path: "/healthz", status: 200},
		{name: "readyz", method: "GET", path: "/readyz", status: 200},
		{name: "no such route", method: "GET", path: "/nope", status: 404},
		{name: "method not allowed", method: "DELETE", path: "/healthz", status: 405},
		{name: "missing key", method: "GET", path: "/payments", status: 401},
		{name: "CORS preflight", method: "OPTIONS", path: "/client/payments", headers: map[string]string{"Origin": "http://shop.test", "Access-Control-Request-Method": "POST"}, status: 204},
		{name: "held by a timeout rule: 504", method: "POST", path: "/payments", body: `{"paymentMethodToken":"` + inst + `"}`,
			headers: map[string]string{"X-API-KEY": simulator.DefaultAPIKey, "X-API-VERSION": "2.4", "Content-Type": "application/json"}, status: 504},
		{name: "root redirects browsers", method: "GET", path: "/", headers: map[string]string{"Accept": "text/html"}, status: 302},
		{name: "root for API clients", method: "GET", path: "/", status: 404},
		{name: "dashboard without slash", method: "GET", path: dashboard.Prefix, status: 302},
		{name: "dashboard home signed out", method: "GET", path: dashboard.Prefix + "/", status: 302},
		{name: "sign-in page", method: "GET", path: dashboard.Prefix + "/login", status: 200},
		{name: "static asset", method: "GET", path: dashboard.Prefix + "/static/app.css", status: 200},
		{name: "dashboard 404 page", method: "GET", path: dashboard.Prefix + "/nope", status: 404},
		{name: "sign-in refused", method: "POST", path: dashboard.Prefix + "/login", body: url.Values{"apiKey": {"nope"}}.Encode(),
			headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": base}, status: 401},
		{name: "sign-in", method: "POST", path: dashboard.Prefix + "/login", body: url.Values{"apiKey": {simulator.DefaultAPIKey}}.Encode(),
			headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": base}, status: 303},
		{name: "signed-in page", method: "GET", path: dashboard.Prefix + "/payments", status: 200},
		{name: "event stream", method: "GET", path: dashboard.Prefix + "/events?topic=payments", status: 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, tc.method, base+tc.path, strings.NewReader(tc.body))
			require.NoError(t, err)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			res, err := client.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			var body []byte
			if res.Header.Get("Content-Type") != "text/event-stream" { // a stream stays open: its headers are enough
				body, err = io.ReadAll(res.Body)
				require.NoError(t, err)
			}
			assert.Equal(t, tc.status, res.StatusCode, "%s", body)
			rid := res.Header.Get("X-Request-Id")
			require.Regexp(t, uuidRE, rid)
			assert.Empty(t, seen[rid], "the id of %q again", seen[rid])
			seen[rid] = tc.name
			if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") && res.StatusCode >= 400 {
				var env struct {
					Error struct{ DiagnosticsID string } `json:"error"`
				}
				require.NoError(t, json.Unmarshal(body, &env), "%s", body)
				assert.Equal(t, rid, env.Error.DiagnosticsID, "the diagnosticsId is the request id")
			}
		})
	}
}
