package bench

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
)

// Options are the flags of `paysandbox bench` and what Run needs besides.
type Options struct {
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
	Webhooks       bool // measure webhook deliveries instead (Webhooks)
	// Env is added to the environment of the processes Run starts (the
	// serve it measures, the ceiling): a test binary re-executed in their
	// place runs main with it.
	Env []string
}

// Validate reports the first option out of range, named by its flag.
func (o *Options) Validate() error {
	if _, ok := benchFlows[o.Flow]; !ok {
		return fmt.Errorf("bench: --flow %q is not one of %s", o.Flow, FlowNames())
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

// Run measures the sandbox under load: a flow (read, write, auto, manual,
// mixed; see benchFlows) run by --concurrency closed-loop clients for
// --duration in a tenant of its own, reported per endpoint (requests/s,
// p50/p95/p99/max, errors by errorId) and per flow (flows/s), with the
// server process's CPU time per request. Without --url it starts
// `paysandbox serve` (this process's binary, which must be paysandbox) as a
// process of its own on a db file in a temporary directory. --compare-ceiling
// also starts a bare echo server as a process of its own (`bench
// ceiling-server`, RunCeiling) answering with the sandbox's own bodies; the
// two take turns in slices of 250 ms, the order flipped every round, and the
// ratios are printed: the method of the shared benchmark the performance
// targets are stated in.
func Run(ctx context.Context, opts *Options, out io.Writer) error {
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
	rep := newReport(opts, target, res.slices, res, cres)
	return rep.write(out, opts.Output)
}

// runTurns starts the ceiling and runs the load against the server (pid) and
// the ceiling in turns, rounds slices of --duration each, the order flipped
// every round, so that a change of load on a shared machine weighs on both
// alike. It stops early once the server has used every single-use token.
func runTurns(ctx context.Context, dir string, client *benchClient, flow benchFlow, state *benchState, pid int,
	opts *Options, rounds int) (res, cres *loadResult, err error) {
	// Each client runs one flow on the server first, not measured: the
	// connections open and the server gives the answers the ceiling repeats.
	warm := runLoad(ctx, client, flow, state, opts, 0, pid)
	ceil, err := startBenchCeiling(dir, warm.bodies(), opts.Env)
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
func benchRounds(opts *Options) int {
	if opts.Rounds > 0 {
		return opts.Rounds
	}
	return max(1, int(opts.Duration/benchSlice))
}

// newReport summarises a run: res measured on the server, cres (nil:
// not measured) on the ceiling, with their ratios.
func newReport(opts *Options, target string, rounds int, res, cres *loadResult) Report {
	rep := Report{Flow: opts.Flow, Target: target, Concurrency: opts.Concurrency, Duration: opts.Duration.String(),
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
func benchTarget(dir string, opts *Options) (*benchProcess, string, error) {
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
