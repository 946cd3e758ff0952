package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// latestEntry is the newest journal entry of method and path.
func latestEntry(t *testing.T, a *testApp, method, path string) map[string]any {
	t.Helper()
	for _, e := range journal(a, "") {
		if e["method"] == method && e["path"] == path {
			return e
		}
	}
	require.FailNow(t, "no journal entry", "%s %s", method, path)
	return nil
}

// TestJournalRedactionByValue: card numbers are masked wherever they are
// (refused requests included), security codes under any security-code key,
// the challenge token of a 3DS answer, a number cut by the 4 KiB cap; the
// API's answers keep everything.
func TestJournalRedactionByValue(t *testing.T) {
	tests := []struct {
		name    string
		run     func(a *testApp) (req, resp string, journalEntry map[string]any)
		leaks   []string // must not be in the entry's bodies
		present []string // must be in the entry's bodies
	}{
		{"a refused payment with a card number and a cvv", func(a *testApp) (string, string, map[string]any) {
			r := a.req("POST", "/payments", map[string]any{"paymentMethodToken": "tok",
				"paymentMethod": map[string]any{"number": numOK, "cvv": "737"}})
			require.Equal(t, 422, r.Status, "%s", r.Body)
			return "", string(r.Body), latestEntry(t, a, "POST", "/payments")
		}, []string{numOK, "737"}, []string{"411111******1111", `"cvv":"[REDACTED]"`}},
		{"security codes under other keys, as numbers too", func(a *testApp) (string, string, map[string]any) {
			r := a.req("POST", "/client-session", `{"orderId":"o","metadata":{"CVC":4321,"card_code":"9876","x":{"securityCode":"5555"}}}`)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			return "", string(r.Body), latestEntry(t, a, "POST", "/client-session")
		}, []string{"4321", "9876", "5555"}, []string{`"CVC":"[REDACTED]"`, `"securityCode":"[REDACTED]"`}},
		{"a card number in metadata, as a JSON number, in the answer", func(a *testApp) (string, string, map[string]any) {
			r := a.req("POST", "/client-session", `{"orderId":"o","metadata":{"ref":5555555555554444}}`)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.Contains(t, string(r.Body), "5555555555554444", "the API answer is never altered")
			return "", string(r.Body), latestEntry(t, a, "POST", "/client-session")
		}, []string{"5555555555554444"}, []string{`"ref":"555555******4444"`}},
		{"the challenge token of a 3DS answer", func(a *testApp) (string, string, map[string]any) {
			r := a.pay(1000, numChallenge)
			url, _ := dig(r.JSON, "requiredAction", "challengeUrl").(string)
			token, _ := dig(r.JSON, "requiredAction", "clientToken").(string)
			require.NotEmpty(t, token)
			assert.Contains(t, url, "token="+token, "the answer keeps the token: the shopper needs it")
			return token, string(r.Body), latestEntry(t, a, "POST", "/payments")
		}, nil, []string{"/_sandbox/ui/checkout/challenge?token=[REDACTED]"}},
		{"a card number in the path, and in the hint quoting it", func(a *testApp) (string, string, map[string]any) {
			for range 5 {
				a.req("GET", "/payments/"+numOK, nil)
			}
			e := latestEntry(t, a, "GET", "/payments/411111******1111")
			require.Contains(t, hintKinds(e), "tight-polling")
			return "", "", e
		}, []string{numOK}, []string{"Payment 411111******1111 was read 5 times"}},
		{"a card number crossing the 4 KiB cut", func(a *testApp) (string, string, map[string]any) {
			head := `{"paymentMethodToken":"tok","metadata":{"pad":"`
			body := head + strings.Repeat("x", 4084-len(head)) + numOK + `"}}`
			require.Equal(t, 4084, strings.Index(body, numOK))
			a.req("POST", "/payments", body)
			e := latestEntry(t, a, "POST", "/payments")
			assert.Len(t, e["requestBody"], 4096)
			assert.True(t, strings.HasSuffix(e["requestBody"].(string), "411111******"), "%s", e["requestBody"].(string)[4080:])
			return "", "", e
		}, []string{"41111111"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestApp(t)
			secret, _, e := tc.run(a)
			raw, err := json.Marshal(e["hints"])
			require.NoError(t, err)
			bodies := e["requestBody"].(string) + "\n" + e["responseBody"].(string) + "\n" + e["path"].(string) + "\n" + string(raw)
			if secret != "" {
				assert.NotContains(t, bodies, secret)
			}
			for _, s := range tc.leaks {
				if len(s) < 8 {
					// A short code is looked for as a whole word: a random
					// diagnosticsId or a clock reading may hold its digits.
					assert.NotRegexp(t, `\b`+regexp.QuoteMeta(s)+`\b`, bodies)
					continue
				}
				assert.NotContains(t, bodies, s)
			}
			for _, s := range tc.present {
				assert.Contains(t, bodies, s)
			}
		})
	}
}

// TestLogRedaction: the request log line of a path holding a card number
// shows it masked, in both formats.
func TestLogRedaction(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var out apitest.SyncBuffer
			cfg := testConfig()
			cfg.LogLevel, cfg.LogFormat = "info", format
			app, err := Open(cfg, AppOptions{LogOut: &out})
			require.NoError(t, err)
			require.NoError(t, app.Start())
			client := &http.Client{Transport: &http.Transport{}}
			a := &testApp{App: app, t: t, Key: "sandbox-api-key", http: client}
			a.req("GET", "/payments/"+numOK, nil)
			client.CloseIdleConnections()
			require.NoError(t, app.Close())
			assert.Contains(t, out.String(), "/payments/411111******1111")
			assert.NotContains(t, out.String(), numOK)
		})
	}
}

// TestCardNumberNeverStored: after tokenising, vaulting and paying, neither
// the store file nor the log holds the card number.
func TestCardNumberNeverStored(t *testing.T) {
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "pan.db")
	cfg.LogLevel = "debug"
	cfg.Fsync = "always"
	logs := &apitest.SyncBuffer{}
	a := startAppWith(t, cfg, appHooks{logOut: logs})
	pans := []string{"4242424242424242", "4000056655665556", "378282246310005"}
	for i, pan := range pans {
		tok := a.session(map[string]any{"orderId": "o-1", "currencyCode": "EUR", "amount": 1000 + i, "customerId": "c-1"})
		pt := a.tokenize(tok, pan).Str("token")
		vt := a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "c-1", "verify": true}).Str("token")
		a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": vt, "orderId": "o-v", "currencyCode": "EUR", "amount": 500, "customerId": "c-1"})
		// A refused request carrying the number is not logged with it either.
		a.req("POST", "/client/payment-instruments", cardWith(pan, map[string]any{"expirationMonth": "13"}), "X-Client-Token: "+tok)
	}
	require.NoError(t, a.Close())
	raw, err := os.ReadFile(cfg.DB) // the catalog, then every tenant's file
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(store.TenantsDir(cfg.DB), "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		raw = append(raw, b...)
	}
	assert.Contains(t, string(raw), "tok_test_", "the store holds the tokens")
	for _, pan := range pans {
		assert.NotContains(t, string(raw), pan, "card number in the store")
		assert.NotContains(t, logs.String(), pan, "card number in the log")
	}
	assert.NotEmpty(t, logs.String(), "requests were logged")
}
