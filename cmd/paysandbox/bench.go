package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
)

type benchOptions struct {
	URL         string
	AdminKey    string
	Flows       int
	Concurrency int
	Amount      int64
	CPUProfile  string
	Webhooks    bool // measure webhook deliveries instead (bench_webhooks.go)
}

// newBenchCmd runs checkout flows (session, tokenise, pay, capture) against a
// sandbox and reports throughput and latency per step. Without --url it
// starts an in-memory sandbox in this process on a free port.
func newBenchCmd(runF func(*benchOptions) error) *cobra.Command {
	opts := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure checkout flows (session, tokenise, pay, capture) per second",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Flows < 1 || opts.Concurrency < 1 {
				return fmt.Errorf("bench: --flows and --concurrency must be at least 1")
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Webhooks {
				_, err := runWebhookBench(cmd.Context(), webhookBenchOptions{}, cmd.OutOrStdout())
				return err
			}
			return runBench(cmd.Context(), opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&opts.URL, "url", "", "sandbox to measure (default: an in-memory sandbox started in this process)")
	cmd.Flags().StringVar(&opts.AdminKey, "admin-key", "", "X-Admin-Key for creating the bench tenant, if the sandbox requires one")
	cmd.Flags().IntVar(&opts.Flows, "flows", 2000, "number of checkout flows")
	cmd.Flags().IntVar(&opts.Concurrency, "concurrency", 8, "flows run at once")
	cmd.Flags().Int64Var(&opts.Amount, "amount", 1000, "payment amount (minor units)")
	cmd.Flags().BoolVar(&opts.Webhooks, "webhooks", false, "measure webhook deliveries per second and lag to a local receiver instead")
	cmd.Flags().StringVar(&opts.CPUProfile, "cpuprofile", "", "write a CPU profile of this process (client and, without --url, server) to this file")
	return cmd
}

var benchSteps = []string{"session", "tokenise", "pay", "capture"}

func runBench(ctx context.Context, opts *benchOptions, out io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.CPUProfile != "" {
		f, err := os.Create(opts.CPUProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	base := opts.URL
	if base == "" {
		cfg := Config{Addr: "127.0.0.1:0", DB: ":memory:", RequestTimeout: 90 * time.Second, AttemptTTL: 15 * time.Minute,
			Fsync: "never", LogFormat: "text", LogLevel: "error"}
		app, err := Open(cfg, AppOptions{LogOut: io.Discard})
		if err != nil {
			return err
		}
		defer app.Close()
		if err := app.Start(); err != nil {
			return err
		}
		base = app.URL()
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: opts.Concurrency * 2}, Timeout: 2 * time.Minute}
	call := func(method, path string, hdr map[string]string, body any) (map[string]any, error) {
		raw, _ := json.Marshal(body)
		req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
			return nil, fmt.Errorf("%s %s: %d: %w", method, path, res.StatusCode, err)
		}
		if res.StatusCode/100 != 2 {
			return nil, fmt.Errorf("%s %s: %d %v", method, path, res.StatusCode, m["error"])
		}
		return m, nil
	}
	// A tenant of its own, so the measurement neither sees nor disturbs other data.
	hdr := map[string]string{}
	if opts.AdminKey != "" {
		hdr["X-Admin-Key"] = opts.AdminKey
	}
	tn, err := call("POST", "/_sandbox/tenants", hdr, map[string]any{"ttl": "1h"})
	if err != nil {
		return fmt.Errorf("bench: creating the bench tenant: %w", err)
	}
	key, _ := tn["apiKey"].(string)
	merchant := map[string]string{"X-API-KEY": key, "X-API-VERSION": "2.4"}

	lat := make([][]time.Duration, len(benchSteps))
	var mu sync.Mutex
	var failures atomic.Int64
	var firstErr atomic.Value
	next := atomic.Int64{}
	start := time.Now()
	var wg sync.WaitGroup
	for range opts.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for int(next.Add(1)) <= opts.Flows && ctx.Err() == nil {
				var took [4]time.Duration
				err := func() error {
					t0 := time.Now()
					cs, err := call("POST", "/client-session", merchant, map[string]any{"orderId": "bench", "currencyCode": "EUR", "amount": opts.Amount})
					if err != nil {
						return err
					}
					t1 := time.Now()
					tok, err := call("POST", "/client/payment-instruments", map[string]string{"X-Client-Token": fmt.Sprint(cs["clientToken"])},
						map[string]any{"paymentInstrument": map[string]any{"number": "4111111111111111", "expirationMonth": "12", "expirationYear": "2030"}})
					if err != nil {
						return err
					}
					t2 := time.Now()
					p, err := call("POST", "/payments", merchant, map[string]any{"paymentMethodToken": tok["token"]})
					if err != nil {
						return err
					}
					t3 := time.Now()
					if _, err := call("POST", fmt.Sprintf("/payments/%v/capture", p["id"]), merchant, map[string]any{}); err != nil {
						return err
					}
					took = [4]time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), time.Since(t3)}
					return nil
				}()
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				mu.Lock()
				for i, d := range took {
					lat[i] = append(lat[i], d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	ok := len(lat[0])
	fmt.Fprintf(out, "paysandbox bench: %d flows (%d failed), concurrency %d, %s against %s\n", ok, failures.Load(), opts.Concurrency, elapsed.Round(time.Millisecond), base)
	fmt.Fprintf(out, "throughput: %.0f flows/s, %.0f requests/s\n", float64(ok)/elapsed.Seconds(), float64(ok*len(benchSteps))/elapsed.Seconds())
	fmt.Fprintf(out, "%-9s %10s %10s %10s %10s\n", "step", "p50", "p90", "p99", "max")
	for i, name := range benchSteps {
		if len(lat[i]) == 0 {
			continue
		}
		slices.Sort(lat[i])
		q := func(f float64) time.Duration { return lat[i][min(len(lat[i])-1, int(f*float64(len(lat[i]))))] }
		fmt.Fprintf(out, "%-9s %10s %10s %10s %10s\n", name, q(0.5).Round(time.Microsecond), q(0.9).Round(time.Microsecond), q(0.99).Round(time.Microsecond), lat[i][len(lat[i])-1].Round(time.Microsecond))
	}
	if failures.Load() > 0 {
		return fmt.Errorf("bench: %d flows failed; first error: %v", failures.Load(), firstErr.Load())
	}
	return nil
}
