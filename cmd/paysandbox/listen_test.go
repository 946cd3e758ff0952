package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/app"
)

// hasIPv6Loopback reports whether this host can listen on [::1].
func hasIPv6Loopback() bool {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// TestListenAddresses: a loopback address listens on 127.0.0.1 and on [::1]
// at the same port (where the host has IPv6 loopback), both answering; the
// banner lists what is bound and who reaches it; a wildcard address is
// printed as bound and called every interface.
func TestListenAddresses(t *testing.T) {
	v6 := hasIPv6Loopback()
	tests := []struct {
		name   string
		addr   string
		needV6 bool
		hosts  func(port string) []string // the addresses bound, as host:port
		banner string
	}{
		{name: "127.0.0.1 listens on [::1] too", addr: "127.0.0.1:0", hosts: func(p string) []string {
			if !v6 {
				return []string{"127.0.0.1:" + p}
			}
			return []string{"127.0.0.1:" + p, "[::1]:" + p}
		}, banner: " (loopback: this machine only)"},
		{name: "localhost is both families", addr: "localhost:0", hosts: func(p string) []string {
			if !v6 {
				return []string{"127.0.0.1:" + p}
			}
			return []string{"127.0.0.1:" + p, "[::1]:" + p}
		}, banner: " (loopback: this machine only)"},
		{name: "[::1] alone", addr: "[::1]:0", needV6: true, hosts: func(p string) []string { return []string{"[::1]:" + p} },
			banner: " (loopback: this machine only)"},
		{name: "0.0.0.0 is every interface (both families where the host has IPv6)", addr: "0.0.0.0:0", hosts: func(p string) []string {
			if !v6 {
				return []string{"0.0.0.0:" + p}
			}
			return []string{"[::]:" + p}
		}, banner: ": every interface, so other machines can reach it (docs/sharing.md)"},
		{name: "an empty host is every interface", addr: ":0", hosts: func(p string) []string {
			if !v6 {
				return []string{"0.0.0.0:" + p}
			}
			return []string{"[::]:" + p}
		}, banner: ": every interface, so other machines can reach it (docs/sharing.md)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needV6 && !v6 {
				t.Skip("this host has no IPv6 loopback")
			}
			cfg := testConfig()
			cfg.Addr = tc.addr
			app := startApp(t, cfg)
			_, port, err := net.SplitHostPort(app.Addr())
			require.NoError(t, err)
			var bound []string
			for _, a := range app.Addrs() {
				bound = append(bound, a.String())
			}
			want := tc.hosts(port)
			require.Equal(t, want, bound)
			for _, hp := range want {
				if strings.HasPrefix(hp, "0.0.0.0:") || strings.HasPrefix(hp, "[::]:") {
					hp = "127.0.0.1:" + port
				}
				res, err := http.Get("http://" + hp + "/healthz")
				require.NoError(t, err, hp)
				_ = res.Body.Close()
				assert.Equal(t, 200, res.StatusCode, hp)
			}
			var buf bytes.Buffer
			printStartup(&buf, app.App)
			line, _, _ := strings.Cut(buf.String(), "\n")
			urls := make([]string, len(want))
			for i, hp := range want {
				urls[i] = "http://" + hp
			}
			assert.Equal(t, "paysandbox "+version+" listening on "+strings.Join(urls, " and ")+tc.banner, line)
		})
	}
}

// TestDefaultAddressIsLoopback: serve's default address is loopback, as the
// flag, the config key and the defaults say.
func TestDefaultAddressIsLoopback(t *testing.T) {
	cmd := newServeCmd(func(*serveOptions) error { return nil })
	assert.Equal(t, "127.0.0.1:8080", cmd.Flags().Lookup("addr").DefValue)
	assert.Equal(t, "127.0.0.1:8080", defaultOf("addr"))
	host, _, err := net.SplitHostPort(app.DefaultAddr)
	require.NoError(t, err)
	assert.True(t, net.ParseIP(host).IsLoopback())
}

// TestHostCheck: a loopback-bound server answers localhost, the loopback
// IPs and the --allowed-host names (with or without a port), the API and
// the dashboard alike, and refuses any other Host with 403 Forbidden in the
// error envelope; a server on every interface checks no Host.
func TestHostCheck(t *testing.T) {
	tests := []struct {
		name    string
		addr    string
		allowed []string
		host    string
		status  int
	}{
		{name: "localhost", addr: "127.0.0.1:0", host: "localhost:PORT", status: 200},
		{name: "localhost without a port", addr: "127.0.0.1:0", host: "localhost", status: 200},
		{name: "127.0.0.1", addr: "127.0.0.1:0", host: "127.0.0.1:PORT", status: 200},
		{name: "[::1]", addr: "127.0.0.1:0", host: "[::1]:PORT", status: 200},
		{name: "another name", addr: "127.0.0.1:0", host: "evil.example:PORT", status: 403},
		{name: "a LAN address", addr: "127.0.0.1:0", host: "192.168.1.20:PORT", status: 403},
		{name: "an --allowed-host name", addr: "127.0.0.1:0", allowed: []string{"sandbox.example.com"}, host: "sandbox.example.com", status: 200},
		{name: "an --allowed-host name with a port", addr: "127.0.0.1:0", allowed: []string{"sandbox.example.com"}, host: "sandbox.example.com:8443", status: 200},
		{name: "a name --allowed-host does not give", addr: "127.0.0.1:0", allowed: []string{"sandbox.example.com"}, host: "evil.example", status: 403},
		{name: "every interface checks no Host", addr: "0.0.0.0:0", host: "evil.example", status: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Addr, cfg.AllowedHost = tc.addr, tc.allowed
			app := startApp(t, cfg)
			_, port, _ := net.SplitHostPort(app.Addr())
			for _, path := range []string{"/healthz", "/_sandbox/clock", "/_sandbox/ui/login"} {
				req, err := http.NewRequest("GET", app.URL()+path, nil)
				require.NoError(t, err)
				req.Host = strings.ReplaceAll(tc.host, "PORT", port)
				req.Header.Set("X-API-KEY", app.Key)
				res, err := app.http.Do(req)
				require.NoError(t, err)
				body, _ := io.ReadAll(res.Body)
				_ = res.Body.Close()
				require.Equal(t, tc.status, res.StatusCode, "%s with Host %s: %s", path, req.Host, body)
				if tc.status == 403 {
					assert.Contains(t, string(body), `"errorId":"Forbidden"`)
					assert.Contains(t, string(body), "--allowed-host")
				}
			}
		})
	}
}

// TestPageCannotCreateATenant: through the whole server (dashboard in
// front), a page's text/plain POST from another origin creates no tenant,
// and a page's form cannot either; the CLI's JSON can.
func TestPageCannotCreateATenant(t *testing.T) {
	app := newTestApp(t)
	count := func() int {
		ts, err := app.Svc.Tenants()
		require.NoError(t, err)
		return len(ts)
	}
	before := count()
	r := app.req("POST", "/_sandbox/tenants", `{"webhookUrl": "http://evil.example/hook"}`,
		"Content-Type: text/plain", "Origin: http://evil.example", "X-API-KEY:")
	require.Equal(t, 403, r.Status, "%s", r.Body)
	assert.Equal(t, "Forbidden", r.ErrorID())
	r = app.req("POST", "/_sandbox/tenants", "ttl=1h", "Content-Type: application/x-www-form-urlencoded", "X-API-KEY:")
	require.Equal(t, 403, r.Status, "%s", r.Body)
	assert.Equal(t, before, count(), "nothing was created")

	var out, errb bytes.Buffer
	cmd := newRootCmd(&out, &errb)
	cmd.SetArgs([]string{"tenants", "create", "--url", app.URL(), "--ttl", "1h", "-o", "json"})
	require.NoError(t, cmd.Execute(), errb.String())
	assert.Equal(t, before+1, count(), "the CLI creates one")
}
