package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
)

// TestTenantTTLConvertedAtStart: a store written when a tenant's ttl counted
// on its own clock (testdata/ttl-tenant-clock.aof, made by that release at
// 07:30: tenant A with ttl 2h whose clock was then advanced 30m, so it
// would have expired at 09:00 on the wall clock; tenant B with ttl 1h;
// tenant C without) opens with each ttl converted, once, to a wall-clock
// expiry that keeps the remaining lifetime, and without the tenants'
// expire jobs.
func TestTenantTTLConvertedAtStart(t *testing.T) {
	const (
		tenantA, keyA = "t_secret_000001", "sk_secret_000002"
		tenantB, keyB = "t_secret_000004", "sk_secret_000005"
		keyC          = "sk_secret_000008"
	)
	raw, err := os.ReadFile("testdata/ttl-tenant-clock.aof")
	require.NoError(t, err)
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "p.db")
	require.NoError(t, os.WriteFile(cfg.DB, raw, 0o644))
	clk := clock.NewManual(testEpoch.Add(10 * time.Minute)) // the server was down for 10 minutes

	open := func() *testApp {
		app, err := Open(cfg, AppOptions{LogOut: io.Discard, Clock: clk, IDs: &idgen.Seq{}})
		require.NoError(t, err)
		return &testApp{App: app, t: t, Clock: clk, Key: keyA, http: &http.Client{Timeout: 30 * time.Second}}
	}
	a := open()
	wantA, wantB := testEpoch.Add(90*time.Minute), testEpoch.Add(time.Hour)
	for id, want := range map[string]time.Time{tenantA: wantA, tenantB: wantB} {
		tn, err := a.Svc.Tenant(id)
		require.NoError(t, err)
		assert.Equal(t, want, tn.ExpiresAt, "%s: wall-clock expiry", id)
		assert.True(t, tn.TenantClockExpiresAt.IsZero(), "%s: converted", id)
		var jobs []*simulator.Job
		require.NoError(t, a.DB.View(func(tx simulator.Tx) (err error) { jobs, err = tx.DueJobs(id, time.Unix(1<<40, 0), 0); return }))
		assert.Empty(t, jobs, "%s: its expire job is gone", id)
	}
	require.NoError(t, a.Close())

	a = open() // a second start converts nothing more
	tn, err := a.Svc.Tenant(tenantA)
	require.NoError(t, err)
	assert.Equal(t, wantA, tn.ExpiresAt)
	n, err := a.Svc.ConvertTenantExpiries()
	require.NoError(t, err)
	assert.Zero(t, n)
	require.NoError(t, a.Start())
	t.Cleanup(func() { _ = a.Close() })

	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "48h"})
	a.must(200, "GET", "/_sandbox/clock", nil)
	clk.Set(wantB)
	assert.Contains(t, a.as(keyB).req("GET", "/_sandbox/clock", nil).Err()["description"], "tenant "+tenantB+", which expired at 2026-11-22T08:30:00.000000Z")
	a.must(200, "GET", "/_sandbox/clock", nil)
	clk.Set(wantA)
	assert.Contains(t, a.req("GET", "/_sandbox/clock", nil).Err()["description"], "tenant "+tenantA+", which expired at 2026-11-22T09:00:00.000000Z")
	clk.Advance(365 * 24 * time.Hour)
	a.as(keyC).must(200, "GET", "/_sandbox/clock", nil)
}
