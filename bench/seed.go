package bench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/paysandbox/paysandbox/app"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// SeedOptions are the flags of `paysandbox bench seed`: Seed fills a db file
// with Payments checkouts (client session, card token and a payment
// authorized at once) spread over Tenants new tenants, quickly: in each
// tenant one checkout runs through the real service, then the store clones
// it with fresh ids (idCopier) in transactions of Batch checkouts
// (store.DB.CloneCheckouts). The clones are what the service stores for
// such a checkout, so memory, file size and start-up measured on
// the result are those of real data. Outbox events are stored only within
// the webhook retention bound KeepEvents (per tenant), as a server applying
// it would have kept them. It prints each seeded tenant's key as
// "API key: KEY", one per line.
type SeedOptions struct {
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

// Validate reports the first option out of range, named by its flag.
func (o *SeedOptions) Validate() error {
	if o.DB == "" || o.DB == ":memory:" {
		return fmt.Errorf("bench seed: --db must name a file")
	}
	if o.Payments < 1 || o.Batch < 1 || o.Tenants < 1 {
		return fmt.Errorf("bench seed: --payments, --tenants and --batch must be at least 1")
	}
	if o.Tenants > o.Payments {
		return fmt.Errorf("bench seed: --tenants (%d) must not exceed --payments (%d): each tenant gets at least one checkout", o.Tenants, o.Payments)
	}
	if o.KeepEvents < 0 {
		return fmt.Errorf("bench seed: --webhook-retention-count must not be negative")
	}
	return nil
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

// seedKinds are the id kinds a clone replaces (auth codes are short and not keys).
var seedKinds = []simulator.IDKind{simulator.IDPayment, simulator.IDUUID, simulator.IDClientToken,
	simulator.IDPaymentToken, simulator.IDAnalytics, simulator.IDProcessorTxn}

// Seed fills opts.DB as SeedOptions says and prints a summary,
// then each tenant's key as "API key: KEY".
func Seed(opts *SeedOptions, out io.Writer) error {
	start := time.Now()
	tenants := max(1, opts.Tenants)
	rec := &recordingIDs{ids: map[simulator.IDKind][]string{}}
	cfg := app.Config{Addr: "127.0.0.1:0", DB: opts.DB, RequestTimeout: 90 * time.Second, AttemptTTL: 15 * time.Minute,
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
func printSeeded(out io.Writer, opts *SeedOptions, seeded []seededTenant, took time.Duration) {
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
			opts.Payments, first.payment.ID, first.payment.Status, first.tenant.ID, first.tenant.APIKeys[0].Key, sz.Keys, sz.Bytes, sz.Events, sz.EventBytes, kept, opts.KeepEvents,
			keys/m, nbytes/m, took.Round(time.Millisecond))
	} else {
		each := fmt.Sprintf("%d each", opts.Payments/tenants)
		if opts.Payments%tenants != 0 {
			each = fmt.Sprintf("%d or %d each", opts.Payments/tenants, opts.Payments/tenants+1)
		}
		fmt.Fprintf(out, "seeded %d checkouts over %d tenants, %s (each tenant's first payment is its template, %s): %d keys, %d bytes of keys and values each with its %d events (%d B of them); %d events kept (--webhook-retention-count %d per tenant): %.1f keys, %.0f bytes per checkout on average; in %s\n",
			opts.Payments, tenants, each, first.payment.Status, sz.Keys, sz.Bytes, sz.Events, sz.EventBytes, kept, opts.KeepEvents,
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
	size        store.CheckoutSize
	kept        int
	keys, bytes float64
}

// seedTenant makes a new tenant with n checkouts: one through the service
// (the template), n-1 clones of it; only the newest checkouts within the
// retention bound keep their events.
func seedTenant(srv *app.App, rec *recordingIDs, opts *SeedOptions, n int) (seededTenant, error) {
	t, p, err := seedTemplate(srv, rec)
	if err != nil {
		return seededTenant{}, err
	}
	cp := newIDCopier(rec.replaced(), freshID)
	sz, kept, err := srv.DB.CloneCheckouts(t.ID, store.CloneOptions{NewCopy: cp.newCopy,
		Clones: n - 1, Batch: opts.Batch, KeepEvents: opts.KeepEvents})
	if err != nil {
		return seededTenant{}, err
	}
	keptShare := float64(kept) / float64(max(1, sz.Events)) // checkouts whose events stay
	return seededTenant{tenant: t, payment: p, size: sz, kept: kept,
		keys:  float64(n*(sz.Keys-sz.EventKeys)) + keptShare*float64(sz.EventKeys),
		bytes: float64(n*(sz.Bytes-sz.EventBytes)) + keptShare*float64(sz.EventBytes),
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

// replaced lists the ids a clone replaces (those of seedKinds, in that
// order), each with its kind, as the checkout's values hold them
// (cloneForm).
func (r *recordingIDs) replaced() []cloneID {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []cloneID
	for _, k := range seedKinds {
		for _, id := range r.ids[k] {
			ids = append(ids, cloneID{ID: cloneForm(id), Kind: k})
			if tag := simulator.SessionTag(id); tag != "" && k == simulator.IDUUID { // as a client token names its session
				ids = append(ids, cloneID{ID: tag, Kind: k, TagOf: len(ids)})
			}
		}
	}
	return ids
}

// TimedUUID implements simulator.TimedIDs (the template's event ids), as
// RandomIDs does.
func (r *recordingIDs) TimedUUID(at time.Time) string {
	id := simulator.RandomIDs{}.TimedUUID(at)
	r.mu.Lock()
	r.ids[simulator.IDUUID] = append(r.ids[simulator.IDUUID], id)
	r.mu.Unlock()
	return id
}

// freshID is a new random id in place of id, in the form the values hold
// it: of its kind, and carrying the time it carries (an event's id,
// simulator.NewEventID), so a clone's events are stored as the service
// stores them.
func freshID(id cloneID) string {
	if us, ok := simulator.UUIDMicros(id.ID); ok {
		return simulator.RandomIDs{}.TimedUUID(time.UnixMicro(us))
	}
	return cloneForm(simulator.RandomIDs{}.NewID(id.Kind))
}

// cloneForm is the part of an id that the checkout's values hold whole: a
// client token holds its tenant's tag after its cst_ prefix
// (simulator.WithTenant), so a clone replaces what follows the prefix.
func cloneForm(id string) string { return strings.TrimPrefix(id, "cst_") }
