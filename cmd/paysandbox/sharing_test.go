package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
)

// tableDNS resolves names from a fixed table (no network in tests).
type tableDNS map[string]string

func (d tableDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := d[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, fmt.Errorf("lookup %s: no such host", host)
}

var sharingDNS = tableDNS{"inside.test": "10.1.2.3", "local.test": "127.0.0.1"}

// startOptsApp is startApp with AppOptions (a resolver, a log sink).
func startOptsApp(t *testing.T, cfg Config, opt AppOptions) *testApp {
	t.Helper()
	clk := clock.NewManual(testEpoch)
	ids := &idgen.Seq{}
	opt.Clock, opt.IDs = clk, ids
	if opt.LogOut == nil {
		opt.LogOut = io.Discard
	}
	app, err := Open(cfg, opt)
	require.NoError(t, err)
	require.NoError(t, app.Start())
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	t.Cleanup(func() {
		client.CloseIdleConnections()
		_ = app.Close()
	})
	return &testApp{App: app, t: t, Clock: clk, IDs: ids, Key: simulator.DefaultAPIKey, http: client}
}

// Every way an endpoint is set applies --webhook-allow and refuses
// credentials with a 422 naming the rule.
func TestWebhookAllowWhereEndpointsAreSet(t *testing.T) {
	cfg := testConfig()
	cfg.WebhookAllow = []string{"10.0.0.0/8", "hooks.example"}
	a := startOptsApp(t, cfg, AppOptions{Resolver: sharingDNS})
	open := newTestApp(t) // no --webhook-allow
	const rule = "is refused by --webhook-allow (allowed: 10.0.0.0/8, hooks.example): "
	const creds = "must not carry credentials (user:pass@)"
	tests := []struct {
		name    string
		app     *testApp
		url     string
		refused string // "" admits; else a substring of the description
	}{
		{"a name entry", a, "https://hooks.example/in", ""},
		{"a name resolving inside a CIDR entry", a, "http://inside.test:4000/in", ""},
		{"an address inside a CIDR entry", a, "http://10.0.0.9/in", ""},
		{"a name resolving outside", a, "http://local.test:4000/in", rule + "local.test is not a listed host name and no entry covers its address 127.0.0.1"},
		{"an address outside", a, "http://127.0.0.1:4000/in", rule + "no entry covers the address 127.0.0.1"},
		{"a name that does not resolve", a, "http://nowhere.test/in", rule + "nowhere.test is not a listed host name and could not be resolved"},
		{"credentials, even to a listed name", a, "https://user:pass@hooks.example/in", creds},
		{"credentials without a list", open, "http://user:pass@127.0.0.1:4000/in", creds},
		{"a user alone is a credential", open, "http://user@127.0.0.1:4000/in", creds},
		{"without a list any address", open, "http://127.0.0.1:4000/in", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Run("PUT /_sandbox/webhooks/endpoint", func(t *testing.T) {
				r := tc.app.req("PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": tc.url})
				if tc.refused == "" {
					require.Equal(t, 200, r.Status, "%s", r.Body)
					assert.Equal(t, tc.url, r.Str("url"))
					return
				}
				f := fieldErrors(t, r, "WebhookEndpointRequest")
				assert.Contains(t, f["$.url"], "url "+tc.refused)
				got := tc.app.must(200, "GET", "/_sandbox/webhooks/endpoint", nil)
				assert.NotEqual(t, tc.url, got.Str("url"), "nothing stored")
			})
			t.Run("POST /_sandbox/tenants", func(t *testing.T) {
				r := tc.app.req("POST", "/_sandbox/tenants", map[string]any{"webhookUrl": tc.url})
				if tc.refused == "" {
					require.Equal(t, 201, r.Status, "%s", r.Body)
					return
				}
				f := fieldErrors(t, r, "TenantCreateRequest")
				assert.Contains(t, f["$.webhookUrl"], "webhookUrl "+tc.refused)
			})
		})
	}
}

// The configuration's endpoints are checked at start: a refused one stops
// Open (so serve) with a config error naming the key and the rule.
func TestWebhookAllowConfig(t *testing.T) {
	tenant := TenantConfig{ID: "shop", APIKeys: []APIKeyConfig{{Key: "shop-key"}}}
	tests := []struct {
		name    string
		set     func(c *Config)
		refused []string // nil: Open succeeds
	}{
		{"a refused webhook_url", func(c *Config) { c.WebhookURL = "http://local.test:4000/in" },
			[]string{`config: webhook_url: "http://local.test:4000/in" is refused by --webhook-allow (allowed: 10.0.0.0/8, hooks.example)`, "127.0.0.1"}},
		{"a refused tenant webhook_url", func(c *Config) {
			t := tenant
			t.WebhookURL = "http://127.0.0.1:4000/in"
			c.Tenants = []TenantConfig{t}
		}, []string{`config: tenants[0].webhook_url: "http://127.0.0.1:4000/in" is refused by --webhook-allow`}},
		{"credentials in webhook_url", func(c *Config) { c.WebhookURL = "https://u:p@hooks.example/in" },
			[]string{`webhook_url: "https://u:p@hooks.example/in" must not carry credentials`}},
		{"a bad entry", func(c *Config) { c.WebhookAllow = append(c.WebhookAllow, "*.example") }, []string{`webhook_allow: "*.example" is not a host name`}},
		{"a bad port", func(c *Config) { c.WebhookAllow = append(c.WebhookAllow, "hooks.example:0") },
			[]string{`webhook_allow: "hooks.example:0": the port "0" is not a number from 1 to 65535`}},
		{"a webhook_url on a port no entry lists", func(c *Config) {
			c.WebhookAllow = []string{"10.0.0.0/8:8080", "hooks.example:8443"}
			c.WebhookURL = "https://hooks.example/in"
			t := tenant
			t.WebhookURL = "http://inside.test:9090/in"
			c.Tenants = []TenantConfig{t}
		}, []string{`config: webhook_url: "https://hooks.example/in" is refused by --webhook-allow (allowed: 10.0.0.0/8:8080, hooks.example:8443): hooks.example is not a listed host name on port 443`,
			`tenants[0].webhook_url: "http://inside.test:9090/in" is refused by --webhook-allow (allowed: 10.0.0.0/8:8080, hooks.example:8443): inside.test is not a listed host name and no entry covers its address 10.1.2.3 on port 9090`}},
		{"endpoints on the listed ports", func(c *Config) {
			c.WebhookAllow = []string{"10.0.0.0/8:8080", "hooks.example:8443"}
			c.WebhookURL = "https://hooks.example:8443/in"
			t := tenant
			t.WebhookURL = "http://inside.test:8080/in"
			c.Tenants = []TenantConfig{t}
		}, nil},
		{"admitted endpoints", func(c *Config) {
			c.WebhookURL = "https://hooks.example/in"
			t := tenant
			t.WebhookURL = "http://inside.test/in"
			c.Tenants = []TenantConfig{t}
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.WebhookAllow = []string{"10.0.0.0/8", "hooks.example"}
			tc.set(&cfg)
			app, err := Open(cfg, AppOptions{LogOut: io.Discard, Resolver: sharingDNS})
			if tc.refused == nil {
				require.NoError(t, err)
				require.NoError(t, app.Close())
				return
			}
			require.Error(t, err)
			for _, s := range tc.refused {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

// --trusted-proxy drives challengeUrl, the session cookie's Secure and the
// logged client address from one extractor: X-Forwarded-* count from a
// trusted peer (the test client is 127.0.0.1, trusted by default) and are
// ignored from any other.
func TestTrustedProxy(t *testing.T) {
	tests := []struct {
		name    string
		proxies []string
		trusted bool
	}{
		{"loopback trusted by default", nil, true},
		{"a list without loopback", []string{"10.0.0.0/8"}, false},
		{"none", []string{"none"}, false},
	}
	fwd := []string{"X-Forwarded-Proto: https", "X-Forwarded-Host: pay.example.com", "X-Forwarded-For: 198.51.100.7"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.TrustedProxy, cfg.LogLevel = tc.proxies, "info"
			log := &apitest.SyncBuffer{}
			a := startOptsApp(t, cfg, AppOptions{LogOut: log})
			base, client := a.URL(), "127.0.0.1"
			if tc.trusted {
				base, client = "https://pay.example.com", "198.51.100.7"
			}

			tok := a.session(map[string]any{"orderId": "order-1", "currencyCode": "EUR", "amount": 1000})
			pt := a.tokenize(tok, numChallenge).Str("token")
			r := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt}, fwd...)
			assert.Equal(t, base+"/_sandbox/ui/checkout/challenge?token="+url.QueryEscape(dig(r.JSON, "requiredAction", "clientToken").(string)),
				dig(r.JSON, "requiredAction", "challengeUrl"))

			form := url.Values{"apiKey": {simulator.DefaultAPIKey}}.Encode()
			login := a.req("POST", "/_sandbox/ui/login", form, append([]string{"Content-Type: application/x-www-form-urlencoded"}, fwd...)...)
			require.Equal(t, http.StatusSeeOther, login.Status, "%s", login.Body)
			var session *http.Cookie
			for _, c := range (&http.Response{Header: login.Header}).Cookies() {
				if c.Value != "" {
					session = c
				}
			}
			require.NotNil(t, session, "a session cookie: %v", login.Header)
			assert.Equal(t, tc.trusted, session.Secure, "Secure follows the client's scheme")
			assert.True(t, strings.HasPrefix(login.Header.Get("Location"), "/_sandbox/ui/"), "redirects are paths: they keep the client's scheme and host")

			// The form's origin is compared with the client's host.
			viaProxy := a.req("POST", "/_sandbox/ui/login", form, append([]string{"Content-Type: application/x-www-form-urlencoded", "Origin: https://pay.example.com"}, fwd...)...)
			assert.Equal(t, map[bool]int{true: http.StatusSeeOther, false: http.StatusForbidden}[tc.trusted], viaProxy.Status,
				"Origin https://pay.example.com is this dashboard only when X-Forwarded-Host counts")

			require.NoError(t, a.Close())
			lines := 0
			for _, l := range strings.Split(log.String(), "\n") {
				if strings.Contains(l, "msg=request") && (strings.Contains(l, "path=/payments") || strings.Contains(l, "path=/_sandbox/ui/login")) {
					lines++
					assert.Contains(t, l, "client="+client, "%s", l)
				}
			}
			assert.Equal(t, 3, lines, "one API and two dashboard lines: %s", log.String())
		})
	}
}

// An endpoint stored before --webhook-allow refused it stays stored across
// the restart; every attempt fails without reaching the receiver, and the
// control plane's attempt log says why.
func TestWebhookAllowStoredEndpoint(t *testing.T) {
	var got atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { got.Add(1) }))
	t.Cleanup(rc.Close)
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "paysandbox.db")
	before := startOptsApp(t, cfg, AppOptions{})
	before.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": rc.URL})
	require.NoError(t, before.Close())

	cfg.WebhookAllow = []string{"10.0.0.0/8"}
	a := startOptsApp(t, cfg, AppOptions{})
	assert.Equal(t, rc.URL, a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil).Str("url"), "still stored")
	id := a.pay(1000, numOK).Str("id")
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	evs := a.must(200, "GET", "/_sandbox/webhooks/events?paymentId="+id, nil).JSON["data"].([]any)
	require.NotEmpty(t, evs)
	n := 0
	for _, ev := range evs { // a failure stops the payment's queue: the later event waits its turn
		for _, at := range dig(ev, "attempts").([]any) {
			n++
			assert.Equal(t, "refused by --webhook-allow (allowed: 10.0.0.0/8): no entry covers the address 127.0.0.1", dig(at, "error"))
		}
	}
	assert.Positive(t, n)
	assert.Zero(t, got.Load(), "the receiver was never called")
}

// An entry with a port admits that port only, where an endpoint is set and
// where a delivery dials: with two real receivers on one host, the one on
// the listed port gets the webhooks; the other cannot be set, and when it
// was stored before the list, every attempt to it fails without reaching
// it.
func TestWebhookAllowPorts(t *testing.T) {
	var gotAllowed, gotRefused atomic.Int32
	allowed := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { gotAllowed.Add(1) }))
	t.Cleanup(allowed.Close)
	refused := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { gotRefused.Add(1) }))
	t.Cleanup(refused.Close)
	allowedPort, refusedPort := allowed.Listener.Addr().(*net.TCPAddr).Port, refused.Listener.Addr().(*net.TCPAddr).Port

	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "paysandbox.db")
	before := startOptsApp(t, cfg, AppOptions{})
	before.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": refused.URL})
	require.NoError(t, before.Close())

	entry := fmt.Sprintf("127.0.0.1:%d", allowedPort)
	cfg.WebhookAllow = []string{entry}
	a := startOptsApp(t, cfg, AppOptions{})
	reason := fmt.Sprintf("refused by --webhook-allow (allowed: %s): no entry covers the address 127.0.0.1 on port %d", entry, refusedPort)

	// The dialer: the endpoint stored before the list is never reached.
	stale := a.pay(1000, numOK).Str("id")
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	attempts := 0
	for _, ev := range a.must(200, "GET", "/_sandbox/webhooks/events?paymentId="+stale, nil).JSON["data"].([]any) {
		for _, at := range dig(ev, "attempts").([]any) {
			attempts++
			assert.Equal(t, reason, dig(at, "error"))
			assert.EqualValues(t, 0, dig(at, "statusCode"))
		}
	}
	assert.Positive(t, attempts)
	assert.Zero(t, gotRefused.Load(), "the receiver on the other port was never called")

	// Where it is set: the other port is refused, the listed one admitted.
	f := fieldErrors(t, a.req("PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": refused.URL}), "WebhookEndpointRequest")
	assert.Equal(t, "url is "+reason, f["$.url"])
	a.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": allowed.URL})
	id := a.pay(1000, numOK).Str("id")
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	evs := a.must(200, "GET", "/_sandbox/webhooks/events?paymentId="+id, nil).JSON["data"].([]any)
	require.NotEmpty(t, evs)
	for _, ev := range evs {
		assert.Equal(t, "DELIVERED", dig(ev, "status"), "%v", ev)
	}
	assert.GreaterOrEqual(t, int(gotAllowed.Load()), len(evs), "and the earlier payment's retries go to the new endpoint")
	assert.Zero(t, gotRefused.Load())
}
