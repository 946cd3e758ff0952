package main

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
)

// TestWebhookKill9LosesNoDelivery runs the real binary with
// PAYSANDBOX_WEBHOOK_URL pointing at a failing receiver, kills it with
// SIGKILL while deliveries are pending, restarts it and delivers: every
// event arrives at least once.
func TestWebhookKill9LosesNoDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir, bin := buildBinary(t)
	db := filepath.Join(dir, "data", "paysandbox.db")
	rc := newReceiver(t, answer(500))
	env := []string{"PAYSANDBOX_WEBHOOK_URL=" + rc.URL}

	p1, a := serveBinaryEnv(t, bin, db, env)
	var ids []string
	for range 3 {
		ids = append(ids, a.pay(1000, "4111111111111111").Str("id"))
	}
	require.NoError(t, p1.Process.Kill()) // SIGKILL with PENDING deliveries
	_ = p1.Wait()

	rc.setAnswer(answer(200))
	_, b := serveBinaryEnv(t, bin, db, env)
	b.must(200, "POST", "/_sandbox/webhooks/deliver", nil) // every pending delivery, now (waits for those in flight)
	got := map[string]bool{}
	for _, d := range rc.deliveries() {
		if d.Header.Get("X-Event-Id") != "" {
			got[d.Header.Get("X-Event-Id")] = true
		}
	}
	for _, pid := range ids {
		evs := b.events(pid)
		require.Len(t, evs, 2, "PENDING and AUTHORIZED of %s", pid)
		for _, ev := range evs {
			assert.Equal(t, "DELIVERED", ev["status"])
			assert.True(t, got[ev["id"].(string)], "event %s of %s was delivered at least once", ev["id"], pid)
		}
	}
}

// serveBinaryEnv is serveBinary with extra environment variables.
func serveBinaryEnv(t *testing.T, bin, db string, env []string) (*exec.Cmd, *testApp) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	stderr := &apitest.SyncBuffer{}
	cmd := exec.Command(bin, "serve", "--addr", addr, "--db", db, "--log-level", "error")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	a := &testApp{App: &App{Config: Config{Addr: addr}}, t: t, Key: simulator.DefaultAPIKey, http: &http.Client{Timeout: 30 * time.Second}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return cmd, a
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("paysandbox serve did not become ready: %v\n%s", err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
