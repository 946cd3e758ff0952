package httpapi

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/paysandbox/paysandbox/simulator"
)

// MaxHeaderBytes bounds a request's header block (docs/limits.md):
// Guard answers a bigger one 431 RequestHeaderFieldsTooLarge in the error
// envelope.
const MaxHeaderBytes = 64 << 10

// headerReadCap is what net/http reads of a header block at most (its
// MaxHeaderBytes plus its own 4 KiB of slack): up to it, an oversized block
// reaches Guard and gets the envelope; past it net/http itself answers a
// plain 431 and closes, so a client cannot make the server buffer more
// (at most 4,096 connections x 128 KiB while headers arrive).
const headerReadCap = 128 << 10

// ConnLimiter is a net.Listener that holds at most Max connections open at
// once. A connection past the cap is accepted, answered at once with 429
// TooManyRequests (Connection: close) and closed, so the process never runs
// out of descriptors and the refused client learns why without waiting.
// Its ConnState method, installed on the http.Server, tracks each
// connection's state so that shutdown can close the ones that never sent a
// request (net/http waits 5 s for those).
type ConnLimiter struct {
	net.Listener
	max int

	mu      sync.Mutex
	open    int
	states  map[net.Conn]http.ConnState
	closing bool
	refused int64
}

// LimitListener wraps ln; max <= 0 means no cap.
func LimitListener(ln net.Listener, max int) *ConnLimiter {
	return &ConnLimiter{Listener: ln, max: max, states: map[net.Conn]http.ConnState{}}
}

// refusal is the whole answer to a connection past the cap, with its own
// request id (X-Request-Id and diagnosticsId, as every answer has).
func refusal() []byte {
	rid := uuid.NewString()
	body, _ := jsonBytes(errorBody{Error: errorObject{
		ErrorID:            string(simulator.CodeTooManyRequests),
		Description:        "The sandbox has too many open connections",
		RecoverySuggestion: "Retry shortly, or close idle connections.",
		DiagnosticsID:      rid,
	}})
	return []byte("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nConnection: close\r\nRetry-After: 1\r\nX-Request-Id: " + rid +
		"\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body))
}

// Accept returns the next connection under the cap; connections past it are
// refused in the background and never returned.
func (l *ConnLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.max > 0 && l.open >= l.max {
			l.refused++
			l.mu.Unlock()
			go refuse(c)
			continue
		}
		l.open++
		l.mu.Unlock()
		return &limitedConn{Conn: c, l: l}, nil
	}
}

// refuse answers a connection past the cap and closes it. The write is
// bounded so a client that does not read cannot hold the goroutine.
func refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Write(refusal())
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	_ = c.Close()
}

// Open is the number of connections held now; Refused how many were turned away.
func (l *ConnLimiter) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// Refused is how many connections were refused at the cap since the start.
func (l *ConnLimiter) Refused() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refused
}

// ConnState is the http.Server hook that tracks connection states.
func (l *ConnLimiter) ConnState(c net.Conn, st http.ConnState) {
	l.mu.Lock()
	closeIt := false
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(l.states, c)
	default:
		l.states[c] = st
		closeIt = st == http.StateNew && l.closing
	}
	l.mu.Unlock()
	if closeIt { // outside the lock: Close gives the slot back under it
		_ = c.Close()
	}
}

// CloseUnused closes every connection that has not started a request yet
// and every later one as soon as it is accepted (shutdown: net/http treats a
// new connection as busy for 5 s).
func (l *ConnLimiter) CloseUnused() {
	l.mu.Lock()
	l.closing = true
	var unused []net.Conn
	for c, st := range l.states {
		if st == http.StateNew {
			unused = append(unused, c)
		}
	}
	l.mu.Unlock()
	for _, c := range unused {
		_ = c.Close()
	}
}

func (l *ConnLimiter) release() {
	l.mu.Lock()
	l.open--
	l.mu.Unlock()
}

// limitedConn gives its slot back once, when closed.
type limitedConn struct {
	net.Conn
	l    *ConnLimiter
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.l.release)
	return err
}
