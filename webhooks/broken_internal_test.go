package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
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
)

// breakableStore is the real store whose reads of one tenant's outbox
// fail as a file that cannot be opened does, while broken is set; it
// counts those reads and names the tenant's file as a store of tenant
// files does.
type breakableStore struct {
	simulator.Store
	tenant string
	broken atomic.Bool
	reads  atomic.Int32
}

func (b *breakableStore) View(fn func(simulator.Tx) error) error {
	return b.Store.View(func(tx simulator.Tx) error { return fn(breakableTx{Tx: tx, s: b}) })
}

func (b *breakableStore) TenantFile(tid string) string {
	return "/data/paysandbox.db.tenants/" + tid + ".db"
}

type breakableTx struct {
	simulator.Tx
	s *breakableStore
}

func (t breakableTx) PendingEvents(tid string) ([]simulator.PendingRef, error) {
	if tid == t.s.tenant {
		t.s.reads.Add(1)
		if t.s.broken.Load() {
			return nil, fmt.Errorf("store: tenant %s: %w", tid, simulator.ErrTenantUnavailable("its file is corrupt"))
		}
	}
	return t.Tx.PendingEvents(tid)
}

// logRecords is a slog handler that keeps what it is given.
type logRecords struct {
	mu sync.Mutex
	rs []slog.Record
}

func (h *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecords) WithGroup(string) slog.Handler            { return h }
func (h *logRecords) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rs = append(h.rs, r.Clone())
	return nil
}

// outbox answers the records about a tenant's outbox, each as its level
// and its attributes.
func (h *logRecords) outbox() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]any
	for _, r := range h.rs {
		if !strings.Contains(r.Message, "outbox") {
			continue
		}
		m := map[string]any{"level": r.Level, "msg": r.Message}
		r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.Any(); return true })
		out = append(out, m)
	}
	return out
}

// A tenant whose outbox cannot be read is logged once, not once per pass:
// ERROR when it breaks (its file, the next retry), nothing at the retries
// in between, which back off from 10s to 10 minutes and read nothing
// before they are due, WARN an hour on, INFO when it can be read again.
func TestBrokenTenantLoggedOnce(t *testing.T) {
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	st := &breakableStore{Store: db, tenant: "t1"}
	logs := &logRecords{}
	clk := clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC))
	var d *Dispatcher
	svc := service.NewService(st, clk, &idgen.Seq{}, catalog, processors.NewFake(nil, nil), slog.New(logs),
		service.Config{Renderer: Renderer{}, Webhooks: Attach(&d, Options{Timeout: time.Second, Concurrency: 2})})
	tn, err := svc.EnsureTenant(service.TenantSpec{ID: "t1", SigningSecret: "s", WebhookURL: "http://127.0.0.1:1/hook",
		APIKeys: []simulator.APIKey{{Key: "k", Scopes: simulator.AllScopes}}})
	require.NoError(t, err)
	ctx := context.Background()
	release := d.Hold("t1") // the events stay PENDING until the test lets the loop at them
	pay(t, svc, tn)
	st.broken.Store(true)
	release()

	start := clk.Now()
	d.pass(ctx)
	require.Equal(t, int32(1), st.reads.Load())
	logged := logs.outbox()
	require.Len(t, logged, 1)
	assert.Equal(t, slog.LevelError, logged[0]["level"])
	assert.Equal(t, "t1", logged[0]["tenant"])
	assert.Equal(t, "/data/paysandbox.db.tenants/t1.db", logged[0]["file"])
	assert.Equal(t, start.Add(10*time.Second), logged[0]["nextRetry"])
	assert.Contains(t, fmt.Sprint(logged[0]["err"]), "TenantUnavailable")

	backoff := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 320 * time.Second,
		10 * time.Minute, 10 * time.Minute, 10 * time.Minute, 10 * time.Minute, 10 * time.Minute, 10 * time.Minute}
	reads := st.reads.Load()
	var warnedAt []time.Duration
	for i, wait := range backoff {
		clk.Advance(wait - time.Second)
		d.pass(ctx)
		d.pass(ctx)
		require.Equal(t, reads, st.reads.Load(), "retry %d: nothing read before it is due", i)
		clk.Advance(time.Second)
		d.pass(ctx)
		reads++
		require.Equal(t, reads, st.reads.Load(), "retry %d: read when due", i)
		for _, r := range logs.outbox()[len(logged):] {
			assert.Equal(t, slog.LevelWarn, r["level"], "retry %d", i)
			assert.Equal(t, "/data/paysandbox.db.tenants/t1.db", r["file"])
			warnedAt = append(warnedAt, clk.Now().Sub(start))
		}
		logged = logs.outbox()
	}
	assert.Equal(t, []time.Duration{10*time.Second + 20*time.Second + 40*time.Second + 80*time.Second + 160*time.Second + 320*time.Second + 5*10*time.Minute},
		warnedAt, "one WARN, at the first failed retry an hour or more after the ERROR")

	st.broken.Store(false) // the file is repaired
	d.pass(ctx)
	assert.Len(t, logs.outbox(), len(logged), "nothing read before the next retry")
	clk.Advance(10 * time.Minute)
	d.pass(ctx)
	d.running.Wait()
	logged = logs.outbox()
	require.NotEmpty(t, logged)
	last := logged[len(logged)-1]
	assert.Equal(t, slog.LevelInfo, last["level"])
	assert.Equal(t, "t1", last["tenant"])
	assert.Contains(t, last["msg"], "can be read again")
	n := len(logged)
	d.pass(ctx)
	d.running.Wait()
	assert.Len(t, logs.outbox(), n, "read as any other tenant from then on")
}

// The same with a tenant file that cannot be opened, on a store of tenant
// files: pass after pass while another tenant delivers, the tenant is
// logged once, naming its file.
func TestCorruptTenantFileLoggedOnce(t *testing.T) {
	path := t.TempDir() + "/paysandbox.db"
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	clk := clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC))
	spec := func(id string) service.TenantSpec {
		return service.TenantSpec{ID: id, SigningSecret: "s", WebhookURL: "http://127.0.0.1:1/hook",
			APIKeys: []simulator.APIKey{{Key: "k-" + id, Scopes: simulator.AllScopes}}}
	}
	db, err := store.Open(path, store.FsyncAlways, store.Options{})
	require.NoError(t, err)
	svc := service.NewService(db, clk, &idgen.Seq{}, catalog, processors.NewFake(nil, nil), nil, service.Config{Renderer: Renderer{}})
	for _, id := range []string{"broken", "ok"} {
		tn, err := svc.EnsureTenant(spec(id))
		require.NoError(t, err)
		pay(t, svc, tn) // PENDING events: no dispatcher runs
	}
	require.NoError(t, db.Close())
	file := db.TenantFile("broken")
	require.NoError(t, os.WriteFile(file, []byte("not a buntdb file\n"), 0o600))

	db, err = store.Open(path, store.FsyncAlways, store.Options{Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	logs := &logRecords{}
	var d *Dispatcher
	svc = service.NewService(db, clk, &idgen.Seq{}, catalog, processors.NewFake(nil, nil), slog.New(logs),
		service.Config{Renderer: Renderer{}, Webhooks: Attach(&d, Options{Timeout: time.Second, Concurrency: 2})})
	ok, err := svc.Tenant("ok")
	require.NoError(t, err)
	ctx := context.Background()
	for range 20 {
		pay(t, svc, ok)
		d.pass(ctx)
		d.running.Wait()
		clk.Advance(100 * time.Millisecond)
	}
	logged := logs.outbox()
	require.Len(t, logged, 1)
	assert.Equal(t, slog.LevelError, logged[0]["level"])
	assert.Equal(t, "broken", logged[0]["tenant"])
	assert.Equal(t, file, logged[0]["file"])
	evs, err := svc.Events(ok, simulator.EventQuery{Limit: 1000})
	require.NoError(t, err)
	attempted := 0
	for _, ev := range evs {
		if len(ev.Attempts) > 0 {
			attempted++
		}
	}
	assert.GreaterOrEqual(t, attempted, 20, "the other tenant's deliveries go on (each payment's first event; its second waits for the retry)")
}

// openHookStore is a breakableStore that opens tenants on demand: it keeps
// the function told of each tenant whose data opens.
type openHookStore struct {
	*breakableStore
	opened func(string)
}

func (o *openHookStore) OnTenantOpen(fn func(string)) { o.opened = fn }

// A broken tenant whose file some request opens (it was repaired) is read
// by the next pass, not at its retry.
func TestBrokenTenantReadOnceItOpens(t *testing.T) {
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	st := &openHookStore{breakableStore: &breakableStore{Store: db, tenant: "t1"}}
	logs := &logRecords{}
	var d *Dispatcher
	svc := service.NewService(st, clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)), &idgen.Seq{}, catalog, processors.NewFake(nil, nil), slog.New(logs),
		service.Config{Renderer: Renderer{}, Webhooks: Attach(&d, Options{Timeout: time.Second, Concurrency: 2})})
	tn, err := svc.EnsureTenant(service.TenantSpec{ID: "t1", SigningSecret: "s", WebhookURL: "http://127.0.0.1:1/hook",
		APIKeys: []simulator.APIKey{{Key: "k", Scopes: simulator.AllScopes}}})
	require.NoError(t, err)
	d.markAllDirty() // what Run does first
	require.NotNil(t, st.opened)
	ctx := context.Background()
	release := d.Hold("t1")
	pay(t, svc, tn)
	st.broken.Store(true)
	release()
	d.pass(ctx)
	require.Len(t, logs.outbox(), 1)

	st.broken.Store(false)
	d.pass(ctx)
	require.Len(t, logs.outbox(), 1, "not read before its retry")
	st.opened("t1")
	assert.False(t, d.idle(), "the next wake-up reads the outbox")
	d.pass(ctx)
	d.running.Wait()
	logged := logs.outbox()
	require.Len(t, logged, 2)
	assert.Equal(t, slog.LevelInfo, logged[1]["level"])
}
