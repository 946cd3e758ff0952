package app

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall"
)

// DefaultAddr is where serve listens unless told otherwise: this machine
// only. A loopback address listens on both families (see listen).
const DefaultAddr = "127.0.0.1:8080"

// loopbackAddr reports whether addr (HOST:PORT) names this machine only:
// localhost or a loopback IP. An empty host, 0.0.0.0 and :: are every
// interface; any other name or IP is some interface, reachable from outside.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// EveryInterface reports whether a bound address is the wildcard (0.0.0.0
// or [::]): every interface, so every machine that can route to this one.
func EveryInterface(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsUnspecified()
}

// checkHostName reports what is wrong with an --allowed-host entry: it is
// a host name or an IP, without scheme, port or path.
func checkHostName(h string) error {
	h = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(h), "["), "]")
	if _, err := netip.ParseAddr(h); err == nil {
		return nil
	}
	if h == "" || len(h) > 253 {
		return errors.New("must be a host name or an IP address")
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return errors.New("must be a host name or an IP address, without scheme, port or path (e.g. sandbox.example.com)")
		}
	}
	return nil
}

// listen binds addr. The loopback addresses clients reach as "localhost"
// (127.0.0.1 and localhost) listen on [::1] too, at the same port, where
// the host has IPv6 loopback: clients resolve localhost to either family.
// [::1] is skipped when the host has no IPv6 (logged at debug) or when that
// port is taken there (a warning: localhost may reach the other program);
// with port 0 a pair of free ports is tried a few times first.
func listen(addr string, log *slog.Logger) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host != "127.0.0.1" && !strings.EqualFold(host, "localhost") {
		return net.Listen("tcp", addr)
	}
	for try := 0; ; try++ {
		v4, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			return nil, err
		}
		bound := fmt.Sprint(v4.Addr().(*net.TCPAddr).Port)
		v6, err := net.Listen("tcp6", net.JoinHostPort("::1", bound))
		switch {
		case err == nil:
			return newListeners(v4, v6), nil
		case errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT):
			log.Debug("no IPv6 loopback on this host: listening on 127.0.0.1 only", "err", err)
			return v4, nil
		case port == "0" && try < 3:
			_ = v4.Close() // [::1] has that port taken: another pair
			continue
		default:
			log.Warn("[::1] cannot listen on this port: clients that resolve localhost to ::1 do not reach this sandbox; use 127.0.0.1", "port", bound, "err", err)
			return v4, nil
		}
	}
}

// listeners is one net.Listener over several (127.0.0.1 and [::1]), so one
// http.Server and one connection cap serve them all: Accept returns the
// next connection of any.
type listeners struct {
	all   []net.Listener
	conns chan acceptResult
	done  chan struct{}
	once  sync.Once
}

type acceptResult struct {
	c   net.Conn
	err error
}

func newListeners(all ...net.Listener) *listeners {
	l := &listeners{all: all, conns: make(chan acceptResult), done: make(chan struct{})}
	for _, ln := range all {
		go l.accept(ln)
	}
	return l
}

// accept hands ln's connections and errors to Accept until l is closed
// (net/http retries after a temporary error and closes l after any other).
func (l *listeners) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		select {
		case l.conns <- acceptResult{c, err}:
		case <-l.done:
			if c != nil {
				_ = c.Close()
			}
			return
		}
		if errors.Is(err, net.ErrClosed) {
			return
		}
	}
}

func (l *listeners) Accept() (net.Conn, error) {
	select {
	case r := <-l.conns:
		return r.c, r.err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close closes every listener; Accept returns net.ErrClosed from then on.
func (l *listeners) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		for _, ln := range l.all {
			err = errors.Join(err, ln.Close())
		}
	})
	return err
}

// Addr is the first listener's address (127.0.0.1's).
func (l *listeners) Addr() net.Addr { return l.all[0].Addr() }

// boundAddrs are the addresses ln listens on.
func boundAddrs(ln net.Listener) []net.Addr {
	if m, ok := ln.(*listeners); ok {
		out := make([]net.Addr, len(m.all))
		for i, l := range m.all {
			out[i] = l.Addr()
		}
		return out
	}
	return []net.Addr{ln.Addr()}
}
