package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/spf13/cobra"
)

// benchOptions are the flags of `paysandbox bench`.
type benchOptions struct {
	URL            string
	AdminKey       string
	Flow           string
	Duration       time.Duration
	Concurrency    int
	Output         string
	CompareCeiling bool
	Fsync          string
	DB             string
	CPUProfile     string
	MemProfile     string
	ReadPayments   int
	Rounds         int
	Tokens         int  // single-use tokens the write flow creates first
	Webhooks       bool // measure webhook deliveries instead (bench_webhooks.go)
}

// newBenchCmd measures the sandbox under load: a flow (read, write, auto,
// manual, mixed; see benchFlows) run by --concurrency closed-loop clients for
// --duration in a tenant of its own, reported per endpoint (requests/s,
// p50/p95/p99/max, errors by errorId) and per flow (flows/s), with the
// server process's CPU time per request. Without --url it starts
// `paysandbox serve` (this binary) as a process of its own on a db file in a
// temporary directory. --compare-ceiling also starts a bare echo server as a
// process of its own (`bench ceiling-server`, hidden) answering with the
// sandbox's own bodies; the two take turns in slices of 250 ms, the order
// flipped every round, and the ratios are printed: the method of the shared
// benchmark the performance targets are stated in.
func newBenchCmd(runF func(*benchOptions) error) *cobra.Command {
	opts := &benchOptions{}
	cmd := &cobra.Command{
		Use:     "bench",
		Short:   "Measure the sandbox under load (per endpoint and per flow, server CPU per request), optionally as a ratio of a bare echo server",
		Example: "  paysandbox bench --flow read --compare-ceiling\n  paysandbox bench --flow write --compare-ceiling\n  paysandbox bench --flow auto --duration 10s --concurrency 16 --compare-ceiling\n  paysandbox bench --url http://localhost:8080 --flow read --output json\n  paysandbox bench --webhooks",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
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
	f := cmd.Flags()
	f.StringVar(&opts.URL, "url", "", "sandbox to measure (default: paysandbox serve started as a process of its own on a db file in a temp dir; with --url its CPU time is unknown)")
	f.StringVar(&opts.AdminKey, "admin-key", "", "X-Admin-Key for creating the bench tenant, if the sandbox requires one")
	f.StringVar(&opts.Flow, "flow", "read", "load: "+benchFlowNames())
	f.DurationVar(&opts.Duration, "duration", 10*time.Second, "how long the load runs against the server (and as long against the ceiling)")
	f.IntVar(&opts.Concurrency, "concurrency", 16, "concurrent clients")
	f.StringVar(&opts.Output, "output", "table", "report format: table | json")
	f.BoolVar(&opts.CompareCeiling, "compare-ceiling", false, "also run the load against a bare echo server (a process of its own answering with the sandbox's bodies), in turns with the sandbox, and print the ratios")
	f.StringVar(&opts.Fsync, "fsync", "everysecond", "fsync policy of the server bench starts: always | everysecond | never")
	f.StringVar(&opts.DB, "db", "", "db file of the server bench starts (default: a new file in a temp dir, removed after); :memory: keeps nothing")
	f.StringVar(&opts.CPUProfile, "cpuprofile", "", "write a CPU profile of this process, the load generator (the server runs in a process of its own), over the measured load to this file")
	f.StringVar(&opts.MemProfile, "memprofile", "", "write a heap profile of this process, the load generator, after the measured run to this file")
	f.IntVar(&opts.ReadPayments, "read-payments", 3000, "payments the read and mixed flows create first and then read in turn")
	f.IntVar(&opts.Rounds, "rounds", 0, "with --compare-ceiling: the server and the ceiling take turns in this many slices of --duration each (0: slices of 250ms)")
	f.IntVar(&opts.Tokens, "tokens", 20000, "single-use tokens the write flow creates first, one per POST /payments (more than the store's hot cache holds)")
	f.BoolVar(&opts.Webhooks, "webhooks", false, "measure webhook deliveries per second and their lag to a local receiver instead")
	cmd.AddCommand(newBenchSeedCmd(nil), newBenchCeilingCmd())
	return cmd
}

func (o *benchOptions) validate() error {
	if _, ok := benchFlows[o.Flow]; !ok {
		return fmt.Errorf("bench: --flow %q is not one of %s", o.Flow, benchFlowNames())
	}
	if o.Concurrency < 1 || o.Duration <= 0 || o.ReadPayments < 1 {
		return fmt.Errorf("bench: --concurrency, --duration and --read-payments must be positive")
	}
	if o.Flow == "write" && o.Tokens < 1 {
		return fmt.Errorf("bench: --tokens must be positive for the write flow")
	}
	if o.Rounds < 0 {
		return fmt.Errorf("bench: --rounds must not be negative")
	}
	if o.Output != "table" && o.Output != "json" {
		return fmt.Errorf("bench: --output %q is not table or json", o.Output)
	}
	switch o.Fsync {
	case "always", "everysecond", "never":
	default:
		return fmt.Errorf("bench: --fsync %q is not always, everysecond or never", o.Fsync)
	}
	return nil
}

// runBench starts the server (unless --url names one), runs the load against
// it and, with --compare-ceiling, against the ceiling in turns, and writes
// the report.
func runBench(ctx context.Context, opts *benchOptions, out io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	dir, err := os.MkdirTemp("", "paysandbox-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, target, err := benchTarget(dir, opts)
	if err != nil {
		return err
	}
	if srv.pid != 0 {
		defer srv.stop()
	}
	flow := benchFlows[opts.Flow]
	client := newBenchClient(srv.base, opts.Concurrency)
	defer client.http.CloseIdleConnections()

	state, err := flow.setup(ctx, client, opts)
	if err != nil {
		return fmt.Errorf("bench: setup against %s: %w", srv.base, err)
	}
	stopProfile, err := startCPUProfile(opts.CPUProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	var res, cres *loadResult
	if opts.CompareCeiling {
		if res, cres, err = runTurns(ctx, dir, client, flow, state, srv.pid, opts, benchRounds(opts)); err != nil {
			return err
		}
	} else {
		res = runLoad(ctx, client, flow, state, opts, opts.Duration, srv.pid)
	}
	stopProfile()
	if err := writeMemProfile(opts.MemProfile); err != nil {
		return err
	}
	rep := newBenchReport(opts, target, res.slices, res, cres)
	return rep.write(out, opts.Output)
}

// runTurns starts the ceiling and runs the load against the server (pid) and
// the ceiling in turns, rounds slices of --duration each, the order flipped
// every round, so that a change of load on a shared machine weighs on both
// alike. It stops early once the server has used every single-use token.
func runTurns(ctx context.Context, dir string, client *benchClient, flow benchFlow, state *benchState, pid int,
	opts *benchOptions, rounds int) (res, cres *loadResult, err error) {
	// Each client runs one flow on the server first, not measured: the
	// connections open and the server gives the answers the ceiling repeats.
	warm := runLoad(ctx, client, flow, state, opts, 0, pid)
	ceil, err := startBenchCeiling(dir, warm.bodies())
	if err != nil {
		return nil, nil, err
	}
	defer ceil.stop()
	cc := newBenchClient(ceil.base, opts.Concurrency)
	defer cc.http.CloseIdleConnections()
	cstate := state.forCeiling()
	runLoad(ctx, cc, flow, cstate, opts, 0, ceil.pid) // its warm-up
	slice := opts.Duration / time.Duration(rounds)
	server := func() { res = res.add(runLoad(ctx, client, flow, state, opts, slice, pid)) }
	ceiling := func() { cres = cres.add(runLoad(ctx, cc, flow, cstate, opts, slice, ceil.pid)) }
	for round := range rounds {
		if state.exhausted() {
			break
		}
		if round%2 == 0 {
			server()
			ceiling()
		} else {
			ceiling()
			server()
		}
	}
	if res == nil {
		return nil, nil, fmt.Errorf("bench: the warm-up used every one of the %d tokens: raise --tokens", opts.Tokens)
	}
	return res, cres, nil
}

// benchSlice is how long the server and the ceiling each run in a turn
// when --rounds is not given.
const benchSlice = 250 * time.Millisecond

// benchRounds is --rounds, or as many turns of benchSlice as --duration holds.
func benchRounds(opts *benchOptions) int {
	if opts.Rounds > 0 {
		return opts.Rounds
	}
	return max(1, int(opts.Duration/benchSlice))
}

// newBenchReport summarises a run: res measured on the server, cres (nil:
// not measured) on the ceiling, with their ratios.
func newBenchReport(opts *benchOptions, target string, rounds int, res, cres *loadResult) benchReport {
	rep := benchReport{Flow: opts.Flow, Target: target, Concurrency: opts.Concurrency, Duration: opts.Duration.String(),
		Rounds: rounds, GoMaxProcs: runtime.GOMAXPROCS(0), Server: res.summary()}
	if cres != nil {
		c := cres.summary()
		rep.Ceiling = &c
		rep.ratios()
	}
	return rep
}

// benchTarget is the sandbox to measure: --url, or `paysandbox serve`
// started as a process of its own on --db (default: a file in dir).
func benchTarget(dir string, opts *benchOptions) (*benchProcess, string, error) {
	if opts.URL != "" {
		return &benchProcess{base: opts.URL}, opts.URL, nil
	}
	dbPath := opts.DB
	if dbPath == "" {
		dbPath = filepath.Join(dir, "bench.db")
	}
	p, err := startBenchServe(dir, dbPath, opts)
	if err != nil {
		return nil, "", err
	}
	return p, fmt.Sprintf("paysandbox serve, pid %d, db %s, fsync %s", p.pid, dbPath, opts.Fsync), nil
}

func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { pprof.StopCPUProfile(); f.Close() }) }, nil
}

func writeMemProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	runtime.GC()
	return pprof.WriteHeapProfile(f)
}

// newBenchClient is an HTTP client keeping one connection per concurrent client.
func newBenchClient(base string, concurrency int) *benchClient {
	return &benchClient{base: base, http: &http.Client{
		Transport: &http.Transport{MaxIdleConns: concurrency * 2, MaxIdleConnsPerHost: concurrency * 2, DisableCompression: true},
		Timeout:   2 * time.Minute,
	}}
}
