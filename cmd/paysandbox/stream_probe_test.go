package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/dashboard"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// TestStreamProbe measures what one tenant's dashboard streams cost another
// tenant: tenant A (6,000 payments) holds its full share of streams (the
// per-tenant cap of held requests) on its payments list, and tenant B sends
// GET /payments/{id} one after another for PAYSANDBOX_STREAM_PROBE seconds;
// it prints B's latency percentiles and what A's stream past the cap got.
// It asserts no time (the figure goes to the docs); it runs only when asked:
//
//	PAYSANDBOX_STREAM_PROBE=20 go test ./cmd/paysandbox -run TestStreamProbe -v
func TestStreamProbe(t *testing.T) {
	secs, _ := strconv.Atoi(os.Getenv("PAYSANDBOX_STREAM_PROBE"))
	if secs <= 0 {
		t.Skip("set PAYSANDBOX_STREAM_PROBE=<seconds> to run the probe")
	}
	streams := service.DefaultMaxHeldPerTenant // the full share (0: a baseline without streams)
	if n, err := strconv.Atoi(os.Getenv("PAYSANDBOX_STREAM_PROBE_STREAMS")); err == nil && n >= 0 {
		streams = n
	}
	a := newTestApp(t)
	svc := a.Svc
	ten := map[string]*simulator.Tenant{}
	for _, id := range []string{"probe-a", "probe-b"} {
		tn, err := svc.EnsureTenant(service.TenantSpec{ID: id, SigningSecret: "s", APIKeys: []simulator.APIKey{{Key: "key-" + id, Scopes: simulator.AllScopes}}})
		require.NoError(t, err)
		ten[id] = tn
	}
	pay := func(tn *simulator.Tenant, i int) *simulator.Payment {
		amount := int64(100 + i%3900)
		cs, err := svc.CreateSession(tn, simulator.SessionData{OrderID: fmt.Sprintf("o-%d", i), CurrencyCode: "EUR", Amount: &amount, CustomerID: fmt.Sprintf("c-%d", i%50)}, simulator.ApprovalAuto)
		require.NoError(t, err)
		tok, err := svc.Tokenize(cs.ClientToken, service.CardInput{Number: numOK, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Jane"})
		require.NoError(t, err)
		p, err := svc.CreatePayment(context.Background(), tn, service.PaymentRequest{Token: tok.Instrument.Token})
		require.NoError(t, err)
		return p
	}
	seedStart := time.Now()
	for i := range 6000 {
		if i%100 == 0 {
			a.Clock.Advance(time.Second)
		}
		pay(ten["probe-a"], i)
	}
	target := pay(ten["probe-b"], 0).ID
	t.Logf("seeded 6,000 payments in %s", time.Since(seedStart).Round(time.Millisecond))

	jar, _ := cookiejar.New(nil)
	ui := &http.Client{Jar: jar, Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: streams + 8}}
	t.Cleanup(ui.CloseIdleConnections)
	login, err := http.NewRequest(http.MethodPost, a.URL()+dashboard.Prefix+"/login", strings.NewReader(url.Values{"apiKey": {"key-probe-a"}}.Encode()))
	require.NoError(t, err)
	login.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	login.Header.Set("Origin", a.URL())
	res, err := ui.Do(login)
	require.NoError(t, err)
	res.Body.Close()

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// A filter the store cannot page by: each look scans the tenant's 6,000 payments.
	query := os.Getenv("PAYSANDBOX_STREAM_PROBE_QUERY")
	if query == "" {
		query = "customerId=c-7"
	}
	topic := a.URL() + dashboard.Prefix + "/events?topic=payments&" + query
	open := func() int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, topic, nil)
		require.NoError(t, err)
		res, err := ui.Do(req)
		require.NoError(t, err)
		if res.StatusCode != http.StatusOK {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			return res.StatusCode
		}
		rd := bufio.NewReader(res.Body)
		for {
			line, err := rd.ReadString('\n')
			require.NoError(t, err)
			if strings.HasPrefix(line, "event: ready") {
				break
			}
		}
		go func() { _, _ = io.Copy(io.Discard, rd); res.Body.Close() }()
		return res.StatusCode
	}
	for range streams {
		require.Equal(t, http.StatusOK, open())
	}
	t.Logf("tenant A holds %d streams (%s); its next stream answers %d", streams, query, open())
	idle := cpu()
	time.Sleep(5 * time.Second)
	t.Logf("the process used %s of CPU in 5 s while nothing changed", (cpu() - idle).Round(time.Millisecond))

	workers, _ := strconv.Atoi(os.Getenv("PAYSANDBOX_STREAM_PROBE_WORKERS"))
	workers = max(workers, 1)
	get := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	t.Cleanup(get.CloseIdleConnections)
	lats := make([][]time.Duration, workers)
	end := time.Now().Add(time.Duration(secs) * time.Second)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for time.Now().Before(end) {
				req, _ := http.NewRequest(http.MethodGet, a.URL()+"/payments/"+target, nil)
				req.Header.Set("X-API-KEY", "key-probe-b")
				req.Header.Set("X-API-VERSION", "2.4")
				start := time.Now()
				res, err := get.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				lats[w] = append(lats[w], time.Since(start))
				if res.StatusCode != http.StatusOK {
					t.Errorf("GET answered %d", res.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	lat := slices.Concat(lats...)
	slices.Sort(lat)
	q := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(time.Microsecond)
	}
	t.Logf("tenant B (%d workers): %d GET /payments/{id} in %ds: p50 %s, p90 %s, p99 %s, max %s", workers, len(lat), secs, q(.50), q(.90), q(.99), lat[len(lat)-1].Round(time.Microsecond))
}

// cpu is the CPU time the process used so far (user and system).
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
