package main

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/bench"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// TestBenchFlags: flag parsing and validation of bench (through runF).
func TestBenchFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, o *bench.Options)
	}{
		{name: "defaults", check: func(t *testing.T, o *bench.Options) {
			assert.Equal(t, "read", o.Flow)
			assert.Equal(t, 16, o.Concurrency)
			assert.Equal(t, 10*time.Second, o.Duration)
			assert.Equal(t, "table", o.Output)
			assert.Equal(t, "everysecond", o.Fsync)
			assert.False(t, o.CompareCeiling)
			assert.Zero(t, o.Rounds, "slices of 250ms")
			assert.Equal(t, 20000, o.Tokens)
		}},
		{name: "all flags", args: []string{"--flow", "mixed", "--duration", "2s", "--concurrency", "4", "--output", "json",
			"--compare-ceiling", "--rounds", "3", "--tokens", "500", "--url", "http://x", "--cpuprofile", "c.out", "--memprofile", "m.out", "--fsync", "always"},
			check: func(t *testing.T, o *bench.Options) {
				assert.Equal(t, bench.Options{Flow: "mixed", Duration: 2 * time.Second, Concurrency: 4, Output: "json", CompareCeiling: true,
					URL: "http://x", CPUProfile: "c.out", MemProfile: "m.out", Fsync: "always", ReadPayments: 3000, Rounds: 3, Tokens: 500}, *o)
			}},
		{name: "unknown flow", args: []string{"--flow", "bogus"}, wantErr: `--flow "bogus"`},
		{name: "write without tokens", args: []string{"--flow", "write", "--tokens", "0"}, wantErr: "--tokens"},
		{name: "negative rounds", args: []string{"--rounds", "-1"}, wantErr: "--rounds"},
		{name: "zero concurrency", args: []string{"--concurrency", "0"}, wantErr: "must be positive"},
		{name: "bad output", args: []string{"--output", "xml"}, wantErr: "--output"},
		{name: "bad fsync", args: []string{"--fsync", "sometimes"}, wantErr: "--fsync"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *bench.Options
			cmd := newBenchCmd(func(o *bench.Options) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, got)
		})
	}
}

// TestBenchRun: every flow runs against the in-process server on a db file
// and against the ceiling, without a failed request, and reports each
// endpoint it called with a ratio.
func TestBenchRun(t *testing.T) {
	tests := []struct {
		flow      string
		endpoints []string
	}{
		{"read", []string{"GET /payments/{id}"}},
		{"auto", []string{"POST /client-session", "POST /client/payment-instruments", "POST /payments", "POST /payments/{id}/capture"}},
		{"manual", []string{"POST /client-session", "POST /client/payment-instruments", "POST /payment-attempts/{id}/approve", "GET /_sandbox/wait", "POST /payments/{id}/capture"}},
		{"mixed", []string{"GET /payments/{id}", "POST /payments"}},
	}
	for _, tt := range tests {
		t.Run(tt.flow, func(t *testing.T) {
			var out bytes.Buffer
			opts := &bench.Options{Flow: tt.flow, Duration: 300 * time.Millisecond, Concurrency: 2, Output: "json",
				CompareCeiling: true, Fsync: "never", ReadPayments: 2, Rounds: 2, Env: childEnv}
			require.NoError(t, opts.Validate())
			require.NoError(t, bench.Run(t.Context(), opts, &out))
			var rep bench.Report
			require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
			require.NotNil(t, rep.Ceiling)
			assert.Equal(t, 2, rep.Rounds)
			assert.Zero(t, rep.Server.FailedFlows, rep.Server.FirstError)
			assert.Positive(t, rep.Server.Flows)
			assert.Positive(t, rep.FlowRatio)
			assert.Positive(t, rep.CPURatio)
			got := map[string]bench.EndpointSummary{}
			for _, e := range rep.Server.Endpoints {
				got[e.Endpoint] = e
			}
			for _, ep := range tt.endpoints {
				e, ok := got[ep]
				require.True(t, ok, "endpoint %s reported", ep)
				assert.Positive(t, e.Requests)
				assert.Positive(t, e.BodyBytes)
				assert.Positive(t, e.Ratio)
				assert.Empty(t, e.Errors)
				assert.LessOrEqual(t, e.P50, e.P99)
				assert.LessOrEqual(t, e.P99, e.Max)
			}
		})
	}
}

// TestBenchSeed: seeded checkouts are real, distinct payments of one tenant,
// readable after a restart on the file, with the events a server under the
// retention bound keeps (the newest 4 of 10: those of two checkouts).
func TestBenchSeed(t *testing.T) {
	db := filepath.Join(t.TempDir(), "seed.db")
	var out bytes.Buffer
	require.NoError(t, bench.Seed(&bench.SeedOptions{DB: db, Payments: 5, Batch: 2, KeepEvents: 4}, &out))
	assert.Contains(t, out.String(), "4 events kept")
	m := regexp.MustCompile(`payment (\S+) is the template.* in tenant (\S+) \(API key (\S+)\)`).FindStringSubmatch(out.String())
	require.Len(t, m, 4, out.String())
	tmpl, key := m[1], m[3]
	kinds := fileUsage(t, filepath.Join(store.TenantsDir(db), store.TenantFileName(m[2])))
	assert.Equal(t, 4, kinds["evt"].Keys)
	assert.Zero(t, kinds["evi"].Keys, "clones' event ids carry their keys, as the service's do")
	assert.Equal(t, 5, kinds["cs"].Keys)
	assert.Zero(t, kinds["ctok"].Keys, "clones' client tokens name their sessions, as the service's do")

	cfg := testConfig()
	cfg.DB = db
	a := startApp(t, cfg)
	a.Key = key
	r := a.req("GET", "/payments?limit=100", nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	data, _ := r.JSON["data"].([]any)
	require.Len(t, data, 5)
	ids := map[string]bool{}
	for _, d := range data {
		id := d.(map[string]any)["id"].(string)
		ids[id] = true
		p := a.req("GET", "/payments/"+id, nil)
		require.Equal(t, 200, p.Status, "%s", p.Body)
		assert.Equal(t, "AUTHORIZED", p.Str("status"))
	}
	assert.Len(t, ids, 5, "distinct payments")
	assert.True(t, ids[tmpl])
	evs := a.must(200, "GET", "/_sandbox/webhooks/events", nil).JSON["data"].([]any)
	require.Len(t, evs, 4)
	byPayment := map[string]int{}
	for _, e := range evs {
		byPayment[e.(map[string]any)["paymentId"].(string)]++
		a.must(200, "GET", "/_sandbox/webhooks/events/"+e.(map[string]any)["id"].(string)+"/body", nil)
	}
	assert.Equal(t, []int{2, 2}, slices.Collect(maps.Values(byPayment)), "two checkouts' events")
}

// TestBenchSeedTenants: 30 checkouts over 3 tenants print 3 keys, one a
// line; each key reads its own 10 payments and none of another's.
func TestBenchSeedTenants(t *testing.T) {
	db := filepath.Join(t.TempDir(), "seed.db")
	var out bytes.Buffer
	require.NoError(t, bench.Seed(&bench.SeedOptions{DB: db, Payments: 30, Tenants: 3, Batch: 4, KeepEvents: 4}, &out))
	keys := regexp.MustCompile(`(?m)^API key: (\S+)$`).FindAllStringSubmatch(out.String(), -1)
	require.Len(t, keys, 3, out.String())

	cfg := testConfig()
	cfg.DB = db
	a := startApp(t, cfg)
	owner := map[string]string{}
	for _, k := range keys {
		tn := a.as(k[1])
		r := tn.must(200, "GET", "/payments?limit=100", nil)
		data, _ := r.JSON["data"].([]any)
		require.Len(t, data, 10, "tenant of %s", k[1])
		for _, d := range data {
			id := d.(map[string]any)["id"].(string)
			require.Empty(t, owner[id], "payment %s listed by two tenants", id)
			owner[id] = k[1]
			assert.Equal(t, "AUTHORIZED", tn.must(200, "GET", "/payments/"+id, nil).Str("status"))
		}
	}
	for id, key := range owner {
		for _, k := range keys {
			if k[1] != key {
				assert.Equal(t, 400, a.as(k[1]).req("GET", "/payments/"+id, nil).Status, "payment %s read with another tenant's key", id)
			}
		}
	}
	evs := a.as(keys[2][1]).must(200, "GET", "/_sandbox/webhooks/events", nil).JSON["data"].([]any)
	assert.Len(t, evs, 4, "the retention bound holds per tenant")
}

// TestBenchSeedFlags: --tenants is checked against --payments.
func TestBenchSeedFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
		want bench.SeedOptions
	}{
		{args: []string{"--db", "x.db", "--payments", "30", "--tenants", "3"}, want: bench.SeedOptions{DB: "x.db", Payments: 30, Tenants: 3}},
		{args: []string{"--db", "x.db"}, want: bench.SeedOptions{DB: "x.db", Payments: 100000, Tenants: 1}},
		{args: []string{"--db", "x.db", "--payments", "2", "--tenants", "3"}, err: "must not exceed --payments"},
		{args: []string{"--db", "x.db", "--tenants", "0"}, err: "at least 1"},
	} {
		var got *bench.SeedOptions
		cmd := newBenchSeedCmd(func(o *bench.SeedOptions) error { got = o; return nil })
		cmd.SetArgs(tc.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.args)
			continue
		}
		require.NoError(t, err, tc.args)
		assert.Equal(t, tc.want.DB, got.DB)
		assert.Equal(t, tc.want.Payments, got.Payments)
		assert.Equal(t, tc.want.Tenants, got.Tenants)
	}
}
