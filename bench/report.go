package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Report is what bench prints (--output json writes it as is).
type Report struct {
	Flow        string       `json:"flow"`
	Target      string       `json:"target"`
	Concurrency int          `json:"concurrency"`
	Duration    string       `json:"duration"`
	Rounds      int          `json:"rounds"`
	GoMaxProcs  int          `json:"gomaxprocs"`
	Server      LoadSummary  `json:"server"`
	Ceiling     *LoadSummary `json:"ceiling,omitempty"`
	// FlowRatio is server flows/s over ceiling flows/s.
	FlowRatio float64 `json:"flowRatio,omitempty"`
	// CPURatio is the ceiling process's CPU time per flow over the server
	// process's: what FlowRatio tends to on a machine of its own, and much
	// steadier than it when other work shares the CPU. 0 with --url.
	CPURatio float64 `json:"cpuRatio,omitempty"`
	// ServerCPURatio is the server process's CPU time per request as a
	// multiple of the ceiling process's (how the shared benchmark states
	// it: lower is better). 0 with --url.
	ServerCPURatio float64 `json:"serverCpuRatio,omitempty"`
}

// LoadSummary is one load run in figures.
type LoadSummary struct {
	Flows       int     `json:"flows"`
	FailedFlows int     `json:"failedFlows"`
	FlowsPerSec float64 `json:"flowsPerSec"`
	FirstError  string  `json:"firstError,omitempty"`
	// CPUPerFlow is this process's CPU time per flow (the load generator's;
	// the servers run in processes of their own), in microseconds.
	CPUPerFlow float64 `json:"cpuPerFlowUs"`
	// PID is the server's process (0 with --url).
	PID int `json:"pid,omitempty"`
	// Requests are the requests answered, failed ones included.
	Requests int `json:"requests"`
	// ServerCPUPerRequest and ServerCPUPerFlow are the server process's
	// user+system CPU time over the measured slices, per request and per
	// flow, in microseconds; ServerCPUUnknown says why they are missing.
	ServerCPUPerRequest float64           `json:"serverCpuPerRequestUs,omitempty"`
	ServerCPUPerFlow    float64           `json:"serverCpuPerFlowUs,omitempty"`
	ServerCPUUnknown    string            `json:"serverCpuUnknown,omitempty"`
	Endpoints           []EndpointSummary `json:"endpoints"`
}

// EndpointSummary is one endpoint of a run; latencies in milliseconds.
type EndpointSummary struct {
	Endpoint    string         `json:"endpoint"`
	Requests    int            `json:"requests"`
	RequestsSec float64        `json:"requestsPerSec"`
	Mean        float64        `json:"meanMs"`
	P50         float64        `json:"p50Ms"`
	P95         float64        `json:"p95Ms"`
	P99         float64        `json:"p99Ms"`
	Max         float64        `json:"maxMs"`
	BodyBytes   int            `json:"bodyBytes"`
	Errors      map[string]int `json:"errors,omitempty"`
	// Ratio (with --compare-ceiling) is the ceiling's mean latency over this
	// endpoint's in the same flow: by Little's law, the requests/s this
	// endpoint reaches as a share of the bare handler's with the same number
	// of clients. For the read flow it equals the ratio of requests/s.
	Ratio float64 `json:"ratio,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (r *loadResult) summary() LoadSummary {
	s := LoadSummary{Flows: r.flows, FailedFlows: r.failedFlows, FirstError: r.firstError,
		FlowsPerSec: float64(r.flows) / r.elapsed.Seconds()}
	if r.flows > 0 {
		s.CPUPerFlow = float64(r.cpu.Microseconds()) / float64(r.flows)
	}
	s.PID = r.serverPID
	for _, e := range r.eps {
		s.Requests += len(e.lat)
		for _, n := range e.errors {
			s.Requests += n
		}
	}
	switch {
	case r.cpuErr != nil:
		s.ServerCPUUnknown = r.cpuErr.Error()
	case s.Requests > 0:
		s.ServerCPUPerRequest = float64(r.serverCPU.Nanoseconds()) / 1000 / float64(s.Requests)
		if r.flows > 0 {
			s.ServerCPUPerFlow = float64(r.serverCPU.Nanoseconds()) / 1000 / float64(r.flows)
		}
	}
	for _, label := range slices.Sorted(maps.Keys(r.eps)) {
		e := r.eps[label]
		es := EndpointSummary{Endpoint: label, Requests: len(e.lat), BodyBytes: e.bodyLen,
			RequestsSec: float64(len(e.lat)) / r.elapsed.Seconds()}
		if len(e.errors) > 0 {
			es.Errors = e.errors
		}
		if n := len(e.lat); n > 0 {
			q := func(f float64) float64 { return ms(e.lat[min(n-1, int(f*float64(n)))]) }
			var sum time.Duration
			for _, d := range e.lat {
				sum += d
			}
			es.Mean = ms(sum / time.Duration(n))
			es.P50, es.P95, es.P99, es.Max = q(0.50), q(0.95), q(0.99), ms(e.lat[n-1])
		}
		s.Endpoints = append(s.Endpoints, es)
	}
	return s
}

// ratios fills the server's ratios against the ceiling.
func (b *Report) ratios() {
	if b.Ceiling == nil {
		return
	}
	if b.Ceiling.FlowsPerSec > 0 {
		b.FlowRatio = b.Server.FlowsPerSec / b.Ceiling.FlowsPerSec
	}
	if b.Server.ServerCPUPerFlow > 0 {
		b.CPURatio = b.Ceiling.ServerCPUPerFlow / b.Server.ServerCPUPerFlow
	}
	if b.Ceiling.ServerCPUPerRequest > 0 {
		b.ServerCPURatio = b.Server.ServerCPUPerRequest / b.Ceiling.ServerCPUPerRequest
	}
	for i, e := range b.Server.Endpoints {
		for _, c := range b.Ceiling.Endpoints {
			if c.Endpoint == e.Endpoint && e.Mean > 0 {
				b.Server.Endpoints[i].Ratio = c.Mean / e.Mean
			}
		}
	}
}

func (b *Report) write(w io.Writer, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	fmt.Fprintf(w, "paysandbox bench: flow %s, %d clients, %s in %d turn(s), GOMAXPROCS %d\ntarget: %s\n", b.Flow, b.Concurrency, b.Duration, b.Rounds, b.GoMaxProcs, b.Target)
	writeSummary(w, "server", b.Server, b.Ceiling != nil)
	if b.Ceiling != nil {
		writeSummary(w, "ceiling (bare echo server, its own process, the sandbox's bodies)", *b.Ceiling, false)
		fmt.Fprintf(w, "ratio: %.2fx the ceiling in flows/s", b.FlowRatio)
		if b.CPURatio > 0 {
			fmt.Fprintf(w, "; %.2fx in server CPU time per flow", b.CPURatio)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "server CPU per request: %s server, %s ceiling", cpuUs(b.Server), cpuUs(*b.Ceiling))
		if b.ServerCPURatio > 0 {
			fmt.Fprintf(w, " (%.2fx the ceiling's)", b.ServerCPURatio)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// cpuUs is a server CPU time per request, or "-" when it is unknown.
func cpuUs(s LoadSummary) string {
	if s.ServerCPUUnknown != "" || s.ServerCPUPerRequest == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f us", s.ServerCPUPerRequest)
}

func writeSummary(w io.Writer, title string, s LoadSummary, ratio bool) {
	fmt.Fprintf(w, "\n%s: %d flows (%d failed), %.0f flows/s, %d requests\n", title, s.Flows, s.FailedFlows, s.FlowsPerSec, s.Requests)
	if s.ServerCPUUnknown != "" {
		fmt.Fprintf(w, "server CPU: - (%s); load generator CPU %.0f us per flow\n", s.ServerCPUUnknown, s.CPUPerFlow)
	} else {
		fmt.Fprintf(w, "server CPU (pid %d): %.0f us per request, %.0f us per flow; load generator CPU %.0f us per flow\n",
			s.PID, s.ServerCPUPerRequest, s.ServerCPUPerFlow, s.CPUPerFlow)
	}
	head := fmt.Sprintf("%-36s %8s %9s %8s %8s %8s %8s %8s", "endpoint", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "bytes")
	if ratio {
		head += fmt.Sprintf(" %7s", "ratio")
	}
	fmt.Fprintln(w, head)
	for _, e := range s.Endpoints {
		line := fmt.Sprintf("%-36s %8d %9.0f %8.2f %8.2f %8.2f %8.2f %8d", e.Endpoint, e.Requests, e.RequestsSec, e.P50, e.P95, e.P99, e.Max, e.BodyBytes)
		if ratio {
			line += fmt.Sprintf(" %6.2fx", e.Ratio)
		}
		fmt.Fprintln(w, line)
		if len(e.Errors) > 0 {
			var parts []string
			for _, id := range slices.Sorted(maps.Keys(e.Errors)) {
				parts = append(parts, fmt.Sprintf("%s=%d", id, e.Errors[id]))
			}
			fmt.Fprintf(w, "%-36s errors: %s\n", "", strings.Join(parts, " "))
		}
	}
	if s.FirstError != "" {
		fmt.Fprintf(w, "first error: %s\n", s.FirstError)
	}
}
