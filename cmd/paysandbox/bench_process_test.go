package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/bench"
)

// benchChildMain is set in the environment of the processes bench starts
// from the tests, and of the shells that call the CLI (cliOnPath): the test
// binary, re-executed, then runs main.
const benchChildMain = "PAYSANDBOX_TEST_BENCH_CHILD_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(benchChildMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// childEnv is bench.Options.Env of the tests: the processes bench starts are
// this test binary, which then runs main.
var childEnv = []string{benchChildMain + "=1"}

// TestBenchCompareCeilingProcesses: with --compare-ceiling the sandbox and
// the ceiling run as processes of their own (neither is the test's), and the
// report carries each one's server CPU per request and their ratio.
func TestBenchCompareCeilingProcesses(t *testing.T) {
	for _, flow := range []string{"read", "write"} {
		t.Run(flow, func(t *testing.T) {
			var out bytes.Buffer
			opts := &bench.Options{Flow: flow, Duration: 400 * time.Millisecond, Concurrency: 2, Output: "json",
				CompareCeiling: true, Fsync: "never", ReadPayments: 2, Tokens: 200, Rounds: 2, Env: childEnv}
			require.NoError(t, opts.Validate())
			require.NoError(t, bench.Run(t.Context(), opts, &out))
			var rep bench.Report
			require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
			require.NotNil(t, rep.Ceiling)
			s, c := rep.Server, *rep.Ceiling
			assert.Positive(t, s.PID)
			assert.Positive(t, c.PID)
			assert.NotEqual(t, os.Getpid(), s.PID, "the sandbox runs in a process of its own")
			assert.NotEqual(t, os.Getpid(), c.PID, "the ceiling runs in a process of its own")
			assert.NotEqual(t, s.PID, c.PID)
			for _, sum := range []bench.LoadSummary{s, c} {
				assert.Empty(t, sum.ServerCPUUnknown)
				assert.Zero(t, sum.FailedFlows, sum.FirstError)
				assert.Positive(t, sum.Requests)
				assert.Positive(t, sum.ServerCPUPerRequest)
				assert.Positive(t, sum.ServerCPUPerFlow)
			}
			assert.Positive(t, rep.ServerCPURatio)
			assert.Positive(t, rep.CPURatio)
		})
	}
}
