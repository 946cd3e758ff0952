package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysandbox/paysandbox/app"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/webhooks"
)

// WebhookOptions configure Webhooks.
type WebhookOptions struct {
	Events   int           // events delivered in the throughput phase
	Payments int           // payments they are spread over (each payment's events go one at a time)
	Steady   int           // events sent one by one in the lag phase
	Interval time.Duration // between two steady events
}

// WebhookResult is what Webhooks measured.
type WebhookResult struct {
	Delivered  int
	Elapsed    time.Duration
	PerSecond  float64
	LagMedian  time.Duration
	LagP99     time.Duration
	LagSamples int
}

// Webhooks measures the dispatcher against a local receiver (answering
// 200) with an in-memory sandbox in this process: first the throughput of a
// backlog of Events PENDING events over Payments payments (deliveries per
// second from release to the last arrival), then the lag from commit to
// arrival of Steady events made one at a time on an idle dispatcher.
// `paysandbox bench --webhooks` prints it.
func Webhooks(ctx context.Context, opts WebhookOptions, out io.Writer) (WebhookResult, error) {
	var res WebhookResult
	opts = opts.withDefaults()
	recv, err := startBenchReceiver()
	if err != nil {
		return res, err
	}
	defer recv.Close()

	cfg := app.Config{Addr: "127.0.0.1:0", DB: ":memory:", RequestTimeout: 90 * time.Second, AttemptTTL: 15 * time.Minute,
		Fsync: "never", LogFormat: "text", LogLevel: "error", WebhookURL: recv.URL()}
	srv, err := app.Open(cfg, app.Options{LogOut: io.Discard})
	if err != nil {
		return res, err
	}
	defer srv.Close()
	if err := srv.Start(); err != nil {
		return res, err
	}
	t, err := srv.Svc.Tenant(simulator.DefaultTenantID)
	if err != nil {
		return res, err
	}
	b := &webhookBench{srv: srv, t: t, recv: recv, p: benchPayment(t)}
	if err := b.throughput(ctx, opts, &res); err != nil {
		return res, err
	}
	if err := b.lag(ctx, opts, &res); err != nil {
		return res, err
	}
	fmt.Fprintf(out, "webhook deliveries: %d in %s = %.0f/s (%d payments, concurrency %d)\n",
		res.Delivered, res.Elapsed.Round(time.Millisecond), res.PerSecond, opts.Payments, srv.Webhooks.Concurrency)
	fmt.Fprintf(out, "lag from commit to arrival (idle, %d events): median %s, p99 %s\n",
		res.LagSamples, res.LagMedian.Round(10*time.Microsecond), res.LagP99.Round(10*time.Microsecond))
	return res, nil
}

// withDefaults is o with every zero or negative field set to its default.
func (o WebhookOptions) withDefaults() WebhookOptions {
	if o.Events <= 0 {
		o.Events = 20000
	}
	if o.Payments <= 0 {
		o.Payments = 2000
	}
	if o.Steady <= 0 {
		o.Steady = 500
	}
	if o.Interval <= 0 {
		o.Interval = 2 * time.Millisecond
	}
	return o
}

// benchReceiver is the webhook endpoint of the bench: it answers 200, notes
// when each event id arrives, and signals all once want deliveries arrived.
type benchReceiver struct {
	*http.Server
	ln      net.Listener
	mu      sync.Mutex
	arrived map[string]time.Time
	count   atomic.Int64
	want    atomic.Int64
	all     chan struct{}
}

// startBenchReceiver serves a benchReceiver on a local port until Close.
func startBenchReceiver() (*benchReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &benchReceiver{ln: ln, arrived: map[string]time.Time{}, all: make(chan struct{}, 1)}
	r.Server = &http.Server{Handler: http.HandlerFunc(r.serve)}
	go func() { _ = r.Serve(ln) }()
	return r, nil
}

// URL is the receiver's webhook URL.
func (r *benchReceiver) URL() string { return "http://" + r.ln.Addr().String() + "/" }

// serve answers one delivery: 200, its arrival noted.
func (r *benchReceiver) serve(w http.ResponseWriter, req *http.Request) {
	_, _ = io.Copy(io.Discard, req.Body)
	now := time.Now()
	r.mu.Lock()
	r.arrived[req.Header.Get(webhooks.HeaderEventID)] = now
	r.mu.Unlock()
	if r.count.Add(1) == r.want.Load() {
		select {
		case r.all <- struct{}{}:
		default:
		}
	}
}

// expect starts counting arrivals again, up to n.
func (r *benchReceiver) expect(n int) {
	r.count.Store(0)
	r.want.Store(int64(n))
}

// await returns once the expected deliveries arrived, or an error naming
// what ("deliveries", "steady deliveries") when ctx ends or limit passes.
func (r *benchReceiver) await(ctx context.Context, limit time.Duration, n int, what string) error {
	select {
	case <-r.all:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(limit):
		return fmt.Errorf("bench: only %d of %d %s arrived", r.count.Load(), n, what)
	}
}

// webhookBench is one run of Webhooks: the server, its default tenant,
// the receiver, and the payment every event carries.
type webhookBench struct {
	srv  *app.App
	t    *simulator.Tenant
	recv *benchReceiver
	p    *simulator.Payment
	seq  int
}

// newEvent is the next PENDING PAYMENT.STATUS event of payment pid
// (ids bench-00000001, bench-00000002, ...).
func (b *webhookBench) newEvent(pid string) *simulator.Event {
	b.seq++
	return &simulator.Event{ID: fmt.Sprintf("bench-%08d", b.seq), TenantID: b.t.ID, Type: simulator.EventPaymentStatus,
		PaymentID: pid, CreatedAt: b.srv.Svc.Now(b.t), Payment: b.p, Status: simulator.DeliveryPending}
}

// throughput appends a backlog of opts.Events events held back, releases it
// at once, and sets res's Delivered, Elapsed and PerSecond.
func (b *webhookBench) throughput(ctx context.Context, opts WebhookOptions, res *WebhookResult) error {
	release := b.srv.Webhooks.Hold(b.t.ID)
	b.recv.want.Store(int64(opts.Events))
	for i := 0; i < opts.Events; {
		err := b.srv.DB.Update(func(tx simulator.Tx) error {
			for j := 0; j < 500 && i < opts.Events; j, i = j+1, i+1 {
				if err := tx.AppendEvent(b.newEvent(fmt.Sprintf("p%05d", i%opts.Payments))); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			release()
			return err
		}
	}
	start := time.Now()
	release()
	if err := b.recv.await(ctx, 5*time.Minute, opts.Events, "deliveries"); err != nil {
		return err
	}
	res.Delivered, res.Elapsed = opts.Events, time.Since(start)
	res.PerSecond = float64(opts.Events) / res.Elapsed.Seconds()
	return nil
}

// lag sends opts.Steady events one at a time on an idle dispatcher, each on
// its own payment, and sets res's lag figures from commit to arrival.
func (b *webhookBench) lag(ctx context.Context, opts WebhookOptions, res *WebhookResult) error {
	b.recv.expect(opts.Steady)
	committed := map[string]time.Time{}
	for i := range opts.Steady {
		ev := b.newEvent(fmt.Sprintf("s%05d", i))
		if err := b.srv.DB.Update(func(tx simulator.Tx) error { return tx.AppendEvent(ev) }); err != nil {
			return err
		}
		committed[ev.ID] = time.Now()
		b.srv.Webhooks.Appended(b.t.ID, true) // appended without the service: tell the dispatcher
		b.srv.Svc.Kick()
		time.Sleep(opts.Interval)
	}
	if err := b.recv.await(ctx, time.Minute, opts.Steady, "steady deliveries"); err != nil {
		return err
	}
	var lags []time.Duration
	b.recv.mu.Lock()
	for id, c := range committed {
		if a, ok := b.recv.arrived[id]; ok {
			lags = append(lags, a.Sub(c))
		}
	}
	b.recv.mu.Unlock()
	slices.Sort(lags)
	if len(lags) > 0 {
		res.LagSamples, res.LagMedian, res.LagP99 = len(lags), lags[len(lags)/2], lags[len(lags)*99/100]
	}
	return nil
}

// benchPayment is a realistic payment for PAYMENT.STATUS events (their
// bodies are rendered from it when they are sent).
func benchPayment(t *simulator.Tenant) *simulator.Payment {
	amt := int64(1000)
	p := &simulator.Payment{
		ID: "pay_bench", TenantID: t.ID, Status: simulator.StatusAuthorized, OrderID: "order-bench", CurrencyCode: "EUR",
		Amount: 1000, CustomerID: "cust-bench", Customer: &simulator.Customer{EmailAddress: "bench@example.com"},
		PaymentMethod: simulator.PaymentMethod{PaymentMethodToken: "tok_bench", PaymentMethodType: simulator.PaymentMethodTypeCard,
			Data: simulator.CardData{Last4Digits: "1111", ExpirationMonth: "12", ExpirationYear: "2030", Network: "Visa",
				BinData: simulator.BinData{Network: "VISA", RegionalRestriction: "UNKNOWN", AccountNumberType: "PRIMARY_ACCOUNT_NUMBER",
					AccountFundingType: "CREDIT", PrepaidReloadableIndicator: "NOT_APPLICABLE", ProductUsageType: "CONSUMER"}}},
		Processor: &simulator.ProcessorState{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe"},
		Transactions: []simulator.Transaction{{Type: simulator.TxnSale, Amount: 1000, CurrencyCode: "EUR",
			ProcessorStatus: simulator.StatusAuthorized, ProcessorName: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe",
			ProcessorTransactionID: "txn_bench", AuthorizationCode: "A00001",
			Events: []simulator.TransactionEvent{{ID: "ev", Type: simulator.EventAuthorizationSucceeded, Amount: &amt}}}},
	}
	return p
}
