package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// The disk test runs the real binary with its store on a 4 MiB tmpfs and
// writes payments in two tenants until the disk is full. A write that cannot
// be stored answers 503 StorageFull (the log names the file) and stores
// nothing; reads keep working; the server restarts on the full disk (after
// kill -9) with everything it acknowledged; once a file pre-placed on the
// tmpfs is removed, a refused payment sent again succeeds (its single-use
// token was not used up) and writes and tenant creation work again; and
// after a clean restart every acknowledged session and payment still reads
// back.
//
// It is not part of `go test ./...`: set PAYSANDBOX_DISK_TEST=1 and run it as
// root (.ci/run does), since it mounts a tmpfs.

// diskTenant is one tenant's client and what the server acknowledged to it.
type diskTenant struct {
	name     string
	c        *crashClient
	sessions []string // client tokens
	payments []string // payment ids
}

// do sends a request of the flow; record is given the body of a 200.
func (d *diskTenant) do(t *testing.T, record func(map[string]any), method, path string, body any, hdr ...string) (int, map[string]any) {
	t.Helper()
	st, m, err := d.c.do(method, path, body, hdr...)
	require.NoError(t, err)
	if st == 200 {
		record(m)
	}
	return st, m
}

// pay runs session, tokenise and POST /payments, recording each 200; on
// the first other answer it returns its status and body.
func (d *diskTenant) pay(t *testing.T, n int) (int, map[string]any) {
	t.Helper()
	order := fmt.Sprintf("disk-%s-%d", d.name, n)
	var tok, pt string
	st, m := d.do(t, func(m map[string]any) { tok = m["clientToken"].(string); d.sessions = append(d.sessions, tok) },
		"POST", "/client-session", map[string]any{"orderId": order, "currencyCode": "EUR", "amount": 1000,
			"customerId": "disk", "metadata": map[string]any{"note": strings.Repeat("x", 200)}})
	if st != 200 {
		return st, m
	}
	card := map[string]any{"paymentInstrument": map[string]any{"number": "4111111111111111", "cvv": "123", "expirationMonth": "12", "expirationYear": "2030"}}
	st, m = d.do(t, func(m map[string]any) { pt = m["token"].(string) }, "POST", "/client/payment-instruments", card, "X-Client-Token", tok)
	if st != 200 {
		return st, m
	}
	return d.payWith(t, pt, order)
}

// payWith pays with the single-use token pt.
func (d *diskTenant) payWith(t *testing.T, pt, idempotencyKey string) (int, map[string]any) {
	t.Helper()
	return d.do(t, func(m map[string]any) { d.payments = append(d.payments, m["id"].(string)) },
		"POST", "/payments", map[string]any{"paymentMethodToken": pt}, "X-Idempotency-Key", idempotencyKey)
}

// token tokenises a card for a new session (a payment to make later).
func (d *diskTenant) token(t *testing.T, order string) string {
	t.Helper()
	st, m, err := d.c.do("POST", "/client-session", map[string]any{"orderId": order, "currencyCode": "EUR", "amount": 1000})
	require.NoError(t, err)
	require.Equal(t, 200, st, "%v", m)
	tok := m["clientToken"].(string)
	d.sessions = append(d.sessions, tok)
	card := map[string]any{"paymentInstrument": map[string]any{"number": "4111111111111111", "cvv": "123", "expirationMonth": "12", "expirationYear": "2030"}}
	st, m, err = d.c.do("POST", "/client/payment-instruments", card, "X-Client-Token", tok)
	require.NoError(t, err)
	require.Equal(t, 200, st, "%v", m)
	return m["token"].(string)
}

// check reads back everything acknowledged to the tenant, and its list of
// payments (every record of a page decodes).
func (d *diskTenant) check(t *testing.T, when string) {
	t.Helper()
	for _, tok := range d.sessions {
		st, m, err := d.c.do("GET", "/client-session?clientToken="+tok, nil)
		require.NoError(t, err)
		assert.Equal(t, 200, st, "%s: tenant %s, session %s: %v", when, d.name, tok, m)
	}
	for _, id := range d.payments {
		st, m, err := d.c.do("GET", "/payments/"+id, nil)
		require.NoError(t, err)
		assert.Equal(t, 200, st, "%s: tenant %s, payment %s: %v", when, d.name, id, m)
	}
	st, m, err := d.c.do("GET", "/payments?limit=100", nil)
	require.NoError(t, err)
	assert.Equal(t, 200, st, "%s: tenant %s lists its payments: %v", when, d.name, m)
}

// requireStorageFull checks a write's answer on the full disk.
func requireStorageFull(t *testing.T, st int, m map[string]any, what string) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	require.Equal(t, 503, st, "%s on a full disk: %v", what, m)
	require.Equal(t, "StorageFull", e["errorId"], "%s on a full disk: %v", what, m)
	require.Contains(t, e["description"], "no space left on device", "%s", what)
}

func TestDiskFull(t *testing.T) {
	if os.Getenv("PAYSANDBOX_DISK_TEST") != "1" {
		t.Skip("set PAYSANDBOX_DISK_TEST=1, as root (run by .ci/run)")
	}
	if os.Geteuid() != 0 {
		t.Skip("the disk test mounts a size-limited tmpfs: it needs root")
	}
	_, bin := buildBinary(t)
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a 4 MiB tmpfs at %s (%v): %s", mnt, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() }) // after the servers' cleanups
	ballast := filepath.Join(mnt, "ballast")
	require.NoError(t, os.WriteFile(ballast, make([]byte, 1<<20), 0o644))
	db := filepath.Join(mnt, "paysandbox.db")

	out := &apitest.SyncBuffer{}
	proc, base := startLoggedServer(t, bin, db, out)
	c := newCrashClient()
	c.base.Store(&base)
	st, m, err := c.do("POST", "/_sandbox/tenants", map[string]any{})
	require.NoError(t, err)
	require.Equal(t, 201, st, "%v", m)
	tenants := []*diskTenant{{name: "default", c: c}, {name: "second", c: c.as(m["apiKey"].(string))}}

	// A token per tenant, to pay with once the disk is full.
	var later []string
	for _, tn := range tenants {
		later = append(later, tn.token(t, "disk-later-"+tn.name))
	}

	// Fill the disk, the two tenants in turn, until each has been refused
	// three times.
	refused := make([]int, len(tenants))
	for n := 0; refused[0] < 3 || refused[1] < 3; n++ {
		require.Less(t, n, 5000, "the disk never filled")
		i := n % len(tenants)
		if st, m := tenants[i].pay(t, n); st != 200 {
			requireStorageFull(t, st, m, "a payment flow")
			if refused[0]+refused[1] == 0 {
				t.Logf("disk_test: the first refusal: %d %v", st, m)
			}
			refused[i]++
		}
	}
	t.Logf("disk_test: full after %d and %d payments", len(tenants[0].payments), len(tenants[1].payments))
	require.NotEmpty(t, tenants[0].payments)
	require.NotEmpty(t, tenants[1].payments)
	logged := func() bool { // the log is written every 50 ms
		s := out.String()
		return strings.Contains(s, "StorageFull") && strings.Contains(s, mnt+"/paysandbox.db.tenants/")
	}
	require.Eventually(t, logged, 10*time.Second, 10*time.Millisecond, "the log says why writes fail and names the file:\n%s", out)

	// The catalog on the full disk: tenants are created (a small record)
	// until the last bytes are used, then refused.
	for n := 0; ; n++ {
		require.Less(t, n, 1000, "the catalog never filled")
		st, m, err := c.do("POST", "/_sandbox/tenants", map[string]any{})
		require.NoError(t, err)
		if st != 201 {
			requireStorageFull(t, st, m, "creating a tenant")
			break
		}
		tenants = append(tenants, &diskTenant{name: fmt.Sprintf("made-on-the-full-disk-%d", n), c: c.as(m["apiKey"].(string))})
	}
	for _, tn := range tenants {
		tn.check(t, "on the full disk")
	}

	// A clean stop on the full disk (each tenant file grew past 1 MiB since
	// it was opened, so closing tries to shrink it, with no space to write
	// the copy), then kill -9 on the full disk: each restart reads
	// everything back, and writes are still refused clearly.
	require.NoError(t, proc.Process.Signal(syscall.SIGTERM))
	assert.NoError(t, proc.Wait(), "SIGTERM on the full disk exits 0")
	proc, base = startLoggedServer(t, bin, db, out)
	c.base.Store(&base)
	for _, tn := range tenants {
		tn.check(t, "after a clean stop on the full disk")
	}
	leftovers, err := filepath.Glob(filepath.Join(store.TenantsDir(db), "*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, leftovers, "a shrink that found no space leaves no partial copy")
	require.NoError(t, proc.Process.Signal(syscall.SIGKILL))
	_ = proc.Wait()
	proc, base = startLoggedServer(t, bin, db, out)
	c.base.Store(&base)
	for _, tn := range tenants {
		tn.check(t, "after kill -9 on the full disk")
	}
	for i, tn := range tenants[:2] {
		st, m := tn.payWith(t, later[i], "disk-later-"+tn.name)
		requireStorageFull(t, st, m, "a payment after the restart")
	}

	// Space freed: the refused payments succeed when sent again, with the
	// same token and idempotency key (nothing of them was stored: the
	// single-use token was not used up), and writes and tenant creation work
	// again.
	require.NoError(t, os.Remove(ballast))
	for i, tn := range tenants[:2] {
		st, m := tn.payWith(t, later[i], "disk-later-"+tn.name)
		require.Equal(t, 200, st, "tenant %s: the refused payment sent again once space is freed: %v", tn.name, m)
		st, m = tn.pay(t, 20000+i)
		require.Equal(t, 200, st, "tenant %s writes again once space is freed: %v", tn.name, m)
	}
	st, m, err = c.do("POST", "/_sandbox/tenants", map[string]any{})
	require.NoError(t, err)
	require.Equal(t, 201, st, "a tenant is created again once space is freed: %v", m)
	third := &diskTenant{name: "third", c: c.as(m["apiKey"].(string))}
	st, m = third.pay(t, 30000)
	require.Equal(t, 200, st, "the new tenant writes: %v", m)
	tenants = append(tenants, third)

	// A clean restart keeps everything acknowledged.
	require.NoError(t, proc.Process.Signal(syscall.SIGTERM))
	assert.NoError(t, proc.Wait(), "SIGTERM exits 0")
	_, base = startLoggedServer(t, bin, db, out)
	c.base.Store(&base)
	for _, tn := range tenants {
		tn.check(t, "after a clean restart")
	}
}
