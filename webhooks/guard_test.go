package webhooks_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/webhooks"
)

// fakeDNS answers host names from a table a test may change between the
// moment an endpoint is set and the moment a delivery dials it.
type fakeDNS struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
	lookups atomic.Int32
}

func newDNS(pairs ...string) *fakeDNS {
	d := &fakeDNS{answers: map[string][]netip.Addr{}}
	for i := 0; i < len(pairs); i += 2 {
		d.set(pairs[i], pairs[i+1])
	}
	return d
}

// set makes host resolve to the addresses (comma-free list, one per call).
func (d *fakeDNS) set(host string, addrs ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answers[host] = nil
	for _, a := range addrs {
		d.answers[host] = append(d.answers[host], netip.MustParseAddr(a))
	}
}

func (d *fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	d.lookups.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	if a, ok := d.answers[host]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("lookup %s: no such host", host)
}

func TestGuardAdmitEndpoint(t *testing.T) {
	dns := newDNS("inside.test", "10.1.2.3", "outside.test", "93.184.216.34", "local.test", "127.0.0.1")
	dns.set("split.test", "10.1.2.3", "127.0.0.1")
	tests := []struct {
		name    string
		allow   []string
		url     string
		refused string // "" admits; else a substring of the error
	}{
		{"no list admits anything", nil, "http://127.0.0.1:9000/hooks", ""},
		{"no list admits names it cannot resolve", nil, "http://nowhere.test/hooks", ""},
		{"a name entry admits its host without resolving", []string{"hooks.example"}, "https://hooks.example/x", ""},
		{"name entries compare without case or trailing dot", []string{"Hooks.Example."}, "https://HOOKS.example:8443/x", ""},
		{"a CIDR entry admits a name resolving inside", []string{"10.0.0.0/8"}, "http://inside.test:4000/hooks", ""},
		{"an IP entry admits that address", []string{"127.0.0.1"}, "http://127.0.0.1:4000/", ""},
		{"an IP literal inside a CIDR", []string{"10.0.0.0/8"}, "http://10.9.9.9/", ""},
		{"an IPv4-mapped CIDR covers IPv4", []string{"::ffff:10.0.0.0/104"}, "http://10.9.9.9/", ""},
		{"a name resolving outside", []string{"10.0.0.0/8"}, "http://local.test:4000/", "local.test is not a listed host name and no entry covers its address 127.0.0.1"},
		{"every address must be inside", []string{"10.0.0.0/8"}, "http://split.test/", "its address 127.0.0.1"},
		{"an IP literal outside", []string{"10.0.0.0/8", "hooks.example"}, "http://127.0.0.1:4000/", "no entry covers the address 127.0.0.1"},
		{"an IPv6 literal outside", []string{"10.0.0.0/8"}, "http://[::1]:4000/", "no entry covers the address ::1"},
		{"a name that does not resolve", []string{"10.0.0.0/8"}, "http://nowhere.test/", "could not be resolved"},
		{"a name entry is exact: no subdomains", []string{"example.com"}, "http://evil.example.com/", "evil.example.com is not a listed host name"},

		// Entries with a port admit that port only; the URL's port, else the scheme's.
		{"a name with its port", []string{"hooks.example:8443"}, "https://hooks.example:8443/x", ""},
		{"a name with https's port", []string{"hooks.example:443"}, "https://hooks.example/x", ""},
		{"a name with http's port", []string{"hooks.example:80"}, "http://hooks.example/x", ""},
		{"a name on another port", []string{"local.test:4000"}, "http://local.test:5000/",
			"local.test is not a listed host name on port 5000 and no entry covers its address 127.0.0.1"},
		{"a name on the scheme's other port", []string{"hooks.example:443"}, "http://hooks.example/x",
			"hooks.example is not a listed host name on port 80 and could not be resolved"},
		{"an IP with its port", []string{"127.0.0.1:4000"}, "http://127.0.0.1:4000/", ""},
		{"an IP on another port", []string{"127.0.0.1:4000"}, "http://127.0.0.1:4001/", "no entry covers the address 127.0.0.1 on port 4001"},
		{"an IPv6 address with its port", []string{"[::1]:8443"}, "https://[::1]:8443/", ""},
		{"an IPv6 address on another port", []string{"[::1]:8443"}, "https://[::1]/", "no entry covers the address ::1 on port 443"},
		{"a CIDR with its port", []string{"10.0.0.0/8:8080"}, "http://inside.test:8080/", ""},
		{"a CIDR on another port", []string{"10.0.0.0/8:8080"}, "http://inside.test/",
			"inside.test is not a listed host name and no entry covers its address 10.1.2.3 on port 80"},
		{"an IPv6 CIDR with its port", []string{"[fd00::/8]:443"}, "https://[fd00::1]/", ""},
		{"an IPv6 CIDR on another port", []string{"[fd00::/8]:443"}, "http://[fd00::1]/", "no entry covers the address fd00::1 on port 80"},
		{"an entry without a port admits every port", []string{"10.0.0.0/8:8080", "10.1.0.0/16"}, "http://inside.test:9/", ""},
		{"one port of a name, another of its address", []string{"local.test:4000", "127.0.0.1:5000"}, "http://local.test:5000/", ""},
		{"the port of each address", []string{"10.0.0.0/8:4000", "127.0.0.1"}, "http://split.test:4000/", ""},
		{"the port of each address, one refused", []string{"10.0.0.0/8:4000", "127.0.0.1:5000"}, "http://split.test:4000/",
			"no entry covers its address 127.0.0.1 on port 4000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := webhooks.NewGuard(tc.allow, dns)
			require.NoError(t, err)
			u, err := url.Parse(tc.url)
			require.NoError(t, err)
			err = g.AdmitEndpoint(u)
			if tc.refused == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "is refused by --webhook-allow (allowed: ")
			assert.Contains(t, err.Error(), tc.refused)
		})
	}
}

func TestParseAllowEntry(t *testing.T) {
	pfx := netip.MustParsePrefix
	tests := []struct {
		entry string
		want  webhooks.AllowEntry
		bad   string // "" parses
	}{
		{entry: "hooks.example", want: webhooks.AllowEntry{Name: "hooks.example"}},
		{entry: "Hooks.Example.:8443", want: webhooks.AllowEntry{Name: "hooks.example", Port: 8443}},
		{entry: "192.168.1.7", want: webhooks.AllowEntry{Prefix: pfx("192.168.1.7/32")}},
		{entry: "1.2.3.4:443", want: webhooks.AllowEntry{Prefix: pfx("1.2.3.4/32"), Port: 443}},
		{entry: "10.0.0.0/8", want: webhooks.AllowEntry{Prefix: pfx("10.0.0.0/8")}},
		{entry: "10.9.0.0/8:8080", want: webhooks.AllowEntry{Prefix: pfx("10.0.0.0/8"), Port: 8080}},
		{entry: "[10.0.0.0/8]:8080", want: webhooks.AllowEntry{Prefix: pfx("10.0.0.0/8"), Port: 8080}},
		{entry: "::1", want: webhooks.AllowEntry{Prefix: pfx("::1/128")}},
		{entry: "[::1]", want: webhooks.AllowEntry{Prefix: pfx("::1/128")}},
		{entry: "[::1]:8443", want: webhooks.AllowEntry{Prefix: pfx("::1/128"), Port: 8443}},
		{entry: "fd00::/8", want: webhooks.AllowEntry{Prefix: pfx("fd00::/8")}},
		{entry: "[fd00::/8]:443", want: webhooks.AllowEntry{Prefix: pfx("fd00::/8"), Port: 443}},
		{entry: "::ffff:10.0.0.0/104", want: webhooks.AllowEntry{Prefix: pfx("10.0.0.0/8")}},
		{entry: "[::ffff:127.0.0.1]:80", want: webhooks.AllowEntry{Prefix: pfx("127.0.0.1/32"), Port: 80}},
		{entry: "fd00::1:443", want: webhooks.AllowEntry{Prefix: pfx("fd00::1:443/128")}}, // no brackets: all address
		{entry: "hooks.example:65535", want: webhooks.AllowEntry{Name: "hooks.example", Port: 65535}},
		{entry: "*.example.com", bad: `"*.example.com" is not a host name`},
		{entry: "http://hooks.example", bad: `"http://hooks.example" is not a host name`},
		{entry: "hooks.example/path", bad: `"hooks.example/path" is not a host name`},
		{entry: "hooks.example:https", bad: `"hooks.example:https" is not a host name`},
		{entry: "[hooks.example]:443", bad: `"[hooks.example]:443" is not a host name`},
		{entry: "[::1]443", bad: `"[::1]443" is not a host name`},
		{entry: "[::1", bad: `"[::1" is not a host name`},
		{entry: "10.0.0.0/33", bad: `"10.0.0.0/33"`},
		{entry: "hooks.example:0", bad: `"hooks.example:0": the port "0" is not a number from 1 to 65535`},
		{entry: "1.2.3.4:65536", bad: `"1.2.3.4:65536": the port "65536" is not a number from 1 to 65535`},
		{entry: "[::1]:99999999999999999999", bad: `the port "99999999999999999999" is not a number from 1 to 65535`},
		{entry: "hooks.example:", bad: `"hooks.example:": the port "" is not a number from 1 to 65535`},
		{entry: "[::1]:", bad: `"[::1]:": the port ""`},
	}
	for _, tc := range tests {
		t.Run(tc.entry, func(t *testing.T) {
			got, err := webhooks.ParseAllowEntry(tc.entry)
			if tc.bad != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.bad)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestNewGuardEntries(t *testing.T) {
	tests := []struct {
		entries []string
		bad     string // "" parses
	}{
		{[]string{"hooks.example", "10.0.0.0/8", "192.168.1.7", "fd00::/8", " spaced.example ", "", "hooks.example:8443", "[::1]:8443"}, ""},
		{[]string{"*.example.com"}, `"*.example.com" is not a host name`},
		{[]string{"http://hooks.example"}, `"http://hooks.example"`},
		{[]string{"hooks.example:0", "10.0.0.0/33"}, `"hooks.example:0": the port "0" is not a number from 1 to 65535` + "\n" + `"10.0.0.0/33"`},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.entries), func(t *testing.T) {
			_, err := webhooks.NewGuard(tc.entries, nil)
			if tc.bad == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.bad)
		})
	}
}

// The dialer checks the port it dials as well as the address: a receiver
// on a listed port is reached, the same host on another port is refused
// before any connection.
func TestGuardDialPorts(t *testing.T) {
	var got atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { got.Add(1) }))
	t.Cleanup(rc.Close)
	port := rc.Listener.Addr().(*net.TCPAddr).Port
	other := port + 1
	if other > 65535 {
		other = port - 1
	}
	dns := newDNS("receiver.test", "127.0.0.1", "localhost", "127.0.0.1")
	tests := []struct {
		name    string
		allow   []string
		url     string
		refused string // "" reaches the receiver
	}{
		{"an IP with the receiver's port", []string{fmt.Sprintf("127.0.0.1:%d", port)}, rc.URL, ""},
		{"an IP with another port", []string{fmt.Sprintf("127.0.0.1:%d", other)}, rc.URL,
			fmt.Sprintf("no entry covers the address 127.0.0.1 on port %d", port)},
		{"a CIDR with the receiver's port", []string{fmt.Sprintf("127.0.0.0/8:%d", port)}, fmt.Sprintf("http://receiver.test:%d/", port), ""},
		// A listed name is dialled as named (the system's resolver): localhost.
		{"a name with the receiver's port", []string{fmt.Sprintf("localhost:%d", port)}, fmt.Sprintf("http://localhost:%d/", port), ""},
		{"a name with another port", []string{fmt.Sprintf("localhost:%d", other)}, fmt.Sprintf("http://localhost:%d/", port),
			fmt.Sprintf("localhost is not a listed host name on port %d and no entry covers its address 127.0.0.1", port)},
		{"an IP without a port", []string{"127.0.0.1"}, rc.URL, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got.Store(0)
			g, err := webhooks.NewGuard(tc.allow, dns)
			require.NoError(t, err)
			client := g.Client(1)
			t.Cleanup(client.CloseIdleConnections)
			res, err := client.Get(tc.url)
			if tc.refused == "" {
				require.NoError(t, err)
				res.Body.Close()
				assert.EqualValues(t, 1, got.Load())
				return
			}
			require.Error(t, err)
			var refused *webhooks.RefusedError
			require.ErrorAs(t, err, &refused)
			assert.Contains(t, refused.Error(), tc.refused)
			assert.Zero(t, got.Load(), "the receiver was never called")
		})
	}
}

// guardedService is the real service over db with guard as its endpoint
// policy, its dispatcher (not running), and the default tenant.
func guardedService(tb testing.TB, db *store.DB, guard simulator.EndpointPolicy) (*service.Service, *simulator.Tenant, *webhooks.Dispatcher) {
	tb.Helper()
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(tb, err)
	var d *webhooks.Dispatcher
	svc := service.NewService(db, clock.NewManual(epoch), &idgen.Seq{}, catalog, processors.NewFake(nil, nil), nil,
		service.Config{Endpoints: guard, Renderer: webhooks.Renderer{},
			Webhooks: webhooks.Attach(&d, webhooks.Options{Timeout: time.Second, Concurrency: 4})})
	tn, err := svc.EnsureTenant(service.TenantSpec{ID: "default", SigningSecret: "secret", APIKeys: []simulator.APIKey{{Key: "key", Scopes: simulator.AllScopes}}})
	require.NoError(tb, err)
	return svc, tn, d
}

func memDB(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// payOnce makes one approved payment (its PENDING and AUTHORIZED events).
func payOnce(tb testing.TB, svc *service.Service, tn *simulator.Tenant) {
	tb.Helper()
	(&env{svc: svc, t: tn}).pay(tb, 1000, "4111111111111111")
}

// The dialer applies --webhook-allow to the address it dials: a name that
// resolved inside the list when the endpoint was set but resolves to a
// refused address at delivery (DNS rebinding) is not dialled, and an
// endpoint stored before the list refused it stays stored while every
// attempt fails saying why. Once the list admits it, a replay delivers.
func TestDialerRefusesWhatTheListRefuses(t *testing.T) {
	var got atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { got.Add(1) }))
	t.Cleanup(rc.Close)
	port := rc.Listener.Addr().(*net.TCPAddr).Port

	t.Run("DNS answer changed after the endpoint was set", func(t *testing.T) {
		got.Store(0)
		dns := newDNS("rebind.test", "10.0.0.7")
		g, err := webhooks.NewGuard([]string{"10.0.0.0/8"}, dns)
		require.NoError(t, err)
		svc, tn, d := guardedService(t, memDB(t), g)
		tn, err = svc.SetWebhookURL(tn, fmt.Sprintf("http://rebind.test:%d/hooks", port))
		require.NoError(t, err, "rebind.test resolves inside 10.0.0.0/8 when set")
		dns.set("rebind.test", "127.0.0.1") // where the receiver really is
		payOnce(t, svc, tn)
		require.NotEmpty(t, runDue(t, d, svc, tn.ID))
		assertRefusedAttempts(t, svc, tn, "rebind.test is not a listed host name and no entry covers its address 127.0.0.1")
		assert.Zero(t, got.Load(), "the receiver was never called")
	})

	t.Run("endpoint stored before the list", func(t *testing.T) {
		got.Store(0)
		db := memDB(t)
		open, tn, _ := guardedService(t, db, nil)
		_, err := open.SetWebhookURL(tn, rc.URL)
		require.NoError(t, err)

		g, err := webhooks.NewGuard([]string{"10.0.0.0/8"}, newDNS())
		require.NoError(t, err)
		svc, tn, d := guardedService(t, db, g) // a restart with --webhook-allow 10.0.0.0/8
		assert.Equal(t, rc.URL, tn.WebhookURL, "the refused endpoint stays stored")
		payOnce(t, svc, tn)
		require.NotEmpty(t, runDue(t, d, svc, tn.ID))
		evs := assertRefusedAttempts(t, svc, tn, "no entry covers the address 127.0.0.1")
		assert.Zero(t, got.Load())

		g, err = webhooks.NewGuard([]string{"10.0.0.0/8", "127.0.0.1"}, newDNS())
		require.NoError(t, err)
		fixed, tn, _ := guardedService(t, db, g) // the list fixed, restarted
		a, err := fixed.ReplayWebhook(context.Background(), tn, evs[0].ID)
		require.NoError(t, err)
		assert.True(t, a.OK(), "replayable once fixed: %+v", a)
		assert.EqualValues(t, 1, got.Load())
	})
}

// assertRefusedAttempts checks that every event's attempts failed with the
// guard's refusal (and reason) and answers the events.
func assertRefusedAttempts(t *testing.T, svc *service.Service, tn *simulator.Tenant, reason string) []*simulator.Event {
	t.Helper()
	evs := (&env{svc: svc, t: tn}).events(t)
	require.NotEmpty(t, evs)
	attempts := 0
	for _, ev := range evs {
		for _, a := range ev.Attempts {
			attempts++
			assert.Zero(t, a.StatusCode)
			assert.Contains(t, a.Error, "refused by --webhook-allow (allowed: 10.0.0.0/8")
			assert.Contains(t, a.Error, reason)
		}
	}
	assert.Positive(t, attempts)
	return evs
}

// Deliveries never go through an environment proxy: with HTTP_PROXY set the
// receiver is still called directly (a proxy would dial in the guard's
// place, past --webhook-allow).
func TestDeliveriesIgnoreEnvironmentProxy(t *testing.T) {
	var direct, proxied atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { direct.Add(1) }))
	t.Cleanup(rc.Close)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { proxied.Add(1) }))
	t.Cleanup(proxy.Close)
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"} {
		t.Setenv(k, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	port := rc.Listener.Addr().(*net.TCPAddr).Port
	// A name, not localhost: the environment's proxy rules skip loopback hosts.
	g, err := webhooks.NewGuard([]string{"127.0.0.1"}, newDNS("receiver.test", "127.0.0.1"))
	require.NoError(t, err)
	svc, tn, d := guardedService(t, memDB(t), g)
	tn, err = svc.SetWebhookURL(tn, fmt.Sprintf("http://receiver.test:%d/hooks", port))
	require.NoError(t, err)
	payOnce(t, svc, tn)
	require.NotEmpty(t, runDue(t, d, svc, tn.ID))
	assert.EqualValues(t, 2, direct.Load(), "both events reached the receiver directly")
	assert.Zero(t, proxied.Load(), "nothing went through HTTP_PROXY")

	for _, entries := range [][]string{nil, {"127.0.0.1"}} { // with and without a list
		g, err := webhooks.NewGuard(entries, nil)
		require.NoError(t, err)
		tr, ok := g.Client(1).Transport.(*http.Transport)
		require.True(t, ok)
		assert.Nil(t, tr.Proxy, "%v: no proxy function", entries)
	}
}
