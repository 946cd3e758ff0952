package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// benchSeedOptions are the flags of `paysandbox bench seed`.
type benchSeedOptions struct {
	DB       string
	Payments int
	Batch    int
	// KeepEvents is the webhook retention bound the file is written under
	// (the tenant has no endpoint, so its events are finished when made):
	// only the events of the newest checkouts within it are stored, what a
	// server with that bound keeps. 0 stores every checkout's events.
	KeepEvents int
}

// newBenchSeedCmd fills a db file with N checkouts (client session, card
// token and a payment authorized at once) in a new tenant, quickly: one
// checkout runs through the real service, then its stored records are copied
// N-1 times with fresh ids in large transactions. The copies are byte for
// byte what the service stores for such a checkout, so memory, file size and
// start-up measured on the result are those of real data. Outbox events are
// stored only within the webhook retention bound (--webhook-retention-count,
// default that of serve), as a server applying it would have kept them.
func newBenchSeedCmd(runF func(*benchSeedOptions) error) *cobra.Command {
	opts := &benchSeedOptions{}
	cmd := &cobra.Command{
		Use:     "seed",
		Short:   "Fill a db file with N stored checkouts (payment, session, token) for start-up and memory measurements",
		Example: "  paysandbox bench seed --payments 100000 --db /tmp/seeded.db",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.DB == "" || opts.DB == ":memory:" {
				return fmt.Errorf("bench seed: --db must name a file")
			}
			if opts.Payments < 1 || opts.Batch < 1 {
				return fmt.Errorf("bench seed: --payments and --batch must be at least 1")
			}
			if opts.KeepEvents < 0 {
				return fmt.Errorf("bench seed: --webhook-retention-count must not be negative")
			}
			if runF != nil {
				return runF(opts)
			}
			return runBenchSeed(opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&opts.DB, "db", "", "db file to fill (created if missing; existing data stays)")
	cmd.Flags().IntVar(&opts.Payments, "payments", 100000, "checkouts to store")
	cmd.Flags().IntVar(&opts.Batch, "batch", 2000, "checkouts per store transaction")
	cmd.Flags().IntVar(&opts.KeepEvents, "webhook-retention-count", service.DefaultRetention.Keep,
		"store the webhook events a server with this retention bound keeps (0: every checkout's)")
	return cmd
}

// recordingIDs is RandomIDs that remembers the ids it makes, by kind.
type recordingIDs struct {
	mu  sync.Mutex
	ids map[simulator.IDKind][]string
}

func (r *recordingIDs) NewID(kind simulator.IDKind) string {
	id := simulator.RandomIDs{}.NewID(kind)
	r.mu.Lock()
	r.ids[kind] = append(r.ids[kind], id)
	r.mu.Unlock()
	return id
}

// seedKinds are the id kinds a copy replaces (auth codes are short and not keys).
var seedKinds = []simulator.IDKind{simulator.IDPayment, simulator.IDUUID, simulator.IDClientToken,
	simulator.IDPaymentToken, simulator.IDAnalytics, simulator.IDProcessorTxn}

func runBenchSeed(opts *benchSeedOptions, out io.Writer) error {
	start := time.Now()
	rec := &recordingIDs{ids: map[simulator.IDKind][]string{}}
	cfg := Config{Addr: "127.0.0.1:0", DB: opts.DB, RequestTimeout: 90 * time.Second, AttemptTTL: 15 * time.Minute,
		Fsync: "never", LogFormat: "text", LogLevel: "error"}
	app, err := Open(cfg, AppOptions{LogOut: io.Discard, IDs: rec})
	if err != nil {
		return err
	}
	defer app.Close()
	svc := app.Svc
	t, err := svc.CreateTenant(nil, "", 0)
	if err != nil {
		return err
	}
	rec.mu.Lock()
	clear(rec.ids)
	rec.mu.Unlock()
	amount := int64(1000)
	cs, err := svc.CreateSession(t, simulator.SessionData{OrderID: "seed", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalAuto)
	if err != nil {
		return fmt.Errorf("bench seed: session: %w", err)
	}
	tk, err := svc.Tokenize(cs.ClientToken, service.CardInput{Number: "4111111111111111", CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Seed"})
	if err != nil {
		return fmt.Errorf("bench seed: tokenise: %w", err)
	}
	p, err := svc.CreatePayment(context.Background(), t, service.PaymentRequest{Token: tk.Instrument.Token})
	if err != nil {
		return fmt.Errorf("bench seed: payment: %w", err)
	}
	var tmpl [][2]string
	if err := app.DB.TenantRecords(t.ID, func(k, v string) bool { tmpl = append(tmpl, [2]string{k, v}); return true }); err != nil {
		return err
	}
	rec.mu.Lock()
	var olds []string
	var kinds []simulator.IDKind
	for _, k := range seedKinds {
		for _, id := range rec.ids[k] {
			olds = append(olds, id)
			kinds = append(kinds, k)
		}
	}
	rec.mu.Unlock()
	var bytesPer, evBytes, evKeys, events int
	for _, kv := range tmpl {
		bytesPer += len(kv[0]) + len(kv[1])
		if isEventKey(kv[0]) {
			evKeys++
			evBytes += len(kv[0]) + len(kv[1])
			if strings.Contains(kv[0], ":evt:") {
				events++
			}
		}
	}
	// withEvents: copies from this index on keep their events; the
	// template (copy 0) loses its own when it is not among them. Whole
	// checkouts are kept (every copy has the template's event times).
	withEvents := 0
	if opts.KeepEvents > 0 && events > 0 {
		withEvents = max(0, opts.Payments-opts.KeepEvents/events)
	}
	gen := simulator.RandomIDs{}
	batch := make([][2]string, 0, opts.Batch*len(tmpl))
	pairs := make([]string, 2*len(olds))
	for i := 1; i < opts.Payments; i++ {
		for j, old := range olds {
			pairs[2*j], pairs[2*j+1] = old, gen.NewID(kinds[j])
		}
		r := strings.NewReplacer(pairs...)
		for _, kv := range tmpl {
			if i < withEvents && isEventKey(kv[0]) {
				continue
			}
			batch = append(batch, [2]string{r.Replace(kv[0]), r.Replace(kv[1])})
		}
		if len(batch) >= opts.Batch*len(tmpl) || i == opts.Payments-1 {
			if err := app.DB.PutRaw(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if withEvents > 0 {
		var doomed []string
		for _, kv := range tmpl {
			if isEventKey(kv[0]) {
				doomed = append(doomed, kv[0])
			}
		}
		if err := app.DB.DeleteRaw(doomed); err != nil {
			return err
		}
	}
	kept := (opts.Payments - withEvents) * events
	if err := app.Close(); err != nil {
		return err
	}
	avgKeys := float64(len(tmpl)-evKeys) + float64(kept*evKeys)/float64(max(1, events)*opts.Payments)
	avgBytes := float64(bytesPer-evBytes) + float64(kept*evBytes)/float64(max(1, events)*opts.Payments)
	fmt.Fprintf(out, "seeded %d checkouts (payment %s is the template, %s) in tenant %s (API key %s): %d keys, %d bytes of keys and values each with its %d events (%d B of them); %d events kept (--webhook-retention-count %d): %.1f keys, %.0f bytes per checkout on average; in %s\n",
		opts.Payments, p.ID, p.Status, t.ID, t.APIKeys[0].Key, len(tmpl), bytesPer, events, evBytes, kept, opts.KeepEvents,
		avgKeys, avgBytes, time.Since(start).Round(time.Millisecond))
	return nil
}

// isEventKey reports whether a tenant key is an outbox event's (its record,
// id index, body or pending entry: evt, evi, evb, whp).
func isEventKey(k string) bool {
	for _, p := range []string{":evt:", ":evi:", ":evb:", ":whp:"} {
		if strings.Contains(k, p) {
			return true
		}
	}
	return false
}
