package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// benchFlow is one kind of load. setup runs once per target (not measured);
// run is one flow of one client, its requests recorded per endpoint. A new
// load (webhook delivery, journal) is a new entry in benchFlows plus, if it
// needs a receiver or a server option, a field of Options.
type benchFlow struct {
	help  string
	setup func(ctx context.Context, c *benchClient, opts *Options) (*benchState, error)
	run   func(ctx context.Context, c *benchClient, st *benchState, w *benchWorker) error
}

// benchState is what setup prepared: the bench tenant's key, for reads the
// payments to read, for writes the single-use tokens to pay with.
type benchState struct {
	key      string
	payments []string
	tokens   []string
	next     *atomic.Int64 // the next token to use
	reuse    bool          // the ceiling's: tokens go round again (it consumes nothing)
}

// errBenchExhausted ends a worker's load: every pre-created token is used.
var errBenchExhausted = errors.New("bench: every pre-created token is used")

// forCeiling is the same state for the ceiling, which answers any key, id
// or token: the same requests, tokens used round robin.
func (s *benchState) forCeiling() *benchState {
	return &benchState{key: s.key, payments: s.payments, tokens: s.tokens, next: new(atomic.Int64), reuse: true}
}

// exhausted reports whether a load of single-use tokens has used them all.
func (s *benchState) exhausted() bool {
	return s.next != nil && !s.reuse && s.next.Load() >= int64(len(s.tokens))
}

// benchFlows are the loads of --flow.
var benchFlows = map[string]benchFlow{
	"read": {
		help:  "GET /payments/{id} over payments created first",
		setup: setupWithPayments,
		run:   readFlow,
	},
	"write": {
		help:  "POST /payments alone, each with a fresh single-use token created first (--tokens of them; the load ends when they run out)",
		setup: setupWithTokens,
		run:   writeFlow,
	},
	"auto": {
		help:  "AUTO checkout: POST /client-session, POST /client/payment-instruments, POST /payments (authorized at once), capture",
		setup: setupTenant,
		run:   autoFlow,
	},
	"manual": {
		help:  "MANUAL checkout: session, tokenise (attempt), approve, wait for AUTHORIZED, capture",
		setup: setupTenant,
		run:   manualFlow,
	},
	"mixed": {
		help:  "3 reads for every AUTO checkout",
		setup: setupWithPayments,
		run: func(ctx context.Context, c *benchClient, st *benchState, w *benchWorker) error {
			if w.n%4 == 3 {
				return autoFlow(ctx, c, st, w)
			}
			return readFlow(ctx, c, st, w)
		},
	},
}

// FlowNames lists the flows --flow takes, sorted, separated by " | ".
func FlowNames() string {
	var names []string
	for n := range benchFlows {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, " | ")
}

// benchLabels are the endpoints the flows call (the ceiling answers them all).
var benchLabels = []string{"POST /_sandbox/tenants", "POST /client-session", "POST /client/payment-instruments",
	"POST /payments", "GET /payments/{id}", "POST /payments/{id}/capture", "POST /payment-attempts/{id}/approve", "GET /_sandbox/wait"}

// benchClient calls one target and records each request under its endpoint label.
type benchClient struct {
	base string
	http *http.Client
}

// benchIDs are the response fields the flows carry from one request to the next.
type benchIDs struct {
	ID                string `json:"id"`
	APIKey            string `json:"apiKey"`
	ClientToken       string `json:"clientToken"`
	Token             string `json:"token"`
	PaymentAttemptID  string `json:"paymentAttemptId"`
	MerchantPaymentID string `json:"merchantPaymentId"`
}

// benchError is a non-2xx answer (or a transport error: errorId "transport").
type benchError struct {
	label, errorID string
	status         int
}

func (e *benchError) Error() string {
	return fmt.Sprintf("%s: %d %s", e.label, e.status, e.errorID)
}

// call sends one request and decodes the fields of benchIDs from a 2xx answer.
func (c *benchClient) call(ctx context.Context, rec *benchRecorder, label, method, path string, hdr []string, body []byte) (benchIDs, error) {
	var ids benchIDs
	err := c.do(ctx, rec, label, method, path, hdr, body, &ids)
	return ids, err
}

// send is call for a flow's last step, whose answer it does not decode (the
// load generator shares the machine with the servers it measures).
func (c *benchClient) send(ctx context.Context, rec *benchRecorder, label, method, path string, hdr []string, body []byte) error {
	return c.do(ctx, rec, label, method, path, hdr, body, nil)
}

func (c *benchClient) do(ctx context.Context, rec *benchRecorder, label, method, path string, hdr []string, body []byte, ids *benchIDs) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	start := time.Now()
	res, err := c.http.Do(req)
	if err != nil {
		rec.fail(label, "transport")
		return &benchError{label: label, errorID: "transport: " + err.Error()}
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	took := time.Since(start)
	if err != nil {
		rec.fail(label, "transport")
		return &benchError{label: label, errorID: "transport: " + err.Error(), status: res.StatusCode}
	}
	if res.StatusCode/100 != 2 {
		var env struct {
			Error struct {
				ErrorID string `json:"errorId"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &env)
		id := env.Error.ErrorID
		if id == "" {
			id = fmt.Sprintf("HTTP %d", res.StatusCode)
		}
		rec.fail(label, id)
		return &benchError{label: label, errorID: id, status: res.StatusCode}
	}
	rec.ok(label, took, raw)
	if ids == nil {
		return nil
	}
	if err := json.Unmarshal(raw, ids); err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	return nil
}

// Request bodies of the flows.
var (
	benchSessionAuto   = []byte(`{"orderId":"bench","currencyCode":"EUR","amount":1000}`)
	benchSessionManual = []byte(`{"orderId":"bench","currencyCode":"EUR","amount":1000,"approvalMode":"MANUAL"}`)
	benchCard          = []byte(`{"paymentInstrument":{"number":"4111111111111111","cvv":"123","expirationMonth":"12","expirationYear":"2030","cardholderName":"Bench"}}`)
	benchEmpty         = []byte(`{}`)
)

func merchantHeaders(key string) []string { return []string{"X-API-KEY", key, "X-API-VERSION", "2.4"} }

// setupTenant makes the bench's own tenant (so it neither sees nor disturbs other data).
func setupTenant(ctx context.Context, c *benchClient, opts *Options) (*benchState, error) {
	var hdr []string
	if opts.AdminKey != "" {
		hdr = []string{"X-Admin-Key", opts.AdminKey}
	}
	ids, err := c.call(ctx, &benchRecorder{}, "POST /_sandbox/tenants", "POST", "/_sandbox/tenants", hdr, []byte(`{"ttl":"2h"}`))
	if err != nil {
		return nil, fmt.Errorf("creating the bench tenant: %w", err)
	}
	return &benchState{key: ids.APIKey}, nil
}

// setupWithPayments makes the tenant and opts.ReadPayments authorized
// payments to read, opts.Concurrency at a time.
func setupWithPayments(ctx context.Context, c *benchClient, opts *Options) (*benchState, error) {
	st, err := setupTenant(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	st.payments = make([]string, opts.ReadPayments)
	err = inParallel(ctx, opts.ReadPayments, opts.Concurrency, func(w *benchWorker, n int) (err error) {
		st.payments[n], err = checkout(ctx, c, st, w, false)
		return err
	})
	return st, err
}

// inParallel runs do for 0..n-1, conc at a time, and returns the first errors.
func inParallel(ctx context.Context, n, conc int, do func(w *benchWorker, i int) error) error {
	var next atomic.Int64
	errs := make([]error, conc)
	var wg sync.WaitGroup
	for i := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &benchWorker{rec: &benchRecorder{}}
			for k := next.Add(1) - 1; k < int64(n) && ctx.Err() == nil; k = next.Add(1) - 1 {
				if err := do(w, int(k)); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(append(errs, ctx.Err())...)
}

// setupWithTokens makes the tenant and opts.Tokens single-use tokens (a
// client session and a tokenised card each), opts.Concurrency at a time.
func setupWithTokens(ctx context.Context, c *benchClient, opts *Options) (*benchState, error) {
	st, err := setupTenant(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	st.tokens, st.next = make([]string, opts.Tokens), new(atomic.Int64)
	err = inParallel(ctx, opts.Tokens, opts.Concurrency, func(w *benchWorker, n int) error {
		cs, err := c.call(ctx, w.rec, "POST /client-session", "POST", "/client-session", merchantHeaders(st.key), benchSessionAuto)
		if err != nil {
			return err
		}
		tok, err := c.call(ctx, w.rec, "POST /client/payment-instruments", "POST", "/client/payment-instruments",
			[]string{"X-Client-Token", cs.ClientToken}, benchCard)
		st.tokens[n] = tok.Token
		return err
	})
	return st, err
}

// writeFlow pays with the next token: POST /payments, authorized at once.
func writeFlow(ctx context.Context, c *benchClient, st *benchState, w *benchWorker) error {
	i := st.next.Add(1) - 1
	if i >= int64(len(st.tokens)) {
		if !st.reuse {
			return errBenchExhausted
		}
		i %= int64(len(st.tokens))
	}
	return c.send(ctx, w.rec, "POST /payments", "POST", "/payments", merchantHeaders(st.key), []byte(`{"paymentMethodToken":"`+st.tokens[i]+`"}`))
}

func readFlow(ctx context.Context, c *benchClient, st *benchState, w *benchWorker) error {
	id := st.payments[w.n%len(st.payments)]
	return c.send(ctx, w.rec, "GET /payments/{id}", "GET", "/payments/"+id, merchantHeaders(st.key), nil)
}

func autoFlow(ctx context.Context, c *benchClient, st *benchState, w *benchWorker) error {
	_, err := checkout(ctx, c, st, w, true)
	return err
}

// checkout runs session, tokenise and POST /payments (authorized at once)
// and, with capture, captures the payment; it returns the payment id.
func checkout(ctx context.Context, c *benchClient, st *benchState, w *benchWorker, capture bool) (string, error) {
	mh := merchantHeaders(st.key)
	cs, err := c.call(ctx, w.rec, "POST /client-session", "POST", "/client-session", mh, benchSessionAuto)
	if err != nil {
		return "", err
	}
	tok, err := c.call(ctx, w.rec, "POST /client/payment-instruments", "POST", "/client/payment-instruments",
		[]string{"X-Client-Token", cs.ClientToken}, benchCard)
	if err != nil {
		return "", err
	}
	p, err := c.call(ctx, w.rec, "POST /payments", "POST", "/payments", mh, []byte(`{"paymentMethodToken":"`+tok.Token+`"}`))
	if err != nil {
		return "", err
	}
	if capture {
		if err := c.send(ctx, w.rec, "POST /payments/{id}/capture", "POST", "/payments/"+p.ID+"/capture", mh, benchEmpty); err != nil {
			return "", err
		}
	}
	return p.ID, nil
}

func manualFlow(ctx context.Context, c *benchClient, st *benchState, w *benchWorker) error {
	mh := merchantHeaders(st.key)
	cs, err := c.call(ctx, w.rec, "POST /client-session", "POST", "/client-session", mh, benchSessionManual)
	if err != nil {
		return err
	}
	tok, err := c.call(ctx, w.rec, "POST /client/payment-instruments", "POST", "/client/payment-instruments",
		[]string{"X-Client-Token", cs.ClientToken}, benchCard)
	if err != nil {
		return err
	}
	ap, err := c.call(ctx, w.rec, "POST /payment-attempts/{id}/approve", "POST", "/payment-attempts/"+tok.PaymentAttemptID+"/approve", mh, benchEmpty)
	if err != nil {
		return err
	}
	ctl := []string{"X-API-KEY", st.key}
	if err := c.send(ctx, w.rec, "GET /_sandbox/wait", "GET", "/_sandbox/wait?paymentId="+ap.MerchantPaymentID+"&status=AUTHORIZED&timeout=30s", ctl, nil); err != nil {
		return err
	}
	return c.send(ctx, w.rec, "POST /payments/{id}/capture", "POST", "/payments/"+ap.MerchantPaymentID+"/capture", mh, benchEmpty)
}

// benchWorker is one concurrent client: its own recorder, its flow count.
type benchWorker struct {
	rec  *benchRecorder
	n    int // index of the current flow (spreads reads over the payments)
	done int // flows completed
}

// benchRecorder collects one worker's measurements (no locking: merged at the end).
type benchRecorder struct {
	eps map[string]*endpointStats
}

type endpointStats struct {
	lat     []time.Duration
	errors  map[string]int
	bodyLen int
	body    []byte // the first successful answer (what the ceiling answers)
}

func (r *benchRecorder) ep(label string) *endpointStats {
	if r.eps == nil {
		r.eps = map[string]*endpointStats{}
	}
	e := r.eps[label]
	if e == nil {
		e = &endpointStats{errors: map[string]int{}}
		r.eps[label] = e
	}
	return e
}

func (r *benchRecorder) ok(label string, d time.Duration, body []byte) {
	e := r.ep(label)
	e.lat = append(e.lat, d)
	e.bodyLen = len(body)
	if e.body == nil {
		e.body = body
	}
}

func (r *benchRecorder) fail(label, errorID string) { r.ep(label).errors[errorID]++ }

// loadResult is one load run: every worker's measurements and the flow counts.
type loadResult struct {
	elapsed     time.Duration
	cpu         time.Duration // CPU time of this process (the load generator) during the load
	serverPID   int           // the server's process, 0 if bench did not start it
	serverCPU   time.Duration // its CPU time during the load
	cpuErr      error         // why serverCPU is unknown
	slices      int           // runs merged into this one
	flows       int
	failedFlows int
	firstError  string
	eps         map[string]*endpointStats
}

// runLoad runs opts.Concurrency clients doing flows (one each at least) until d passes or the
// state's tokens run out, and measures the CPU time of the server process
// pid over it (pid 0: not a process bench started).
func runLoad(ctx context.Context, c *benchClient, flow benchFlow, st *benchState, opts *Options, d time.Duration, pid int) *loadResult {
	workers := make([]*benchWorker, opts.Concurrency)
	fails := make([]int, opts.Concurrency)
	firstErr := make([]string, opts.Concurrency)
	cpu0 := processCPU()
	scpu0, cpuErr := serverCPU(pid)
	start := time.Now()
	end := start.Add(d)
	var wg sync.WaitGroup
	for i := range workers {
		w := &benchWorker{rec: &benchRecorder{}, n: i}
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Every worker runs one flow at least: runLoad with d 0 is a warm-up.
			for n := i; (n == i || time.Now().Before(end)) && ctx.Err() == nil; n += opts.Concurrency {
				w.n = n
				if err := flow.run(ctx, c, st, w); err != nil {
					if errors.Is(err, errBenchExhausted) {
						return
					}
					fails[i]++
					if firstErr[i] == "" {
						firstErr[i] = err.Error()
					}
					continue
				}
				w.done++
			}
		}()
	}
	wg.Wait()
	res := &loadResult{slices: 1, elapsed: time.Since(start), cpu: processCPU() - cpu0, serverPID: pid, cpuErr: cpuErr, eps: map[string]*endpointStats{}}
	if cpuErr == nil {
		scpu1, err := serverCPU(pid)
		res.serverCPU, res.cpuErr = scpu1-scpu0, err
	}
	for i, w := range workers {
		res.failedFlows += fails[i]
		res.flows += w.done
		if res.firstError == "" {
			res.firstError = firstErr[i]
		}
		for label, e := range w.rec.eps {
			m := res.eps[label]
			if m == nil {
				m = &endpointStats{errors: map[string]int{}}
				res.eps[label] = m
			}
			m.lat = append(m.lat, e.lat...)
			for k, v := range e.errors {
				m.errors[k] += v
			}
			if e.bodyLen > 0 {
				m.bodyLen = e.bodyLen
			}
			if m.body == nil {
				m.body = e.body
			}
		}
	}
	for _, m := range res.eps {
		slices.Sort(m.lat)
	}
	return res
}

// add merges another run of the same load into r (nil: none yet) and returns r.
func (r *loadResult) add(o *loadResult) *loadResult {
	if r == nil {
		return o
	}
	r.slices += o.slices
	r.elapsed += o.elapsed
	r.cpu += o.cpu
	r.serverCPU += o.serverCPU
	if r.cpuErr == nil {
		r.cpuErr = o.cpuErr
	}
	r.flows += o.flows
	r.failedFlows += o.failedFlows
	if r.firstError == "" {
		r.firstError = o.firstError
	}
	for label, e := range o.eps {
		m := r.eps[label]
		if m == nil {
			r.eps[label] = e
			continue
		}
		m.lat = append(m.lat, e.lat...)
		for k, v := range e.errors {
			m.errors[k] += v
		}
		if e.bodyLen > 0 {
			m.bodyLen = e.bodyLen
		}
	}
	for _, m := range r.eps {
		slices.Sort(m.lat)
	}
	return r
}

// bodies is a successful answer per endpoint (what the ceiling answers).
func (r *loadResult) bodies() map[string][]byte {
	out := map[string][]byte{}
	for label, e := range r.eps {
		if e.body != nil {
			out[label] = e.body
		}
	}
	return out
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
