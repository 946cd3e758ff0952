package forwarded_test

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/forwarded"
)

func TestTrust(t *testing.T) {
	tests := []struct {
		name    string
		cidrs   []string // nil: the default ranges
		peer    string
		tls     bool
		headers []string // "Name: value"
		scheme  string
		host    string
		client  string
	}{
		{name: "direct, no headers", peer: "203.0.113.9:5000", scheme: "http", host: "sandbox.test", client: "203.0.113.9"},
		{name: "TLS is https whoever the peer", peer: "203.0.113.9:5000", tls: true, headers: []string{"X-Forwarded-Proto: http"}, scheme: "https", host: "sandbox.test", client: "203.0.113.9"},
		{name: "loopback proxy is trusted by default", peer: "127.0.0.1:5000",
			headers: []string{"X-Forwarded-Proto: https", "X-Forwarded-Host: pay.example.com", "X-Forwarded-For: 198.51.100.4"},
			scheme:  "https", host: "pay.example.com", client: "198.51.100.4"},
		{name: "private range proxy is trusted by default", peer: "172.18.0.3:5000",
			headers: []string{"X-Forwarded-Proto: HTTPS, http", "X-Forwarded-For: 198.51.100.4, 10.0.0.2"},
			scheme:  "https", host: "sandbox.test", client: "198.51.100.4"},
		{name: "IPv6 loopback proxy", peer: "[::1]:5000", headers: []string{"X-Forwarded-Proto: https", "X-Real-IP: 198.51.100.5"},
			scheme: "https", host: "sandbox.test", client: "198.51.100.5"},
		{name: "headers from a public peer are ignored", peer: "203.0.113.9:5000",
			headers: []string{"X-Forwarded-Proto: https", "X-Forwarded-Host: evil.example", "X-Forwarded-For: 198.51.100.4", "X-Real-IP: 198.51.100.5"},
			scheme:  "http", host: "sandbox.test", client: "203.0.113.9"},
		{name: "a configured list replaces the default", cidrs: []string{"10.0.0.0/8"}, peer: "127.0.0.1:5000",
			headers: []string{"X-Forwarded-Proto: https", "X-Forwarded-Host: pay.example.com", "X-Forwarded-For: 198.51.100.4"},
			scheme:  "http", host: "sandbox.test", client: "127.0.0.1"},
		{name: "none trusts no peer", cidrs: []string{"none"}, peer: "127.0.0.1:5000",
			headers: []string{"X-Forwarded-Proto: https", "X-Forwarded-For: 198.51.100.4"},
			scheme:  "http", host: "sandbox.test", client: "127.0.0.1"},
		{name: "a spoofed hop left of an untrusted one is not believed", cidrs: []string{"10.0.0.0/8"}, peer: "10.0.0.1:5000",
			headers: []string{"X-Forwarded-For: 1.2.3.4, 198.51.100.4, 10.0.0.9"},
			scheme:  "http", host: "sandbox.test", client: "198.51.100.4"},
		{name: "several X-Forwarded-For headers read as one list", peer: "10.0.0.1:5000",
			headers: []string{"X-Forwarded-For: 198.51.100.4", "X-Forwarded-For: 10.0.0.9"},
			scheme:  "http", host: "sandbox.test", client: "198.51.100.4"},
		{name: "all hops trusted: the leftmost", peer: "10.0.0.1:5000", headers: []string{"X-Forwarded-For: 192.168.1.5, 10.0.0.9"},
			scheme: "http", host: "sandbox.test", client: "192.168.1.5"},
		{name: "a malformed hop stops the walk", peer: "10.0.0.1:5000", headers: []string{"X-Forwarded-For: 198.51.100.4, junk, 10.0.0.9"},
			scheme: "http", host: "sandbox.test", client: "10.0.0.9"},
		{name: "an unknown proto and an odd host are ignored", peer: "127.0.0.1:5000",
			headers: []string{"X-Forwarded-Proto: gopher", "X-Forwarded-Host: a.example/path@b"},
			scheme:  "http", host: "sandbox.test", client: "127.0.0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := forwarded.New(tc.cidrs)
			require.NoError(t, err)
			r := httptest.NewRequest(http.MethodGet, "http://sandbox.test/x", nil)
			r.RemoteAddr = tc.peer
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for _, h := range tc.headers {
				k, v, _ := strings.Cut(h, ":")
				r.Header.Add(k, strings.TrimSpace(v))
			}
			assert.Equal(t, tc.scheme, tr.Scheme(r), "scheme")
			assert.Equal(t, tc.host, tr.Host(r), "host")
			assert.Equal(t, tc.scheme+"://"+tc.host, tr.BaseURL(r))
			assert.Equal(t, tc.client, tr.ClientIP(r), "client")
		})
	}
}

func TestNilTrustIsTheDefault(t *testing.T) {
	var tr *forwarded.Trust
	r := httptest.NewRequest(http.MethodGet, "http://sandbox.test/x", nil)
	r.RemoteAddr = "192.168.0.2:1"
	r.Header.Set("X-Forwarded-Proto", "https")
	assert.Equal(t, "https", tr.Scheme(r))
}

func TestNew(t *testing.T) {
	tests := []struct {
		cidrs []string
		bad   string
	}{
		{cidrs: []string{"10.0.0.0/8", " 192.168.0.0/16 ", "127.0.0.1", "fd00::/8", ""}},
		{cidrs: []string{"NONE"}},
		{cidrs: []string{"10.0.0.0/33"}, bad: `"10.0.0.0/33" is not a CIDR`},
		{cidrs: []string{"proxy.example"}, bad: `"proxy.example"`},
		{cidrs: []string{"none", "10.0.0.0/8"}, bad: `"none" cannot be combined`},
	}
	for _, tc := range tests {
		_, err := forwarded.New(tc.cidrs)
		if tc.bad == "" {
			assert.NoError(t, err, "%v", tc.cidrs)
			continue
		}
		require.Error(t, err, "%v", tc.cidrs)
		assert.Contains(t, err.Error(), tc.bad)
	}
}

// TestSameOrigin: Origin (or, without it, Referer) must name the client's
// host (X-Forwarded-Host from a trusted proxy, else Host); neither header is
// not a browser's cross-site request; "null" never matches.
func TestSameOrigin(t *testing.T) {
	tests := []struct {
		name    string
		peer    string
		headers []string
		want    bool
	}{
		{name: "no Origin, no Referer", peer: "203.0.113.9:5000", want: true},
		{name: "the same host", peer: "203.0.113.9:5000", headers: []string{"Origin: http://sandbox.test"}, want: true},
		{name: "the same host, other case", peer: "203.0.113.9:5000", headers: []string{"Origin: http://Sandbox.Test"}, want: true},
		{name: "another host", peer: "203.0.113.9:5000", headers: []string{"Origin: http://evil.example"}, want: false},
		{name: "another port", peer: "203.0.113.9:5000", headers: []string{"Origin: http://sandbox.test:8080"}, want: false},
		{name: "an opaque origin", peer: "203.0.113.9:5000", headers: []string{"Origin: null"}, want: false},
		{name: "not a URL", peer: "203.0.113.9:5000", headers: []string{"Origin: sandbox.test"}, want: false},
		{name: "a foreign Referer without Origin", peer: "203.0.113.9:5000", headers: []string{"Referer: http://evil.example/page"}, want: false},
		{name: "Origin wins over Referer", peer: "203.0.113.9:5000", headers: []string{"Origin: http://sandbox.test", "Referer: http://evil.example/"}, want: true},
		{name: "the proxy's public host", peer: "127.0.0.1:5000", headers: []string{"X-Forwarded-Host: pay.example.com", "Origin: https://pay.example.com"}, want: true},
		{name: "X-Forwarded-Host from an untrusted peer", peer: "203.0.113.9:5000", headers: []string{"X-Forwarded-Host: evil.example", "Origin: http://evil.example"}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "http://sandbox.test/_sandbox/tenants", nil)
			r.RemoteAddr = tc.peer
			for _, h := range tc.headers {
				k, v, _ := strings.Cut(h, ":")
				r.Header.Set(k, strings.TrimSpace(v))
			}
			assert.Equal(t, tc.want, (*forwarded.Trust)(nil).SameOrigin(r))
		})
	}
}
