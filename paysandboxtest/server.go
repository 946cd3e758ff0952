package paysandboxtest

import (
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/paysandbox/paysandbox/app"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// DefaultRequestTimeout is the request timeout of the sandboxes this
// package starts, shorter than serve's: how long a payment that a timeout rule
// (gateway-timeout, `Next("gateway-timeout")`) holds waits for its 504, so
// a test of that path takes seconds. WithRequestTimeout changes it.
const DefaultRequestTimeout = 5 * time.Second

// Server is a sandbox serving in this process on a loopback port, with its
// store in memory and no default tenant: its tenants are made by New.
type Server struct {
	// URL is the sandbox's base URL (http://127.0.0.1:PORT).
	URL string

	app      *app.App
	adminKey string
	hc       *http.Client
}

// ServerOption configures a sandbox started by NewServer.
type ServerOption func(*serverConfig)

type serverConfig struct {
	cfg app.Config
	log io.Writer
}

// WithRequestTimeout sets the server's request timeout (serve's
// --request-timeout): how long a held merchant request (a timeout rule, a
// rule's latency) waits before its 504 RequestTimeout.
func WithRequestTimeout(d time.Duration) ServerOption {
	return func(c *serverConfig) { c.cfg.RequestTimeout = d }
}

// WithScenariosFile replaces the built-in scenario rules with the file's
// (serve's --scenarios); each tenant may still replace them with its own
// (WithScenarios).
func WithScenariosFile(path string) ServerOption {
	return func(c *serverConfig) { c.cfg.Scenarios = path }
}

// WithLog sends the server's log (one line per request, warnings, errors)
// to w at level (debug, info, warn or error); by default it is discarded.
func WithLog(w io.Writer, level string) ServerOption {
	return func(c *serverConfig) { c.log, c.cfg.LogLevel = w, level }
}

// WithConfig lets f change any other setting of the server (those of
// `paysandbox serve`, docs/configuration.md) after this package's defaults
// are set. With an admin key, New sends it to create tenants.
func WithConfig(f func(*app.Config)) ServerOption {
	return func(c *serverConfig) { f(&c.cfg) }
}

// shared is the sandbox New makes tenants on: started by the first New of
// the test binary, it serves until the binary exits (its goroutines and
// listener end with the process; the tenants end with their tests).
var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// sharedServer is the binary's sandbox, started on first use; a start that
// failed fails every test that asks.
func sharedServer() (*Server, error) {
	shared.once.Do(func() { shared.srv, shared.err = start(nil) })
	return shared.srv, shared.err
}

// NewServer starts a sandbox of the test's own, stopped (and its store
// dropped) when the test and its subtests end. Its New makes tenants on it.
func NewServer(t testing.TB, opts ...ServerOption) *Server {
	t.Helper()
	s, err := start(opts)
	if err != nil {
		t.Fatalf("paysandboxtest: starting a sandbox: %v", err)
	}
	t.Cleanup(func() {
		if err := s.close(); err != nil {
			t.Errorf("paysandboxtest: stopping the sandbox: %v", err)
		}
	})
	return s
}

// start opens and starts a sandbox: in memory, on a free loopback port,
// with no default tenant (a test's requests must carry its own tenant's
// key), quiet unless WithLog says otherwise.
func start(opts []ServerOption) (*Server, error) {
	noDefaultTenant := false
	c := serverConfig{log: io.Discard, cfg: app.Config{
		Addr: "127.0.0.1:0", DB: ":memory:", Fsync: "never",
		RequestTimeout: DefaultRequestTimeout, AttemptTTL: service.DefaultAttemptTTL,
		ReadTimeout: httpapi.DefaultReadTimeout, IdleTimeout: httpapi.DefaultIdleTimeout,
		LogFormat: "text", LogLevel: "error",
		DefaultTenant: &noDefaultTenant,
	}}
	for _, o := range opts {
		o(&c)
	}
	a, err := app.Open(c.cfg, app.Options{LogOut: c.log, Version: sandboxVersion()})
	if err != nil {
		return nil, err
	}
	if err := a.Start(); err != nil {
		return nil, fmt.Errorf("%w (closing: %v)", err, a.Close())
	}
	return &Server{URL: a.URL(), app: a, adminKey: c.cfg.AdminKey, hc: &http.Client{
		// Every wait of the control plane ends within a minute on the
		// server's side; this bounds a request to a sandbox that hangs.
		Timeout:   2 * time.Minute,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64},
	}}, nil
}

// close stops the sandbox: in-flight requests finish, the store is
// dropped.
func (s *Server) close() error {
	s.hc.CloseIdleConnections()
	return s.app.Close()
}

// modulePath is this module's path, as a test binary's build information
// names it.
const modulePath = "github.com/paysandbox/paysandbox"

// sandboxVersion is the version the sandboxes of this test binary report
// (GET /healthz, the served OpenAPI document): the release of this module
// the binary was built with.
func sandboxVersion() string {
	info, _ := readBuildInfo()
	return moduleVersion(info)
}

// readBuildInfo is debug.ReadBuildInfo (a test gives another binary's).
var readBuildInfo = debug.ReadBuildInfo

// moduleVersion is the version of this module in a binary whose build
// information is info: the release its go.mod requires (a merchant's test
// binary, where it is a dependency), or "dev" when it is built from a
// directory (this repository's own tests, a replace by a path).
func moduleVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "dev"
	}
	m := &info.Main
	if m.Path != modulePath {
		m = nil
		for _, d := range info.Deps {
			if d.Path == modulePath {
				m = d
				break
			}
		}
	}
	if m != nil && m.Replace != nil {
		m = m.Replace
	}
	if m == nil || m.Version == "" || m.Version == "(devel)" {
		return "dev"
	}
	return m.Version
}
