package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator/httpapi"
)

// TestBrowserWritesAreRefused: a write under /_sandbox that a web page on
// another site could send (a foreign Origin or Referer, a text/plain or
// form-encoded body) answers 403 Forbidden before anything runs; reads,
// requests without Origin and with a JSON or YAML body or none, and the
// merchant and client APIs pass.
func TestBrowserWritesAreRefused(t *testing.T) {
	a := newTestAPI(t)
	self := a.URL() // http://127.0.0.1:PORT: the request's own origin
	const rules = "rules:\n  - name: decline-it\n    when: { amount: 1313 }\n    authorize: { status: DECLINED }\n"
	tests := []struct {
		name    string
		method  string
		path    string
		body    any
		headers []string
		status  int
		says    string // in the description
	}{
		{name: "text/plain from another site creates no tenant", method: "POST", path: "/_sandbox/tenants",
			body: `{"webhookUrl": "http://evil.example/hook"}`, headers: []string{"Content-Type: text/plain", "Origin: http://evil.example", "X-API-KEY:"},
			status: 403, says: "another origin"},
		{name: "text/plain without Origin", method: "POST", path: "/_sandbox/tenants", body: `{}`,
			headers: []string{"Content-Type: text/plain;charset=UTF-8", "X-API-KEY:"}, status: 403, says: "no text/plain body"},
		{name: "a form", method: "POST", path: "/_sandbox/tenants", body: "ttl=1h",
			headers: []string{"Content-Type: application/x-www-form-urlencoded", "X-API-KEY:"}, status: 403, says: "application/x-www-form-urlencoded"},
		{name: "multipart, any case", method: "POST", path: "/_sandbox/tenants", body: "--x--",
			headers: []string{"Content-Type: Multipart/Form-Data; boundary=x", "X-API-KEY:"}, status: 403, says: "multipart/form-data"},
		{name: "JSON from another origin", method: "POST", path: "/_sandbox/tenants", body: map[string]any{},
			headers: []string{"Origin: http://evil.example", "X-API-KEY:"}, status: 403, says: "another origin"},
		{name: "an opaque origin", method: "POST", path: "/_sandbox/tenants", body: map[string]any{},
			headers: []string{"Origin: null", "X-API-KEY:"}, status: 403, says: "another origin"},
		{name: "a foreign Referer without Origin", method: "POST", path: "/_sandbox/tenants", body: map[string]any{},
			headers: []string{"Referer: http://evil.example/page", "X-API-KEY:"}, status: 403, says: "another origin"},
		{name: "with a key too", method: "PUT", path: "/_sandbox/webhooks/endpoint", body: `{"url": "http://evil.example/hook"}`,
			headers: []string{"Content-Type: text/plain"}, status: 403, says: "text/plain"},
		{name: "a delete from another origin", method: "DELETE", path: "/_sandbox/tenant",
			headers: []string{"Origin: http://evil.example"}, status: 403, says: "another origin"},
		{name: "JSON from the same origin", method: "POST", path: "/_sandbox/tenants", body: map[string]any{},
			headers: []string{"Origin: " + self, "X-API-KEY:"}, status: 201},
		{name: "JSON without Origin (curl, the CLI)", method: "POST", path: "/_sandbox/tenants", body: map[string]any{},
			headers: []string{"X-API-KEY:"}, status: 201},
		{name: "no body", method: "POST", path: "/_sandbox/tenants", headers: []string{"X-API-KEY:"}, status: 201},
		{name: "YAML rules", method: "PUT", path: "/_sandbox/scenarios", body: rules,
			headers: []string{"Content-Type: application/yaml"}, status: 200},
		{name: "a read from another origin", method: "GET", path: "/_sandbox/clock",
			headers: []string{"Origin: http://evil.example"}, status: 200},
		{name: "the merchant API is not the control plane", method: "POST", path: "/client-session",
			body: map[string]any{"orderId": "o-1", "currencyCode": "EUR", "amount": 100}, headers: []string{"Origin: http://evil.example"}, status: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, err := a.Svc.Tenants()
			require.NoError(t, err)
			r := a.req(tc.method, tc.path, tc.body, tc.headers...)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			if tc.status != 403 {
				return
			}
			assert.Equal(t, "Forbidden", r.ErrorID())
			assert.Contains(t, r.Err()["description"], tc.says)
			assert.NotEmpty(t, r.Err()["recoverySuggestion"])
			after, err := a.Svc.Tenants()
			require.NoError(t, err)
			assert.Len(t, after, len(before), "a refused write changes nothing")
		})
	}
	assert.Empty(t, a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil).Str("url"), "the refused PUT set no endpoint")
}

// TestLoopbackHosts: a loopback-bound server answers localhost, the
// loopback IPs (any port, any case, a trailing dot) and the names given;
// nothing else. A nil set answers any Host.
func TestLoopbackHosts(t *testing.T) {
	h := httpapi.LoopbackHosts([]string{"Sandbox.Example.com", "[fd00::7]"})
	for host, want := range map[string]bool{
		"localhost": true, "localhost:8080": true, "LOCALHOST.:8080": true,
		"127.0.0.1": true, "127.0.0.1:8080": true, "127.0.0.2:1": true, "[::1]": true, "[::1]:8080": true,
		"sandbox.example.com": true, "sandbox.example.com:443": true, "[fd00::7]:8080": true,
		"evil.example": false, "evil.example:8080": false, "localhost.evil.example": false, "sandbox.example.com.evil.example": false,
		"192.168.1.20:8080": false, "[::]:8080": false, "0.0.0.0": false, "": false,
	} {
		assert.Equal(t, want, h.Allows(host), "Host %q", host)
	}
	var any *httpapi.Hosts
	assert.True(t, any.Allows("evil.example"))
}

// TestGuardRefusesForeignHosts: with Options.Hosts, Guard answers another
// Host 403 Forbidden in the error envelope, naming --allowed-host, before
// anything is served (the dashboard beside the API included).
func TestGuardRefusesForeignHosts(t *testing.T) {
	a := newTestAPI(t)
	served := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served++; w.WriteHeader(http.StatusNoContent) })
	g := httpapi.New(a.Svc, httpapi.Options{Hosts: httpapi.LoopbackHosts(nil)}).Guard(next)
	for host, status := range map[string]int{"localhost:8080": 204, "127.0.0.1:8080": 204, "evil.example:8080": 403} {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/_sandbox/ui/login", nil)
		r.Host = host
		g.ServeHTTP(rec, r)
		require.Equal(t, status, rec.Code, "Host %s: %s", host, rec.Body)
		if status == 403 {
			body := rec.Body.String()
			assert.Contains(t, body, `"errorId":"Forbidden"`)
			assert.Contains(t, body, "--allowed-host evil.example")
			assert.NotEmpty(t, rec.Header().Get("X-Request-Id"))
		}
	}
	assert.Equal(t, 2, served)
}
