package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
)

// The crash test runs the real binary on a db file under mixed traffic in
// several tenants at once (the default one and four made through the control
// plane, each in its own file) and kills it with SIGKILL at random moments,
// restarting it each time. At the end everything the server acknowledged to
// each tenant must be readable in the
// acknowledged state or a later one, no attempt may have two payments, and
// every event of every acknowledged payment must have reached the local
// webhook receiver at least once (the dispatcher resumes after each restart).
//
// It is not part of `go test ./...`: set PAYSANDBOX_CRASH_TEST=1 (.ci/run does).

const (
	crashKills   = 5
	crashTenants = 5 // the default tenant and four more
	crashWorkers = 10
)

// crashLedger is what the server acknowledged (a 200 that the client read).
type crashLedger struct {
	mu       sync.Mutex
	sessions map[string]string      // clientToken -> orderId
	payments map[string]*ackPayment // id -> state
	attempts map[string]*ackAttempt // id -> state
	orders   map[string]bool        // orderIds of manual flows (one payment each at most)
	acks     atomic.Int64
}

type ackPayment struct {
	status             string
	captured, refunded int64
	txns               int
}

type ackAttempt struct {
	status, paymentID string
}

// statusRank orders payment statuses along the flows of the test; a later
// read may be at the same rank or a higher one.
var statusRank = map[string]int{
	"PENDING": 0, "AUTHORIZED": 1, "PARTIALLY_SETTLED": 2, "SETTLING": 3, "SETTLED": 4,
	"DECLINED": 5, "FAILED": 5, "CANCELLED": 5,
}

// crashClient talks, as one tenant (key; "" is the default tenant), to
// whichever process is up; errors mean "not acknowledged".
type crashClient struct {
	base *atomic.Pointer[string] // shared by the clients of every tenant
	http *http.Client
	key  string
}

// newCrashClient is a client of the default tenant; as gives one of another.
func newCrashClient() *crashClient {
	return &crashClient{base: new(atomic.Pointer[string]), http: &http.Client{Timeout: 10 * time.Second}}
}

func (c *crashClient) as(key string) *crashClient {
	return &crashClient{base: c.base, http: c.http, key: key}
}

func (c *crashClient) do(method, path string, body any, hdr ...string) (int, map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, *c.base.Load()+path, rd)
	if err != nil {
		return 0, nil, err
	}
	key := c.key
	if key == "" {
		key = simulator.DefaultAPIKey
	}
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("X-API-VERSION", "2.4")
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, err
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return res.StatusCode, m, nil
}

func ackNum(v any) int64 { f, _ := v.(float64); return int64(f) }

// paymentState reads the acknowledged state out of a payment body.
func paymentState(m map[string]any) *ackPayment {
	st := &ackPayment{status: m["status"].(string)}
	if p, ok := m["processor"].(map[string]any); ok {
		st.captured, st.refunded = ackNum(p["amountCaptured"]), ackNum(p["amountRefunded"])
	}
	txs, _ := m["transactions"].([]any)
	st.txns = len(txs)
	return st
}

// flow runs one mixed flow; every 200 read is recorded in the ledger.
func (l *crashLedger) flow(c *crashClient, rng *rand.Rand, n int64) {
	manual := rng.IntN(3) == 0
	order := fmt.Sprintf("crash-%d", n)
	body := map[string]any{"orderId": order, "currencyCode": "EUR", "amount": 1000, "customerId": "crash"}
	if manual {
		body["approvalMode"] = "MANUAL"
	}
	st, m, err := c.do("POST", "/client-session", body)
	if err != nil || st != 200 {
		return
	}
	tok := m["clientToken"].(string)
	l.record(func() { l.sessions[tok] = order })
	card := map[string]any{"paymentInstrument": map[string]any{"number": "4111111111111111", "cvv": "123", "expirationMonth": "12", "expirationYear": "2030"}}
	st, m, err = c.do("POST", "/client/payment-instruments", card, "X-Client-Token", tok)
	if err != nil || st != 200 {
		return
	}
	if manual {
		att, _ := m["paymentAttemptId"].(string)
		if att == "" {
			return
		}
		l.record(func() { l.attempts[att] = &ackAttempt{status: "AWAITING_APPROVAL"}; l.orders[order] = true })
		for try := 0; try < 3; try++ { // a retry after a kill must not make a second payment
			st, m, err = c.do("POST", "/payment-attempts/"+att+"/approve", nil)
			if err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err == nil && st == 200 {
			pid := m["merchantPaymentId"].(string)
			l.record(func() { l.attempts[att] = &ackAttempt{status: "APPROVED", paymentID: pid} })
		}
		return
	}
	pt := m["token"].(string)
	key := fmt.Sprintf("k-%d", n)
	st, m, err = c.do("POST", "/payments", map[string]any{"paymentMethodToken": pt}, "X-Idempotency-Key", key+"-pay")
	if err != nil || st != 200 {
		return
	}
	pid := m["id"].(string)
	l.record(func() { l.payments[pid] = paymentState(m) })
	if m["status"] != "AUTHORIZED" || rng.IntN(4) == 0 {
		return
	}
	st, m, err = c.do("POST", "/payments/"+pid+"/capture", map[string]any{"amount": 600, "final": false}, "X-Idempotency-Key", key+"-cap")
	if err != nil || st != 200 {
		return
	}
	l.record(func() { l.payments[pid] = paymentState(m) })
	st, m, err = c.do("POST", "/payments/"+pid+"/refund", map[string]any{"amount": 100, "reason": "crash test"}, "X-Idempotency-Key", key+"-ref")
	if err != nil || st != 200 {
		return
	}
	l.record(func() { l.payments[pid] = paymentState(m) })
}

func (l *crashLedger) record(f func()) {
	l.mu.Lock()
	f()
	l.mu.Unlock()
	l.acks.Add(1)
}

// startCrashServer starts the binary on db at a free port and waits until it
// is ready.
func startCrashServer(t *testing.T, bin, db string, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	return startLoggedServer(t, bin, db, &apitest.SyncBuffer{}, extra...)
}

// startLoggedServer is startCrashServer with the server's output in out.
func startLoggedServer(t *testing.T, bin, db string, out *apitest.SyncBuffer, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr, "--db", db, "--log-level", "error"}, extra...)...)
	// Keep every delivered event, so that the end can compare all of them
	// with what the receiver got (the default keeps 1000 per tenant).
	cmd.Env = append(os.Environ(), "PAYSANDBOX_WEBHOOK_RETENTION_COUNT=1000000")
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return cmd, "http://" + addr
			}
		}
		require.True(t, time.Now().Before(deadline), "server not ready: %v\n%s", err, out.String())
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCrashKill9(t *testing.T) {
	if os.Getenv("PAYSANDBOX_CRASH_TEST") != "1" {
		t.Skip("set PAYSANDBOX_CRASH_TEST=1 (run by .ci/run)")
	}
	began := time.Now()
	dir, bin := buildBinary(t)
	t.Logf("crash_test: go build took %s", time.Since(began).Round(time.Millisecond))
	db := filepath.Join(dir, "crash.db")

	// The webhook receiver counts each X-Event-Id it got (of every tenant).
	var recvMu sync.Mutex
	received := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		recvMu.Lock()
		received[r.Header.Get("X-Event-Id")]++
		recvMu.Unlock()
		w.WriteHeader(200)
	}))
	defer recv.Close()
	extra := []string{"--webhook-url", recv.URL}

	c := newCrashClient()
	proc, base := startCrashServer(t, bin, db, extra...)
	c.base.Store(&base)
	// The default tenant and crashTenants-1 made through the control plane,
	// each in its own file, all loaded at once.
	tenants := []*crashTenant{{name: "default", c: c, l: newCrashLedger()}}
	for i := 1; i < crashTenants; i++ {
		st, m, err := c.do("POST", "/_sandbox/tenants", map[string]any{"webhookUrl": recv.URL})
		require.NoError(t, err)
		require.Equal(t, 201, st, "%v", m)
		tenants = append(tenants, &crashTenant{name: m["tenantId"].(string), c: c.as(m["apiKey"].(string)), l: newCrashLedger()})
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	var seq atomic.Int64
	for w := range crashWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tn := tenants[w%len(tenants)]
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for !stop.Load() {
				tn.l.flow(tn.c, rng, seq.Add(1))
			}
		}()
	}
	acks := func() (n int64) {
		for _, tn := range tenants {
			n += tn.l.acks.Load()
		}
		return n
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for k := range crashKills {
		// Traffic, then a kill at a random moment. The window is short: the
		// final check lists each payment's events, and that query scans all of
		// the tenant's events, so its cost grows with the square of the traffic
		// (300-1000 ms windows made ~4,000 events and a 40 s check).
		time.Sleep(time.Duration(200+rng.IntN(400)) * time.Millisecond)
		require.NoError(t, proc.Process.Signal(syscall.SIGKILL))
		_ = proc.Wait()
		t.Logf("crash_test: kill %d after %d acknowledged results", k+1, acks())
		proc, base = startCrashServer(t, bin, db, extra...)
		c.base.Store(&base)
	}
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()

	began = time.Now()
	defer func() { t.Logf("crash_test: the final checks took %s", time.Since(began).Round(time.Millisecond)) }()
	attempts := 0
	for _, tn := range tenants {
		t.Run(tn.name, func(t *testing.T) {
			tn.l.check(t, tn.c)
			checkEventsDelivered(t, tn.c, tn.l, &recvMu, received)
		})
		attempts += len(tn.l.attempts)
	}
	require.NotZero(t, attempts, "the traffic must have produced attempts")

	// A clean SIGTERM of the idle server: exit 0, and how long it took.
	start := time.Now()
	require.NoError(t, proc.Process.Signal(syscall.SIGTERM))
	err := proc.Wait()
	took := time.Since(start)
	assert.NoError(t, err, "SIGTERM exits 0")
	t.Logf("crash_test: idle shutdown took %s", took.Round(time.Millisecond))
}

// crashTenant is one tenant of the crash test: its client and ledger.
type crashTenant struct {
	name string
	c    *crashClient
	l    *crashLedger
}

func newCrashLedger() *crashLedger {
	return &crashLedger{sessions: map[string]string{}, payments: map[string]*ackPayment{}, attempts: map[string]*ackAttempt{}, orders: map[string]bool{}}
}

// check reads back, through c, everything the ledger holds: each result
// in its acknowledged state or a later one, at most one payment per manual
// order.
func (l *crashLedger) check(t *testing.T, c *crashClient) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Logf("crash_test: %d acknowledged results: %d sessions, %d payments, %d attempts",
		l.acks.Load(), len(l.sessions), len(l.payments), len(l.attempts))
	require.NotEmpty(t, l.payments, "the traffic must have produced payments")

	var lost atomic.Int64
	checkEach(keysOf(l.sessions), func(tok string) {
		order := l.sessions[tok]
		st, m, err := c.do("GET", "/client-session?clientToken="+tok, nil)
		if !assert.NoError(t, err) || !assert.Equal(t, 200, st, "session %s: %v", tok, m) || !assert.Equal(t, order, m["orderId"]) {
			lost.Add(1)
		}
	})
	checkEach(keysOf(l.payments), func(id string) {
		ack := l.payments[id]
		st, m, err := c.do("GET", "/payments/"+id, nil)
		if !assert.NoError(t, err) || !assert.Equal(t, 200, st, "payment %s: %v", id, m) {
			lost.Add(1)
			return
		}
		got := paymentState(m)
		ok := assert.GreaterOrEqual(t, statusRank[got.status], statusRank[ack.status], "payment %s went back from %s to %s", id, ack.status, got.status) &&
			assert.GreaterOrEqual(t, got.captured, ack.captured, "payment %s captured", id) &&
			assert.GreaterOrEqual(t, got.refunded, ack.refunded, "payment %s refunded", id) &&
			assert.GreaterOrEqual(t, got.txns, ack.txns, "payment %s transactions", id)
		if !ok {
			lost.Add(1)
		}
	})
	checkEach(keysOf(l.attempts), func(id string) {
		ack := l.attempts[id]
		st, m, err := c.do("GET", "/_sandbox/payment-attempts/"+id, nil)
		if !assert.NoError(t, err) || !assert.Equal(t, 200, st, "attempt %s: %v", id, m) {
			lost.Add(1)
			return
		}
		if ack.status == "APPROVED" {
			assert.Equal(t, "APPROVED", m["status"], "attempt %s", id)
			assert.Equal(t, ack.paymentID, m["paymentId"], "attempt %s keeps its one payment", id)
			st, _, err := c.do("GET", "/payments/"+ack.paymentID, nil)
			assert.NoError(t, err)
			assert.Equal(t, 200, st, "the approved attempt's payment %s", ack.paymentID)
		}
	})
	checkEach(keysOf(l.orders), func(order string) { // one manual session, one attempt, at most one payment
		st, m, err := c.do("GET", "/payments?order_id="+order, nil)
		if !assert.NoError(t, err) || !assert.Equal(t, 200, st, "%v", m) {
			return
		}
		data, _ := m["data"].([]any)
		assert.LessOrEqual(t, len(data), 1, "order %s has %d payments", order, len(data))
	})
	assert.Zero(t, lost.Load(), "acknowledged results lost or gone back")
}

// checkEventsDelivered compares the events the sandbox made for the
// acknowledged payments with the X-Event-Ids the receiver got: each at least
// once. It first lets the dispatcher of the last process finish what the
// kills left pending (the receiver always answers 200, so nothing waits for a
// retry on the tenant clock); it does not force deliveries with
// /_sandbox/webhooks/deliver, so a delivery the restarts failed to resume
// shows as missing.
func checkEventsDelivered(t *testing.T, c *crashClient, l *crashLedger, mu *sync.Mutex, received map[string]int) {
	t.Helper()
	pendingAtEnd := -1
	began := time.Now()
	deadline := began.Add(30 * time.Second)
	for {
		st, m, err := c.do("GET", "/_sandbox/webhooks/events?status=PENDING&limit=1000", nil)
		require.NoError(t, err)
		require.Equal(t, 200, st, "%v", m)
		data, _ := m["data"].([]any)
		if pendingAtEnd < 0 {
			pendingAtEnd = len(data)
			for _, e := range data {
				t.Logf("crash_test: pending when the check began: %v", e)
			}
		}
		if len(data) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("crash_test: waiting for pending deliveries took %s", time.Since(began).Round(time.Millisecond))
	type ackedPayment struct {
		id       string
		refunded bool
	}
	var pays []ackedPayment
	for id, ack := range l.payments {
		pays = append(pays, ackedPayment{id, ack.refunded > 0})
	}
	for _, a := range l.attempts {
		if a.paymentID != "" {
			pays = append(pays, ackedPayment{a.paymentID, false})
		}
	}
	var (
		idsMu                   sync.Mutex
		ids                     []string
		noEvents, noRefundEvent atomic.Int64
	)
	refunded := map[string]bool{}
	for _, p := range pays {
		refunded[p.id] = refunded[p.id] || p.refunded
	}
	checkEach(keysOf(refunded), func(id string) { // per payment: a few events each, no paging needed
		st, m, err := c.do("GET", "/_sandbox/webhooks/events?paymentId="+id, nil)
		if !assert.NoError(t, err) || !assert.Equal(t, 200, st, "%v", m) {
			return
		}
		data, _ := m["data"].([]any)
		refund := false
		idsMu.Lock()
		for _, e := range data {
			ev := e.(map[string]any)
			ids = append(ids, ev["id"].(string))
			refund = refund || ev["eventType"] == "PAYMENT.REFUND"
		}
		idsMu.Unlock()
		if len(data) == 0 { // every payment has at least its first PAYMENT.STATUS
			noEvents.Add(1)
		}
		if refunded[id] && !refund { // written in the refund's own transaction
			noRefundEvent.Add(1)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	missing, repeated := 0, 0
	for _, id := range ids {
		switch n := received[id]; {
		case n == 0:
			missing++
		case n > 1:
			repeated++
		}
	}
	t.Logf("crash_test: webhooks: %d events of %d acknowledged payments (%d still pending when the check began), %d distinct X-Event-Ids received, %d delivered more than once, %d missing",
		len(ids), len(refunded), pendingAtEnd, len(received), repeated, missing)
	assert.Zero(t, noEvents.Load(), "acknowledged payments without any event")
	assert.Zero(t, noRefundEvent.Load(), "acknowledged refunds without a PAYMENT.REFUND event")
	assert.Zero(t, missing, "every event is delivered at least once")
}

// keysOf returns the keys of m.
func keysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// checkEach calls f for every key from a few goroutines: the final reads
// are thousands of independent GETs.
func checkEach(keys []string, f func(string)) {
	next := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				f(k)
			}
		}()
	}
	for _, k := range keys {
		next <- k
	}
	close(next)
	wg.Wait()
}
