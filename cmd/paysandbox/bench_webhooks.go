package main

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

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/webhooks"
)

// webhookBenchOptions configure runWebhookBench.
type webhookBenchOptions struct {
	Events   int           // events delivered in the throughput phase
	Payments int           // payments they are spread over (each payment's events go one at a time)
	Steady   int           // events sent one by one in the lag phase
	Interval time.Duration // between two steady events
}

// webhookBenchResult is what runWebhookBench measured.
type webhookBenchResult struct {
	Delivered  int
	Elapsed    time.Duration
	PerSecond  float64
	LagMedian  time.Duration
	LagP99     time.Duration
	LagSamples int
}

// runWebhookBench measures the dispatcher against a local receiver (answering
// 200) with an in-memory sandbox in this process: first the throughput of a
// backlog of Events PENDING events over Payments payments (deliveries per
// second from release to the last arrival), then the lag from commit to
// arrival of Steady events made one at a time on an idle dispatcher.
// `paysandbox bench --webhooks` prints it.
func runWebhookBench(ctx context.Context, opts webhookBenchOptions, out io.Writer) (webhookBenchResult, error) {
	var res webhookBenchResult
	if opts.Events <= 0 {
		opts.Events = 20000
	}
	if opts.Payments <= 0 {
		opts.Payments = 2000
	}
	if opts.Steady <= 0 {
		opts.Steady = 500
	}
	if opts.Interval <= 0 {
		opts.Interval = 2 * time.Millisecond
	}
	// The receiver notes when each event id arrives.
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	var count atomic.Int64
	all := make(chan struct{}, 1)
	var want atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	recv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		now := time.Now()
		mu.Lock()
		arrived[r.Header.Get(webhooks.HeaderEventID)] = now
		mu.Unlock()
		if count.Add(1) == want.Load() {
			select {
			case all <- struct{}{}:
			default:
			}
		}
	})}
	go func() { _ = recv.Serve(ln) }()
	defer recv.Close()

	cfg := Config{Addr: "127.0.0.1:0", DB: ":memory:", RequestTimeout: 90 * time.Second, AttemptTTL: 15 * time.Minute,
		Fsync: "never", LogFormat: "text", LogLevel: "error", WebhookURL: "http://" + ln.Addr().String() + "/"}
	app, err := Open(cfg, AppOptions{LogOut: io.Discard})
	if err != nil {
		return res, err
	}
	defer app.Close()
	if err := app.Start(); err != nil {
		return res, err
	}
	t, err := app.Svc.Tenant(simulator.DefaultTenantID)
	if err != nil {
		return res, err
	}
	p := benchPayment(t)
	seq := 0
	newEvent := func(pid string) *simulator.Event {
		seq++
		return &simulator.Event{ID: fmt.Sprintf("bench-%08d", seq), TenantID: t.ID, Type: simulator.EventPaymentStatus,
			PaymentID: pid, CreatedAt: app.Svc.Now(t), Payment: p, Status: simulator.DeliveryPending}
	}

	// Throughput: a backlog held back, then released at once.
	release := app.Webhooks.Hold(t.ID)
	want.Store(int64(opts.Events))
	for i := 0; i < opts.Events; {
		err := app.DB.Update(func(tx simulator.Tx) error {
			for j := 0; j < 500 && i < opts.Events; j, i = j+1, i+1 {
				if err := tx.AppendEvent(newEvent(fmt.Sprintf("p%05d", i%opts.Payments))); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			release()
			return res, err
		}
	}
	start := time.Now()
	release()
	select {
	case <-all:
	case <-ctx.Done():
		return res, ctx.Err()
	case <-time.After(5 * time.Minute):
		return res, fmt.Errorf("bench: only %d of %d deliveries arrived", count.Load(), opts.Events)
	}
	res.Delivered, res.Elapsed = opts.Events, time.Since(start)
	res.PerSecond = float64(opts.Events) / res.Elapsed.Seconds()

	// Lag: one event at a time on an idle dispatcher, each on its own payment.
	count.Store(0)
	want.Store(int64(opts.Steady))
	committed := map[string]time.Time{}
	for i := range opts.Steady {
		ev := newEvent(fmt.Sprintf("s%05d", i))
		if err := app.DB.Update(func(tx simulator.Tx) error { return tx.AppendEvent(ev) }); err != nil {
			return res, err
		}
		committed[ev.ID] = time.Now()
		app.Webhooks.Appended(t.ID, true) // appended without the service: tell the dispatcher
		app.Svc.Kick()
		time.Sleep(opts.Interval)
	}
	select {
	case <-all:
	case <-ctx.Done():
		return res, ctx.Err()
	case <-time.After(time.Minute):
		return res, fmt.Errorf("bench: only %d of %d steady deliveries arrived", count.Load(), opts.Steady)
	}
	var lags []time.Duration
	mu.Lock()
	for id, c := range committed {
		if a, ok := arrived[id]; ok {
			lags = append(lags, a.Sub(c))
		}
	}
	mu.Unlock()
	slices.Sort(lags)
	if len(lags) > 0 {
		res.LagSamples, res.LagMedian, res.LagP99 = len(lags), lags[len(lags)/2], lags[len(lags)*99/100]
	}
	fmt.Fprintf(out, "webhook deliveries: %d in %s = %.0f/s (%d payments, concurrency %d)\n",
		res.Delivered, res.Elapsed.Round(time.Millisecond), res.PerSecond, opts.Payments, app.Webhooks.Concurrency)
	fmt.Fprintf(out, "lag from commit to arrival (idle, %d events): median %s, p99 %s\n",
		res.LagSamples, res.LagMedian.Round(10*time.Microsecond), res.LagP99.Round(10*time.Microsecond))
	return res, nil
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
