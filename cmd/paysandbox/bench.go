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
	Webhooks       bool // measure webhook deliveries instead (bench_webhooks.go)
}

// newBenchCmd measures the sandbox under load: a flow (read, auto, manual,
// mixed; see benchFlows) run by --concurrency clients for --duration in a
// tenant of its own, reported per endpoint (requests/s, p50/p95/p99/max,
// errors by errorId) and per flow (flows/s). Without --url it starts the real
// server in this process on a db file in a temporary directory (default
// fsync), as `serve` runs. --compare-ceiling runs the same load against a bare
// echo handler answering bodies of the same length in the same process, and
// prints the ratio (how the performance targets are stated).
func newBenchCmd(runF func(*benchOptions) error) *cobra.Command {
	opts := &benchOptions{}
	cmd := &cobra.Command{
		Use:     "bench",
		Short:   "Measure the sandbox under load (per endpoint and per flow), optionally as a ratio of a bare handler",
		Example: "  paysandbox bench --flow auto --duration 10s --concurrency 16 --compare-ceiling\n  paysandbox bench --url http://localhost:8080 --flow read --output json\n  paysandbox bench --webhooks",
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
	f.StringVar(&opts.URL, "url", "", "sandbox to measure (default: the server started in this process on a db file in a temp dir)")
	f.StringVar(&opts.AdminKey, "admin-key", "", "X-Admin-Key for creating the bench tenant, if the sandbox requires one")
	f.StringVar(&opts.Flow, "flow", "read", "load: "+benchFlowNames())
	f.DurationVar(&opts.Duration, "duration", 10*time.Second, "how long the load runs against the server (and as long against the ceiling)")
	f.IntVar(&opts.Concurrency, "concurrency", 16, "concurrent clients")
	f.StringVar(&opts.Output, "output", "table", "report format: table | json")
	f.BoolVar(&opts.CompareCeiling, "compare-ceiling", false, "also run the load against a bare echo handler (same body lengths, same process) and print the ratios")
	f.StringVar(&opts.Fsync, "fsync", "everysecond", "fsync policy of the in-process server: always | everysecond | never")
	f.StringVar(&opts.DB, "db", "", "db file of the in-process server (default: a new file in a temp dir, removed after); :memory: keeps nothing")
	f.StringVar(&opts.CPUProfile, "cpuprofile", "", "write a CPU profile of the measured load (client and in-process server; with --compare-ceiling the ceiling's turns too) to this file")
	f.StringVar(&opts.MemProfile, "memprofile", "", "write a heap profile after the measured run to this file")
	f.IntVar(&opts.ReadPayments, "read-payments", 64, "payments the read flow creates first and then reads in turn")
	f.IntVar(&opts.Rounds, "rounds", 4, "with --compare-ceiling: the server and the ceiling take turns in this many slices of --duration each")
	f.BoolVar(&opts.Webhooks, "webhooks", false, "measure webhook deliveries per second and their lag to a local receiver instead")
	cmd.AddCommand(newBenchSeedCmd(nil))
	return cmd
}

func (o *benchOptions) validate() error {
	if _, ok := benchFlows[o.Flow]; !ok {
		return fmt.Errorf("bench: --flow %q is not one of %s", o.Flow, benchFlowNames())
	}
	if o.Concurrency < 1 || o.Duration <= 0 || o.ReadPayments < 1 || o.Rounds < 1 {
		return fmt.Errorf("bench: --concurrency, --duration, --read-payments and --rounds must be positive")
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

// runBench runs the load against the target, then (with --compare-ceiling)
// against the ceiling, and writes the report.
func runBench(ctx context.Context, opts *benchOptions, out io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	base, target, cleanup, err := benchTarget(opts)
	if err != nil {
		return err
	}
	defer cleanup()
	flow := benchFlows[opts.Flow]
	client := newBenchClient(base, opts.Concurrency)
	defer client.http.CloseIdleConnections()

	state, err := flow.setup(ctx, client, opts)
	if err != nil {
		return fmt.Errorf("bench: setup against %s: %w", base, err)
	}
	stopProfile, err := startCPUProfile(opts.CPUProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	rounds := 1
	if opts.CompareCeiling {
		rounds = opts.Rounds
	}
	slice := opts.Duration / time.Duration(rounds)
	// With the ceiling, the server and the ceiling take turns in slices, so
	// that a change of load on a shared machine weighs on both alike.
	res := runLoad(ctx, client, flow, state, opts, slice)
	var cres *loadResult
	var cc *benchClient
	var cstate *benchState
	if opts.CompareCeiling {
		cl, err := startCeiling(res.bodyLengths())
		if err != nil {
			return err
		}
		defer cl.Close()
		cc = newBenchClient(cl.URL, opts.Concurrency)
		defer cc.http.CloseIdleConnections()
		if cstate, err = flow.setup(ctx, cc, opts); err != nil {
			return fmt.Errorf("bench: setup against the ceiling: %w", err)
		}
		cres = runLoad(ctx, cc, flow, cstate, opts, slice)
	}
	for range rounds - 1 {
		res.add(runLoad(ctx, client, flow, state, opts, slice))
		cres.add(runLoad(ctx, cc, flow, cstate, opts, slice))
	}
	stopProfile()
	if err := writeMemProfile(opts.MemProfile); err != nil {
		return err
	}
	rep := newBenchReport(opts, target, rounds, res, cres)
	return rep.write(out, opts.Output)
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
		if opts.URL != "" { // the server's CPU is not this process's
			rep.CPURatio = 0
		}
	}
	return rep
}

// benchTarget is the sandbox to measure: --url, or the real server started
// in this process (as serve starts it) on a db file in a temp dir.
func benchTarget(opts *benchOptions) (base, desc string, cleanup func(), err error) {
	if opts.URL != "" {
		return opts.URL, opts.URL, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "paysandbox-bench-")
	if err != nil {
		return "", "", nil, err
	}
	dbPath := opts.DB
	if dbPath == "" {
		dbPath = filepath.Join(dir, "bench.db")
	}
	cfg := Config{Addr: "127.0.0.1:0", DB: dbPath, RequestTimeout: 90 * time.Second, AttemptTTL: 15 * time.Minute,
		Fsync: opts.Fsync, LogFormat: "text", LogLevel: "info", AdminKey: opts.AdminKey}
	// The access log is formatted and written as serve does it, to /dev/null.
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		os.RemoveAll(dir)
		return "", "", nil, err
	}
	app, err := Open(cfg, AppOptions{LogOut: devnull})
	if err != nil {
		devnull.Close()
		os.RemoveAll(dir)
		return "", "", nil, err
	}
	gcCtx, gcStop := context.WithCancel(context.Background())
	tuneGC(gcCtx) // as serve does
	cleanup = func() { gcStop(); _ = app.Close(); devnull.Close(); os.RemoveAll(dir) }
	if err := app.Start(); err != nil {
		cleanup()
		return "", "", nil, err
	}
	desc = fmt.Sprintf("in-process server, db %s, fsync %s", dbPath, opts.Fsync)
	return app.URL(), desc, cleanup, nil
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
