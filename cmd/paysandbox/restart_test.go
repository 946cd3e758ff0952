package main

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
)

// seeded is what a test stored before a restart, and the answers it got.
type seeded struct {
	sessionToken, singleUse, paymentID, tenantKey, tenantSession string
	session, instruments, payment                                []byte
}

// seed makes one of every resource: a session, a tokenised instrument, a
// vaulted instrument, a payment, a tenant made through the API and clock
// offsets (the tenant's and the default tenant's).
func seed(a *testApp) seeded {
	a.t.Helper()
	var s seeded
	s.sessionToken = a.session(map[string]any{"orderId": "order-r", "currencyCode": "EUR", "amount": 1234, "customerId": "cust-r",
		"metadata": map[string]any{"k": "v"}, "customer": map[string]any{"emailAddress": "r@example.com"}})
	s.singleUse = a.tokenize(s.sessionToken, "4111111111111111").Str("token")
	vt := a.tokenize(s.sessionToken, "5555555555554444").Str("token")
	a.must(200, "POST", "/payment-instruments/"+vt+"/vault", map[string]any{"customerId": "cust-r", "verify": true})
	pt := a.tokenize(s.sessionToken, "4242424242424242").Str("token")
	s.paymentID = a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt}).Str("id")
	require.NotEmpty(a.t, s.paymentID)

	s.tenantKey = a.newTenant(map[string]any{"scopes": []string{"client_tokens:write"}})
	b := a.as(s.tenantKey)
	s.tenantSession = b.session(map[string]any{"orderId": "order-t"})
	b.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "3h"})
	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "10m"})

	s.session = a.must(200, "GET", "/client-session?clientToken="+s.sessionToken, nil).Body
	s.instruments = a.must(200, "GET", "/payment-instruments?customer_id=cust-r", nil).Body
	s.payment = a.must(200, "GET", "/payments/"+s.paymentID, nil).Body
	return s
}

// checkSeeded reads everything seed stored, after a restart.
func checkSeeded(t *testing.T, a *testApp, s seeded) {
	t.Helper()
	assert.JSONEq(t, string(s.session), string(a.must(200, "GET", "/client-session?clientToken="+s.sessionToken, nil).Body), "session")
	assert.JSONEq(t, string(s.instruments), string(a.must(200, "GET", "/payment-instruments?customer_id=cust-r", nil).Body), "vaulted instrument")
	assert.JSONEq(t, string(s.payment), string(a.must(200, "GET", "/payments/"+s.paymentID, nil).Body), "payment")
	v := a.must(200, "POST", "/payment-instruments/"+s.singleUse+"/vault", map[string]any{"customerId": "cust-r2"})
	assert.Equal(t, "1111", v.JSON["paymentMethodData"].(map[string]any)["last4Digits"], "tokenised instrument")

	b := a.as(s.tenantKey)
	b.must(200, "GET", "/client-session?clientToken="+s.tenantSession, nil)
	assert.Equal(t, 403, b.req("GET", "/payments", nil).Status, "the tenant keeps its scopes")
	assert.Equal(t, "2026-11-22T10:30:00.000000Z", b.must(200, "GET", "/_sandbox/clock", nil).Str("now"), "the tenant's clock offset")
	assert.Equal(t, "2026-11-22T07:40:00.000000Z", a.must(200, "GET", "/_sandbox/clock", nil).Str("now"), "the default tenant's clock offset")
}

// TestRestartKeepsEverything: Close and Open on the same file.
func TestRestartKeepsEverything(t *testing.T) {
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "restart.db")
	clk, ids := clock.NewManual(testEpoch), &idgen.Seq{}
	a := startAppWith(t, cfg, appHooks{clock: clk, ids: ids})
	s := seed(a)
	a.must(200, "GET", "/payments/"+s.paymentID, nil, "X-API-VERSION: 2.2") // a migration note, counted in memory
	require.NoError(t, a.Close())

	b := startAppWith(t, cfg, appHooks{clock: clk, ids: ids})
	checkSeeded(t, b, s)
	notes := b.must(200, "GET", "/_sandbox/migration", nil, "X-API-VERSION:").JSON["items"].([]any)
	require.Len(t, notes, 1, "shutdown stored the migration notes")
	assert.Equal(t, "answer-shape", notes[0].(map[string]any)["kind"])
	assert.EqualValues(t, 1, notes[0].(map[string]any)["count"])
	var reads float64
	for _, r := range b.must(200, "GET", "/_sandbox/report", nil).JSON["requests"].([]any) {
		if r := r.(map[string]any); r["method"] == "GET" && r["route"] == "/payments/{id}" && r["status"] == 200.0 {
			reads = r["count"].(float64)
		}
	}
	assert.NotZero(t, reads, "shutdown stored the report counts")

	t.Run("again", func(t *testing.T) {
		require.NoError(t, b.Close())
		checkSeeded(t, startAppWith(t, cfg, appHooks{clock: clk, ids: ids}), s)
	})
}

// TestKill9LosesNothing runs the real binary, kills it with SIGKILL right
// after its 200s and restarts it on the same file (default fsync).
func TestKill9LosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir, bin := buildBinary(t)
	db := filepath.Join(dir, "data", "paysandbox.db")

	p1, a := serveBinary(t, bin, db)
	tok := a.session(map[string]any{"orderId": "order-k", "currencyCode": "EUR", "amount": 999, "customerId": "cust-k"})
	vt := a.tokenize(tok, "4111111111111111").Str("token")
	vault := a.must(200, "POST", "/payment-instruments/"+vt+"/vault", map[string]any{"customerId": "cust-k"})
	pt := a.tokenize(tok, "5555555555554444").Str("token")
	pay := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt})
	require.NoError(t, p1.Process.Kill()) // SIGKILL
	_ = p1.Wait()

	_, b := serveBinary(t, bin, db)
	g := b.must(200, "GET", "/client-session?clientToken="+tok, nil)
	assert.Equal(t, "order-k", g.Str("orderId"))
	l := b.must(200, "GET", "/payment-instruments?customer_id=cust-k", nil)
	require.Len(t, l.JSON["data"], 1)
	assert.Equal(t, vault.Str("token"), l.JSON["data"].([]any)[0].(map[string]any)["token"])
	p := b.must(200, "GET", "/payments/"+pay.Str("id"), nil)
	assert.Equal(t, pay.Str("status"), p.Str("status"))
	assert.Equal(t, 999.0, p.JSON["amount"])
}

// buildBinary builds this command into a new temporary directory and answers
// the directory and the binary's path (skipped when go is not on PATH).
func buildBinary(t *testing.T) (dir, bin string) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "paysandbox")
	out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return dir, bin
}

// serveBinary starts `paysandbox serve` on a free port and waits until it is
// ready (serveBinaryEnv, webhooks_kill_test.go, with no extra environment).
func serveBinary(t *testing.T, bin, db string) (*exec.Cmd, *testApp) {
	t.Helper()
	return serveBinaryEnv(t, bin, db, nil)
}

// Graceful shutdown finishes in-flight requests: a wait that is still open
// when the shutdown starts gets its answer, and new connections are refused.
func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	a := newTestApp(t)
	pid := a.pay(1000, "4111111111111111").Str("id")
	done := make(chan *resp, 1)
	go func() {
		done <- a.req("GET", "/_sandbox/wait?paymentId="+pid+"&status=SETTLED&timeout=300ms", nil)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for a.Svc.OpenWaits() == 0 && time.Now().Before(deadline) { // the wait is in flight inside the server
		time.Sleep(time.Millisecond)
	}
	require.Equal(t, 1, a.Svc.OpenWaits())
	require.NoError(t, a.Shutdown())
	r := <-done
	assert.Equal(t, 408, r.Status, "the in-flight wait is answered, not cut: %s", r.Body)
	assert.Equal(t, "WaitTimeout", r.ErrorID())
	_, err := http.Get(a.URL() + "/healthz")
	assert.Error(t, err, "after shutdown the listener is closed")
}

// TestRestartOpensNoTenant: a restart reads the catalog only; the
// scheduler, the webhook dispatcher (its retention pass included) and the
// config's tenants open no tenant's data file, and the first request of a
// tenant opens its file alone.
func TestRestartOpensNoTenant(t *testing.T) {
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "restart.db")
	a := startAppWith(t, cfg, appHooks{})
	s := seed(a)
	other := a.as(a.newTenant(nil))
	seed(other)
	require.NoError(t, a.Close())

	b := startAppWith(t, cfg, appHooks{})
	for range 20 { // the background work has its chance to run
		require.Zero(t, b.DB.OpenTenants(), "a tenant's file opened before any request needed it")
		time.Sleep(25 * time.Millisecond)
	}
	b.must(200, "GET", "/payments/"+s.paymentID, nil)
	assert.Equal(t, 1, b.DB.OpenTenants(), "the request's tenant alone")
}
