package app

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfiler: --debug-addr serves Go's pprof on a loopback listener of
// its own, which the stop closes; the API's address never serves
// /debug/pprof, with or without it.
func TestProfiler(t *testing.T) {
	get := func(t *testing.T, url string) (int, string) {
		t.Helper()
		res, err := http.Get(url)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(b)
	}
	for _, debugAddr := range []string{"", "127.0.0.1:0"} {
		t.Run("debug_addr="+debugAddr, func(t *testing.T) {
			cfg := testConfig()
			cfg.DebugAddr = debugAddr
			a := startApp(t, cfg)
			for _, path := range []string{"/debug/pprof/", "/debug/pprof/cmdline", "/debug/pprof/heap"} {
				status, _ := get(t, a.URL()+path)
				assert.Equal(t, http.StatusNotFound, status, "the API's address does not serve %s", path)
			}
			if debugAddr == "" {
				assert.Empty(t, a.DebugAddr(), "no profiler unless asked for")
				return
			}
			addr := a.DebugAddr()
			require.NotEmpty(t, addr)
			status, body := get(t, "http://"+addr+"/debug/pprof/")
			require.Equal(t, http.StatusOK, status)
			assert.Contains(t, body, "goroutine", "the pprof index lists the profiles")
			status, body = get(t, "http://"+addr+"/debug/pprof/goroutine?debug=1")
			require.Equal(t, http.StatusOK, status)
			assert.Contains(t, body, "goroutine profile:")

			require.NoError(t, a.Close())
			_, err := http.Get("http://" + addr + "/debug/pprof/")
			assert.Error(t, err, "the stop closed the profiler's listener")
		})
	}
}

// TestStopCutsAProfile: a CPU profile still recording when the stop begins
// is cut once the API's requests are done: the stop does not wait for its
// seconds.
func TestStopCutsAProfile(t *testing.T) {
	cfg := testConfig()
	cfg.DebugAddr = "127.0.0.1:0"
	cfg.ShutdownTimeout = 30 * time.Second
	a, err := Open(cfg, Options{LogOut: io.Discard})
	require.NoError(t, err)
	require.NoError(t, a.Listen())
	active := make(chan struct{}, 1)
	a.debug.srv.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateActive {
			select {
			case active <- struct{}{}:
			default:
			}
		}
	}
	require.NoError(t, a.Start())
	addr := a.DebugAddr()
	ended := make(chan error, 1)
	go func() {
		res, err := http.Get("http://" + addr + "/debug/pprof/profile?seconds=600")
		if err == nil {
			_, err = io.ReadAll(res.Body)
			_ = res.Body.Close()
		}
		ended <- err
	}()
	select {
	case <-active:
	case <-time.After(hangGuard):
		t.Fatal("the profile request never reached the profiler")
	}
	stopped := make(chan error, 1)
	go func() { stopped <- a.Close() }()
	select {
	case err := <-stopped:
		require.NoError(t, err)
	case <-time.After(hangGuard):
		t.Fatal("the stop waited for the profile")
	}
	select {
	case err := <-ended:
		assert.Error(t, err, "the profile was cut, not answered")
	case <-time.After(hangGuard):
		t.Fatal("the profile request was not cut by the stop")
	}
}

// TestProfilerLoopbackOnly: an address other machines could reach is
// refused at start, with the other configuration problems.
func TestProfilerLoopbackOnly(t *testing.T) {
	tests := []struct {
		addr, want string
	}{
		{"0.0.0.0:6060", `debug_addr: "0.0.0.0:6060" is not a loopback address`},
		{":6060", `debug_addr: ":6060" is not a loopback address`},
		{"[::]:6060", `debug_addr: "[::]:6060" is not a loopback address`},
		{"192.168.1.7:6060", `debug_addr: "192.168.1.7:6060" is not a loopback address`},
		{"sandbox.example:6060", `debug_addr: "sandbox.example:6060" is not a loopback address`},
		{"127.0.0.1", `debug_addr: "127.0.0.1" is not HOST:PORT`},
		{"127.0.0.1:6060", ""},
		{"[::1]:6060", ""},
		{"localhost:6060", ""},
	}
	for _, tc := range tests {
		t.Run(tc.addr, func(t *testing.T) {
			cfg := testConfig()
			cfg.DebugAddr = tc.addr
			err := cfg.Validate()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			_, err = Open(cfg, Options{LogOut: io.Discard})
			assert.ErrorContains(t, err, tc.want, "Open refuses it too")
		})
	}
}
