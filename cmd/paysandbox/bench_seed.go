package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/app"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// benchSeedOptions are the flags of `paysandbox bench seed`.
type benchSeedOptions struct {
	DB       string
	Payments int
	// Tenants is how many new tenants share the checkouts, as evenly as
	// can be (each has its own template checkout and API key).
	Tenants int
	Batch   int
	// KeepEvents is the webhook retention bound the file is written under
	// (the tenant has no endpoint, so its events are finished when made):
	// only the events of the newest checkouts within it are stored, what a
	// server with that bound keeps. 0 stores every checkout's events.
	KeepEvents int
}

// newBenchSeedCmd fills a db file with M checkouts (client session, card
// token and a payment authorized at once) spread over N new tenants,
// quickly: in each tenant one checkout runs through the real service, then
// its stored records are copied with fresh ids in large transactions. The copies are byte for
// byte what the service stores for such a checkout, so memory, file size and
// start-up measured on the result are those of real data. Outbox events are
// stored only within the webhook retention bound (--webhook-retention-count,
// default that of serve; per tenant), as a server applying it would have
// kept them. It prints each seeded tenant's key as "API key: KEY", one per
// line.
func newBenchSeedCmd(runF func(*benchSeedOptions) error) *cobra.Command {
	opts := &benchSeedOptions{}
	cmd := &cobra.Command{
		Use:   "seed",
		Short: "Fill a db file with N stored checkouts (payment, session, token) for start-up and memory measurements",
		Example: "  paysandbox bench seed --payments 100000 --db /tmp/seeded.db\n" +
			"  paysandbox bench seed --tenants 1000 --payments 1000000 --db /tmp/many.db",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.DB == "" || opts.DB == ":memory:" {
				return fmt.Errorf("bench seed: --db must name a file")
			}
			if opts.Payments < 1 || opts.Batch < 1 || opts.Tenants < 1 {
				return fmt.Errorf("bench seed: --payments, --tenants and --batch must be at least 1")
			}
			if opts.Tenants > opts.Payments {
				return fmt.Errorf("bench seed: --tenants (%d) must not exceed --payments (%d): each tenant gets at least one checkout", opts.Tenants, opts.Payments)
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
	cmd.Flags().IntVar(&opts.Payments, "payments", 100000, "checkouts to store, in all")
	cmd.Flags().IntVar(&opts.Tenants, "tenants", 1, "new tenants to spread the checkouts over, as evenly as can be")
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

// runBenchSeed fills opts.DB as newBenchSeedCmd says and prints a summary,
// then each tenant's key as "API key: KEY".
func runBenchSeed(opts *benchSeedOptions, out io.Writer) error {
	start := time.Now()
	tenants := max(1, opts.Tenants)
	rec := &recordingIDs{ids: map[simulator.IDKind][]string{}}
	cfg := Config{Addr: "127.0.0.1:0", DB: opts.DB, RequestTimeout: 90 * time.Second, AttemptTTL: 15 * time.Minute,
		Fsync: "never", LogFormat: "text", LogLevel: "error"}
	srv, err := app.Open(cfg, app.Options{LogOut: io.Discard, IDs: rec})
	if err != nil {
		return err
	}
	defer srv.Close()
	var seeded []seededTenant
	for i := range tenants {
		n := opts.Payments / tenants
		if i < opts.Payments%tenants {
			n++
		}
		st, err := seedTenant(srv, rec, opts, n)
		if err != nil {
			return err
		}
		seeded = append(seeded, st)
	}
	if err := srv.Close(); err != nil {
		return err
	}
	printSeeded(out, opts, seeded, time.Since(start))
	return nil
}

// printSeeded prints the summary of a seed (the first tenant's template
// sizes, the averages over every checkout) and each tenant's key as
// "API key: KEY", one a line.
func printSeeded(out io.Writer, opts *benchSeedOptions, seeded []seededTenant, took time.Duration) {
	var keys, nbytes float64
	kept := 0
	for _, st := range seeded {
		keys += st.keys
		nbytes += st.bytes
		kept += st.kept
	}
	first, tenants := seeded[0], len(seeded)
	sz, m := first.size, float64(opts.Payments)
	if tenants == 1 {
		fmt.Fprintf(out, "seeded %d checkouts (payment %s is the template, %s) in tenant %s (API key %s): %d keys, %d bytes of keys and values each with its %d events (%d B of them); %d events kept (--webhook-retention-count %d): %.1f keys, %.0f bytes per checkout on average; in %s\n",
			opts.Payments, first.payment.ID, first.payment.Status, first.tenant.ID, first.tenant.APIKeys[0].Key, sz.keys, sz.bytes, sz.events, sz.evBytes, kept, opts.KeepEvents,
			keys/m, nbytes/m, took.Round(time.Millisecond))
	} else {
		each := fmt.Sprintf("%d each", opts.Payments/tenants)
		if opts.Payments%tenants != 0 {
			each = fmt.Sprintf("%d or %d each", opts.Payments/tenants, opts.Payments/tenants+1)
		}
		fmt.Fprintf(out, "seeded %d checkouts over %d tenants, %s (each tenant's first payment is its template, %s): %d keys, %d bytes of keys and values each with its %d events (%d B of them); %d events kept (--webhook-retention-count %d per tenant): %.1f keys, %.0f bytes per checkout on average; in %s\n",
			opts.Payments, tenants, each, first.payment.Status, sz.keys, sz.bytes, sz.events, sz.evBytes, kept, opts.KeepEvents,
			keys/m, nbytes/m, took.Round(time.Millisecond))
	}
	for _, st := range seeded {
		fmt.Fprintf(out, "API key: %s\n", st.tenant.APIKeys[0].Key)
	}
}

// seededTenant is what seedTenant stored: the tenant, its template payment,
// the size of one checkout, the events kept, and the keys and bytes stored
// in all.
type seededTenant struct {
	tenant      *simulator.Tenant
	payment     *simulator.Payment
	size        templateSize
	kept        int
	keys, bytes float64
}

// seedTenant makes a new tenant with n checkouts: one through the service
// (the template), n-1 copies of it; only the newest checkouts within the
// retention bound keep their events.
func seedTenant(srv *app.App, rec *recordingIDs, opts *benchSeedOptions, n int) (seededTenant, error) {
	t, p, err := seedTemplate(srv, rec)
	if err != nil {
		return seededTenant{}, err
	}
	var tmpl [][2]string
	if err := srv.DB.TenantRecords(t.ID, func(k, v string) bool { tmpl = append(tmpl, [2]string{k, v}); return true }); err != nil {
		return seededTenant{}, err
	}
	olds, kinds := rec.replaced()
	sz := sizeOfTemplate(tmpl)
	sz.keys = len(tmpl)
	// withEvents: copies from this index on keep their events; the
	// template (copy 0) loses its own when it is not among them. Whole
	// checkouts are kept (every copy has the template's event times).
	withEvents := 0
	if opts.KeepEvents > 0 && sz.events > 0 {
		withEvents = max(0, n-opts.KeepEvents/sz.events)
	}
	if err := copyTemplate(srv, tmpl, olds, kinds, n, opts.Batch, withEvents); err != nil {
		return seededTenant{}, err
	}
	if withEvents > 0 {
		if err := deleteTemplateEvents(srv, tmpl); err != nil {
			return seededTenant{}, err
		}
	}
	kept := (n - withEvents) * sz.events
	keptShare := float64(kept) / float64(max(1, sz.events)) // checkouts whose events stay
	return seededTenant{tenant: t, payment: p, size: sz, kept: kept,
		keys:  float64(n*(len(tmpl)-sz.evKeys)) + keptShare*float64(sz.evKeys),
		bytes: float64(n*(sz.bytes-sz.evBytes)) + keptShare*float64(sz.evBytes),
	}, nil
}

// seedTemplate makes a new tenant and one checkout in it through the
// service (session, token, payment authorized at once); rec holds the ids
// of that checkout alone when it returns.
func seedTemplate(srv *app.App, rec *recordingIDs) (*simulator.Tenant, *simulator.Payment, error) {
	svc := srv.Svc
	t, err := svc.CreateTenant(nil, "", "", 0)
	if err != nil {
		return nil, nil, err
	}
	rec.mu.Lock()
	clear(rec.ids)
	rec.mu.Unlock()
	amount := int64(1000)
	cs, err := svc.CreateSession(t, simulator.SessionData{OrderID: "seed", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalAuto)
	if err != nil {
		return nil, nil, fmt.Errorf("bench seed: session: %w", err)
	}
	tk, err := svc.Tokenize(cs.ClientToken, service.CardInput{Number: "4111111111111111", CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Seed"})
	if err != nil {
		return nil, nil, fmt.Errorf("bench seed: tokenise: %w", err)
	}
	p, err := svc.CreatePayment(context.Background(), t, service.PaymentRequest{Token: tk.Instrument.Token})
	if err != nil {
		return nil, nil, fmt.Errorf("bench seed: payment: %w", err)
	}
	return t, p, nil
}

// replaced lists the ids a copy replaces (those of seedKinds, in that
// order), each with its kind.
func (r *recordingIDs) replaced() (olds []string, kinds []simulator.IDKind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range seedKinds {
		for _, id := range r.ids[k] {
			olds = append(olds, id)
			kinds = append(kinds, k)
		}
	}
	return olds, kinds
}

// templateSize is the size of a checkout's records: keys and bytes of keys
// and values in all, and of its outbox event keys (evKeys keys, evBytes
// bytes, events of them event records).
type templateSize struct{ keys, bytes, evBytes, evKeys, events int }

// sizeOfTemplate measures tmpl.
func sizeOfTemplate(tmpl [][2]string) templateSize {
	var sz templateSize
	for _, kv := range tmpl {
		sz.bytes += len(kv[0]) + len(kv[1])
		if isEventKey(kv[0]) {
			sz.evKeys++
			sz.evBytes += len(kv[0]) + len(kv[1])
			if strings.Contains(kv[0], ":evt:") {
				sz.events++
			}
		}
	}
	return sz
}

// copyTemplate stores n-1 copies of tmpl, each with fresh ids in place of
// olds (of kinds), per copies per transaction; copies before index
// withEvents leave out the event keys.
func copyTemplate(srv *app.App, tmpl [][2]string, olds []string, kinds []simulator.IDKind, n, per, withEvents int) error {
	gen := simulator.RandomIDs{}
	batch := make([][2]string, 0, min(n, per)*len(tmpl))
	pairs := make([]string, 2*len(olds))
	for i := 1; i < n; i++ {
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
		if len(batch) >= per*len(tmpl) || i == n-1 {
			if err := srv.DB.PutRaw(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	return nil
}

// deleteTemplateEvents deletes the template checkout's own event keys.
func deleteTemplateEvents(srv *app.App, tmpl [][2]string) error {
	var doomed []string
	for _, kv := range tmpl {
		if isEventKey(kv[0]) {
			doomed = append(doomed, kv[0])
		}
	}
	return srv.DB.DeleteRaw(doomed)
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
