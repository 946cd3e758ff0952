package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// The connection limits' defaults (docs/limits.md): what serve uses
// unless configured otherwise, and what the limits table (Limits) states.
const (
	// DefaultReadTimeout is how long a request's headers and body may take
	// to arrive.
	DefaultReadTimeout = 10 * time.Second
	// DefaultIdleTimeout closes keep-alive connections idle this long.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxConnections is how many connections are open at most
	// (LimitListener's cap).
	DefaultMaxConnections = 4096
	// DefaultShutdownTimeout bounds a stop from the signal to the exit: the
	// in-flight requests first (Drain, then http.Server.Shutdown), then
	// what the composition root flushes with what is left.
	DefaultShutdownTimeout = 5 * time.Second
)

// HTTPServer builds the http.Server for s with the connection limits of
// docs/limits.md: the header block at most MaxHeaderBytes, headers and
// body within Options.ReadTimeout (counted from the request's first byte),
// idle keep-alive connections closed after Options.IdleTimeout. There is no
// server-wide write timeout: long-polls, requests held by a timeout rule and
// event streams run as long as their own bound says. ln, when not nil, gets
// the connection-state hook that shutdown uses.
func (s *Server) HTTPServer(h http.Handler, ln *ConnLimiter) *http.Server {
	hs := &http.Server{
		Handler:           s.Guard(h),
		ReadHeaderTimeout: s.opt.ReadTimeout,
		// net/http's ReadTimeout sets one read deadline for the headers and
		// the body together; receive clears it once the body is in, so a
		// handler that runs longer is never cut by it.
		ReadTimeout: s.opt.ReadTimeout,
		IdleTimeout: s.opt.IdleTimeout,
		// net/http allows 4 KiB of slack above its MaxHeaderBytes. It reads
		// up to headerReadCap so that Guard can refuse a block over
		// MaxHeaderBytes in the error envelope.
		MaxHeaderBytes: headerReadCap - 4096,
		ErrorLog:       nil,
	}
	if ln != nil {
		hs.ConnState = ln.ConnState
	}
	return hs
}

// Guard refuses a Host that Options.Hosts does not answer and bounds how
// long next's request bodies may take to arrive (see receive); HTTPServer
// puts it outermost so the dashboard, mounted beside the API, is covered too.
func (s *Server) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.opt.Hosts.Allows(r.Host) {
			s.rawError(w, r, errForeignHost(r.Host))
			return
		}
		if n := headerBlockSize(r); n > MaxHeaderBytes {
			s.rawError(w, r, simulator.Errorf(simulator.CodeHeadersTooLarge,
				"The request's header block is %d bytes; at most %d are accepted", n, MaxHeaderBytes).
				WithRecovery("Send fewer or shorter headers (cookies included)."))
			return
		}
		if s.receive(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// headerBlockSize is the size of r's header block as it came on the wire
// (request line, Host, every header line and the blank line; net/http only
// normalises the names' case, which keeps their length).
func headerBlockSize(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	if r.Host != "" {
		n += len("Host: ") + len(r.Host) + 2
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n + 2
}

// Routes is the API's router without the body guard (for a handler that
// mounts it under Guard).
func (s *Server) Routes() http.Handler { return s.api }

// receiving tracks the requests whose body is still arriving, so that
// shutdown can cut them at once.
type receiving struct {
	mu       sync.Mutex
	draining bool
	active   map[*http.Request]http.ResponseWriter
}

// add registers request req, answered through w; during a drain its read
// is cut at once instead. (A ResponseController is made only to cut: one
// kept per request would be an allocation each.)
func (r *receiving) add(req *http.Request, w http.ResponseWriter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.draining {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
		return
	}
	if r.active == nil {
		r.active = map[*http.Request]http.ResponseWriter{}
	}
	r.active[req] = w
}

func (r *receiving) remove(req *http.Request) {
	r.mu.Lock()
	delete(r.active, req)
	r.mu.Unlock()
}

func (r *receiving) drain() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.draining = true
	for _, w := range r.active {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	}
}

// receive reads the whole request body (at most its limit+1 bytes, bodyLimit) under the
// read deadline that net/http set from Options.ReadTimeout, hands it to the
// handlers from memory, and then clears the deadline: from here on only the
// handler's own bound applies. A body that does not arrive in time is 400
// BadRequest and the connection is closed. It reports whether the request
// should go on to the router.
func (s *Server) receive(w http.ResponseWriter, r *http.Request) bool {
	if s.opt.ReadTimeout <= 0 {
		return true
	}
	rc := http.NewResponseController(w)
	if r.Body == nil || r.Body == http.NoBody {
		_ = rc.SetReadDeadline(time.Time{})
		return true
	}
	limit := s.bodyLimit(r)
	if r.ContentLength > limit { // 413 without reading; the deadline bounds the discard
		return true
	}
	s.bodies.add(r, w)
	b, err := readUpTo(r.Body, r.ContentLength, limit)
	s.bodies.remove(r)
	if err != nil {
		msg := "The request body could not be read"
		if errors.Is(err, os.ErrDeadlineExceeded) {
			msg = "The request body did not arrive within " + s.opt.ReadTimeout.String()
		}
		s.rawError(w, r, simulator.Errorf(simulator.CodeBadRequest, "%s", msg).WithRecovery("Send the whole body at once."))
		return false
	}
	rb := &receivedBody{b: b}
	rb.Reset(b)
	r.Body = rb
	if int64(len(b)) <= limit { // all of it is in: lift the deadline for the handler
		_ = rc.SetReadDeadline(time.Time{})
	}
	return true
}

// readUpTo reads body to its end, at most limit+1 bytes. A body of a known
// length (size, its Content-Length) is read into a buffer of that size and
// one byte more, which is all the allocation it costs (io.ReadAll starts at
// 512 bytes and grows by copies); the byte more sees the end, or the rest of
// a body longer than it said.
func readUpTo(body io.Reader, size, limit int64) ([]byte, error) {
	if size <= 0 || size > limit {
		return io.ReadAll(io.LimitReader(body, limit+1))
	}
	b := make([]byte, size+1)
	n, err := io.ReadFull(body, b)
	switch {
	case int64(n) == size && (err == io.ErrUnexpectedEOF || err == io.EOF):
		return b[:n], nil
	case err != nil:
		return b[:n], err
	}
	rest, err := io.ReadAll(io.LimitReader(body, limit+1-int64(n)))
	return append(b, rest...), err
}

// receivedBody is a body receive read whole: readBody takes its bytes
// as they are instead of reading them a second time. The bytes belong to
// the request and are never written.
type receivedBody struct {
	bytes.Reader
	b []byte
}

func (*receivedBody) Close() error { return nil }

// whole returns the body's bytes when nothing has read from it yet.
func (rb *receivedBody) whole() ([]byte, bool) {
	return rb.b, rb.Reader.Len() == len(rb.b)
}

// rawError writes an error envelope outside echo (before routing) and closes
// the connection.
func (s *Server) rawError(w http.ResponseWriter, r *http.Request, se *simulator.Error) {
	rid := uuid.NewString()
	body, _ := jsonBytes(errorBody{Error: errorObject{
		ErrorID: string(se.Code), Description: se.Message, RecoverySuggestion: se.Recovery, DiagnosticsID: rid,
	}})
	status := statusOf[se.Code]
	h := w.Header()
	h.Set("Content-Type", echo.MIMEApplicationJSON)
	h.Set("X-Request-Id", rid)
	h.Set("Connection", "close")
	w.WriteHeader(status)
	_, _ = w.Write(body)
	s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", status, "errorId", string(se.Code), "diagnosticsId", rid)
}

// Drain begins a shutdown: bodies still arriving are cut, and every held
// request (long-polls, event streams) answers its current state now
// (service.Held.Stop). Call it before http.Server.Shutdown.
func (s *Server) Drain() {
	s.bodies.drain()
	s.svc.Held().Stop()
}
