package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
)

// The tests of this file reproduce slow and greedy clients at a small scale:
// the limits are lowered by configuration and each test checks the
// mechanism (the server answers or closes), never how long it took. The
// deadlines set on the test's own connections only keep a broken server from
// hanging the suite.

// hangGuard bounds every raw read of these tests.
const hangGuard = 20 * time.Second

// dial opens a raw TCP connection to the app.
func dial(t testing.TB, a *testApp) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", a.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// readResponse reads one HTTP response from c (the hang guard bounds it).
func readResponse(t testing.TB, c net.Conn) (*http.Response, []byte) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(hangGuard)))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "the server must answer")
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, b
}

// closedByServer reports whether the server closed c (EOF or reset) before the guard.
func closedByServer(t testing.TB, c net.Conn) bool {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(hangGuard)))
	_, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

func errorIDOf(t testing.TB, body []byte) string {
	t.Helper()
	var env struct {
		Error struct {
			ErrorID string `json:"errorId"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &env), "error envelope: %s", body)
	return env.Error.ErrorID
}

// Finding 1: a body trickling in is cut at the read timeout with a 400
// envelope and the connection is closed, instead of being held forever.
func TestSlowBodyIsCutAtTheReadTimeout(t *testing.T) {
	cfg := testConfig()
	cfg.ReadTimeout = 300 * time.Millisecond
	a := startApp(t, cfg)
	c := dial(t, a)
	_, err := fmt.Fprintf(c, "POST /client-session HTTP/1.1\r\nHost: localhost\r\nX-API-KEY: %s\r\nX-API-VERSION: 2.4\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{", simulator.DefaultAPIKey)
	require.NoError(t, err)
	res, body := readResponse(t, c) // the rest of the body never comes
	assert.Equal(t, 400, res.StatusCode)
	assert.Equal(t, "BadRequest", errorIDOf(t, body))
	assert.Contains(t, string(body), "did not arrive within 300ms")
	assert.True(t, closedByServer(t, c), "the connection is closed")

	t.Run("a chunked body too", func(t *testing.T) {
		c := dial(t, a)
		_, err := fmt.Fprintf(c, "POST /payments HTTP/1.1\r\nHost: localhost\r\nX-API-KEY: %s\r\nX-API-VERSION: 2.4\r\n"+
			"Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n", simulator.DefaultAPIKey)
		require.NoError(t, err)
		res, _ := readResponse(t, c)
		assert.Equal(t, 400, res.StatusCode)
	})
	t.Run("headers that stall are cut too", func(t *testing.T) {
		c := dial(t, a)
		_, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
		require.NoError(t, err)
		assert.True(t, closedByServer(t, c), "the connection is closed")
	})
}

// The read timeout ends when the body is in: a long-poll (with or without a
// body) runs to its own timeout, longer than the read timeout, and gets its
// ordinary answer rather than a cancellation.
func TestReadTimeoutDoesNotCutHeldRequests(t *testing.T) {
	cfg := testConfig()
	cfg.ReadTimeout = 50 * time.Millisecond
	a := startApp(t, cfg)
	pid := a.pay(1000, "4111111111111111").Str("id")
	for _, body := range []any{nil, "{}"} {
		r := a.req("GET", "/_sandbox/wait?paymentId="+pid+"&status=SETTLED&timeout=600ms", body)
		assert.Equal(t, 408, r.Status, "%s", r.Body)
		assert.Contains(t, r.Err()["description"], "did not reach SETTLED within 600ms", "the wait ran to its own timeout")
	}
}

// Finding 5: a header block above 64 KiB is refused (431) as soon as the
// limit is read, and the connection is closed; one under it is served.
func TestHeaderBlockIsCapped(t *testing.T) {
	a := newTestApp(t)
	send := func(size int) (status int, c net.Conn) {
		c = dial(t, a)
		_, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", size))
		if err != nil { // the server closed before reading it all
			return 0, c
		}
		require.NoError(t, c.SetReadDeadline(time.Now().Add(hangGuard)))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			require.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the server must answer or close")
			return 0, c
		}
		res.Body.Close()
		return res.StatusCode, c
	}
	status, _ := send(60 << 10)
	assert.Equal(t, 200, status, "60 KiB of headers is fine")
	status, c := send(65 << 10)
	assert.Contains(t, []int{0, http.StatusRequestHeaderFieldsTooLarge}, status, "431, or closed before the client read it")
	assert.True(t, closedByServer(t, c))

	t.Run("the 431 is the error envelope", func(t *testing.T) {
		c := dial(t, a)
		_, err := fmt.Fprintf(c, "GET /payments/x HTTP/1.1\r\nHost: localhost\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 65<<10))
		require.NoError(t, err)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(hangGuard)))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, res.StatusCode)
		assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
		var env struct {
			Error map[string]any `json:"error"`
		}
		require.NoError(t, json.NewDecoder(res.Body).Decode(&env))
		assert.Equal(t, "RequestHeaderFieldsTooLarge", env.Error["errorId"])
		assert.Contains(t, env.Error["description"], "at most 65536")
		assert.NotEmpty(t, env.Error["diagnosticsId"])
		assert.True(t, closedByServer(t, c))
	})

	t.Run("a big header block that stalls is cut at the read timeout", func(t *testing.T) {
		cfg := testConfig()
		cfg.ReadTimeout = 200 * time.Millisecond
		b := startApp(t, cfg)
		c := dial(t, b)
		_, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: %s", strings.Repeat("a", 60<<10))
		require.NoError(t, err)
		assert.True(t, closedByServer(t, c))
	})
}

// The connection cap: past it a new connection is answered 429
// TooManyRequests and closed at once; when a connection leaves, its slot is
// free again.
func TestConnectionCap(t *testing.T) {
	cfg := testConfig()
	cfg.MaxConnections = 3
	a := startApp(t, cfg)
	var held []net.Conn
	for range 3 {
		held = append(held, dial(t, a))
	}
	waitFor(t, func() bool { return a.Conns().Open() == 3 }, "three connections held")

	c := dial(t, a)
	_, _ = fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
	res, body := readResponse(t, c)
	assert.Equal(t, 429, res.StatusCode)
	assert.Equal(t, "TooManyRequests", errorIDOf(t, body))
	assert.Regexp(t, uuidRE, res.Header.Get("X-Request-Id"), "the refusal has a request id too")
	assert.Contains(t, string(body), `"diagnosticsId":"`+res.Header.Get("X-Request-Id")+`"`)
	assert.True(t, closedByServer(t, c))
	assert.EqualValues(t, 1, a.Conns().Refused())

	require.NoError(t, held[0].Close())
	waitFor(t, func() bool { return a.Conns().Open() == 2 }, "the closed connection's slot is free")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	r, err := client.Get(a.URL() + "/healthz")
	require.NoError(t, err)
	r.Body.Close()
	assert.Equal(t, 200, r.StatusCode)
}

// waitFor polls cond (server-side state, not time) until it holds.
func waitFor(t testing.TB, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Finding 4: the wait cap is per tenant. One tenant at its cap gets 429, a
// wait of another tenant is served, and a wait that is already satisfied
// answers at once even at the cap.
func TestWaitCapIsPerTenant(t *testing.T) {
	cfg := testConfig()
	cfg.MaxWaitsPerTenant = 2
	a := startApp(t, cfg)
	greedy := a.as(a.newTenant(nil))
	pid := greedy.pay(1000, "4111111111111111")
	status := pid.Str("status")
	done := make(chan *resp, 2)
	for range 2 {
		go func() {
			done <- greedy.req("GET", "/_sandbox/wait?paymentId="+pid.Str("id")+"&status=SETTLED&timeout=60s", nil)
		}()
	}
	t0, _, err := a.Svc.Authenticate(greedy.Key)
	require.NoError(t, err)
	waitFor(t, func() bool { return a.Svc.Held().Open(t0.ID) == 2 }, "two waits held")

	r := greedy.req("GET", "/_sandbox/wait?paymentId="+pid.Str("id")+"&status=SETTLED&timeout=60s", nil)
	assert.Equal(t, 429, r.Status, "%s", r.Body)
	assert.Equal(t, "TooManyRequests", r.ErrorID())

	r = greedy.req("GET", "/_sandbox/wait?paymentId="+pid.Str("id")+"&status="+status+"&timeout=60s", nil)
	assert.Equal(t, 200, r.Status, "a satisfied wait answers before the cap: %s", r.Body)

	other := a.pay(1000, "4111111111111111").Str("id")
	r = a.req("GET", "/_sandbox/wait?paymentId="+other+"&status=SETTLED&timeout=10ms", nil)
	assert.Equal(t, 408, r.Status, "another tenant's wait runs: %s", r.Body)
	assert.Equal(t, "WaitTimeout", r.ErrorID())

	a.Server.Drain() // end the held waits (what shutdown does)
	for range 2 {
		r := <-done
		assert.Equal(t, 408, r.Status)
		assert.Equal(t, status, r.Err()["paymentStatus"], "the current state")
	}
}

// Finding 6: shutdown does not wait for clients. With a connection that sent
// nothing, a slow body and an open long-poll, Shutdown closes the first,
// cuts the second, answers the long-poll with the payment's current state,
// and finishes before its own timeout (nothing is cut by it: no warning).
func TestShutdownDoesNotWaitForClients(t *testing.T) {
	cfg := testConfig()
	cfg.ShutdownTimeout = 4 * time.Second // the wait below would hold 60s, the body 10s
	cfg.LogLevel = "warn"
	logs := &apitest.SyncBuffer{}
	a := startAppWith(t, cfg, appHooks{logOut: logs})
	pay := a.pay(1000, "4111111111111111")

	silent := dial(t, a)
	slow := dial(t, a)
	_, err := fmt.Fprintf(slow, "POST /client-session HTTP/1.1\r\nHost: localhost\r\nX-API-KEY: %s\r\nX-API-VERSION: 2.4\r\nContent-Length: 100\r\n\r\n{", simulator.DefaultAPIKey)
	require.NoError(t, err)
	waited := make(chan *resp, 1)
	go func() {
		waited <- a.req("GET", "/_sandbox/wait?paymentId="+pay.Str("id")+"&status=SETTLED&timeout=60s", nil)
	}()
	waitFor(t, func() bool { return a.Svc.OpenWaits() == 1 && a.Conns().Open() == 3 }, "the wait is held and the raw connections are in")

	require.NoError(t, a.Shutdown())
	r := <-waited
	assert.Equal(t, 408, r.Status, "%s", r.Body)
	assert.Equal(t, "WaitTimeout", r.ErrorID())
	assert.Equal(t, pay.Str("status"), r.Err()["paymentStatus"], "the wait answers the current state")
	assert.True(t, closedByServer(t, silent), "the silent connection is closed")
	assert.True(t, closedByServer(t, slow), "the slow body is cut")
	assert.NotContains(t, logs.String(), "shutdown timeout", "nothing had to be cut at the shutdown timeout")
	_, err = net.Dial("tcp", a.Addr())
	assert.Error(t, err, "the listener is closed")
}

// TestMeasureLatencyUnderAttack measures (and logs, never asserts) a normal
// client's latency while slow-body and big-header attackers hold
// connections, at a small scale. PAYSANDBOX_MEASURE=1 runs it:
//
//	PAYSANDBOX_MEASURE=1 go test ./cmd/paysandbox -run TestMeasureLatencyUnderAttack -v
func TestMeasureLatencyUnderAttack(t *testing.T) {
	if os.Getenv("PAYSANDBOX_MEASURE") != "1" {
		t.Skip("a measurement, not a test: set PAYSANDBOX_MEASURE=1")
	}
	cfg := testConfig()
	cfg.ReadTimeout = 2 * time.Second
	a := startApp(t, cfg)
	pid := a.pay(1000, "4111111111111111").Str("id")
	measure := func(name string) { // for 5s: longer than the read timeout, so attackers are cut and come back
		var lat []time.Duration
		for begin := time.Now(); time.Since(begin) < 5*time.Second; {
			t0 := time.Now()
			a.must(200, "GET", "/payments/"+pid, nil)
			lat = append(lat, time.Since(t0))
		}
		slices.Sort(lat)
		t.Logf("%s: p50 %s, p99 %s, max %s (%d requests)", name, lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1], len(lat))
	}
	measure("no attack")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	attack := func(n int, start func(net.Conn) error, trickle []byte) {
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for { // reconnect when the server cuts the connection
					select {
					case <-stop:
						return
					default:
					}
					c, err := net.Dial("tcp", a.Addr())
					if err != nil {
						time.Sleep(10 * time.Millisecond)
						continue
					}
					if start(c) == nil {
						for {
							select {
							case <-stop:
								c.Close()
								return
							case <-time.After(100 * time.Millisecond):
							}
							if _, err := c.Write(trickle); err != nil {
								break
							}
						}
					}
					c.Close()
				}
			}()
		}
	}
	attack(200, func(c net.Conn) error { // slow bodies: 1 byte every 100ms
		_, err := fmt.Fprintf(c, "POST /client-session HTTP/1.1\r\nHost: localhost\r\nX-API-KEY: %s\r\nX-API-VERSION: 2.4\r\nContent-Length: 100000\r\n\r\n", simulator.DefaultAPIKey)
		return err
	}, []byte("{"))
	big := strings.Repeat("a", 60<<10)
	attack(100, func(c net.Conn) error { // 60 KiB of headers, then stall
		_, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: %s", big)
		return err
	}, []byte("a"))
	waitFor(t, func() bool { return a.Conns().Open() >= 250 }, "the attackers are connected")
	measure(fmt.Sprintf("under attack (%d connections held)", a.Conns().Open()))
	close(stop)
	wg.Wait()
}
