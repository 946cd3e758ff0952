package app

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// profiler serves Go's net/http/pprof on --debug-addr, a loopback listener
// of its own: the API's handler never routes /debug/pprof (pprof's own
// registration on http.DefaultServeMux is served by nothing here).
type profiler struct {
	ln  net.Listener
	srv *http.Server
}

// listenProfiler binds addr (Config.Validate has checked that it is a
// loopback HOST:PORT); a name that resolves elsewhere is refused once bound.
func listenProfiler(addr string) (*profiler, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("debug_addr: %w", err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		_ = ln.Close()
		return nil, fmt.Errorf("debug_addr: %q listens on %s, which is not a loopback address", addr, ln.Addr())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // the index and every named profile (heap, goroutine, allocs, ...)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// No write timeout: a CPU profile or a trace answers after its seconds.
	return &profiler{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}, nil
}

// serve answers until close; log reports a failure of the listener.
func (p *profiler) serve(log func(error)) {
	if err := p.srv.Serve(p.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log(err)
	}
}

// close stops the listener and cuts the requests in flight (a profile still
// recording ends with an error for its client): the stop does not wait for
// it.
func (p *profiler) close() {
	_ = p.srv.Close() // closes ln too, served or not
	_ = p.ln.Close()
}

// addr is the bound address.
func (p *profiler) addr() string { return p.ln.Addr().String() }
