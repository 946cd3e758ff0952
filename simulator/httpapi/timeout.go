package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// timeout answers 504 RequestTimeout when the handler runs past the request
// timeout. The handler's context carries the deadline; code that holds a
// request (a processor timeout, a wait) waits on it. The handler runs in the
// request's own goroutine: no goroutine, buffer or copy per request. Its
// answer goes straight to the connection through a guard; when the deadline
// passes before the handler has started its answer, a timer callback writes
// the 504 through the same guard, and everything the handler writes later is
// dropped. The handler's work is not cancelled but goes on to its end, and
// the middleware returns only after it, so echo never reuses a context in use.
func (s *Server) timeout(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		d := s.opt.RequestTimeout
		if d <= 0 {
			return next(c)
		}
		configured := d
		d = versionOf(c).RequestTimeout(d)
		ctx, cancel := context.WithTimeout(c.Request().Context(), d)
		defer cancel()
		rid := requestID(c)
		g := &guardedWriter{cancel: cancel, d: d, rid: rid, v: versionOf(c)}
		ctx = g.note.Carry(ctx, rid)
		c.SetRequest(c.Request().WithContext(ctx))
		res := c.Response()
		g.w, g.ctx = res.Writer, ctx
		res.Writer = g
		// A plain timer, not context.AfterFunc: that one registers with the
		// context tree (a map entry, a done channel) on every request.
		timer := time.AfterFunc(d, g.expire)
		s.guarded.add(g)
		err := recovered(next, c)
		s.guarded.remove(g)
		timer.Stop()
		timedOut := g.finish()
		res.Writer = g.w
		g.putHeader()
		if !timedOut {
			// The handler's own 504 (a timeout rule held it until the
			// deadline) may beat the timer by a hair: the cut is the same.
			if d < configured && simulator.ErrorCode(err) == simulator.CodeRequestTimeout && g.expired() {
				noteCut(c, d, configured)
			}
			return err
		}
		if err != nil {
			s.log.Debug("late handler error after timeout", "err", err, "diagnosticsId", rid)
		}
		res.Status, res.Committed = http.StatusGatewayTimeout, true
		if d < configured {
			noteCut(c, d, configured)
		}
		c.Set(ctxErrorPayment, nil) // the 504's body, not the handler's, went out
		c.Set(ctxErrorCode, string(simulator.CodeRequestTimeout))
		return nil
	}
}

// noteCut notes that an older version's request timeout d cut the request
// where 2.4's (configured) would have let it wait.
func noteCut(c echo.Context, d, configured time.Duration) {
	addMigration(c, simulator.DiffRequestTimeout, "This request was cut at "+d.String()+" on "+string(versionOf(c))+"; on 2.4 it would have waited up to "+configured.String())
}

// timeoutBody is the 504 answer; it names the payment the request created
// or acted on (note), when there is one, like the service's own 504, and
// what a retry with the same idempotency key answers in version v. d is the
// request timeout, or 0 when shutdown cut the request at its limit.
func timeoutBody(d time.Duration, rid string, note *service.RequestNote, v simulator.APIVersion) []byte {
	eo := errorObject{
		ErrorID:            string(simulator.CodeRequestTimeout),
		Description:        "The request exceeded the timeout of " + d.String() + "; the work it started goes on",
		RecoverySuggestion: "Use GET /payments/{id} (or /_sandbox/wait) to get the state of the payment",
		DiagnosticsID:      rid,
	}
	if d == 0 {
		eo.Description = "The sandbox shut down before the request finished; the work it started goes on and resumes when the sandbox starts again"
	}
	if note != nil {
		if id, st := note.Payment(); id != "" {
			eo.PaymentID, eo.PaymentStatus = id, string(st)
			eo.RecoverySuggestion = timeoutRecovery(id, v)
		}
	}
	body, _ := jsonBytes(errorBody{Error: eo})
	return body
}

// timeoutRecovery is the recoverySuggestion of a 504 naming payment id: how
// to read it, and what a retry with the same idempotency key answers in
// version v.
func timeoutRecovery(id string, v simulator.APIVersion) string {
	reused := "409 " + string(simulator.CodeIdempotencyKeyAlreadyExists)
	if v.Has(simulator.DiffIdempotency400) {
		reused = "400 " + string(simulator.CodeTransactionRequestIdempotencyKeyAlreadyExists)
	}
	return "Use GET /payments/" + id + " (or /_sandbox/wait?paymentId=" + id + ") to get the state of the payment; a retry with the same X-Idempotency-Key answers " + reused + " with it"
}

// guardedWriter passes a handler's answer to the connection unless the
// timeout answered first. The handler's headers stay in its own map until
// its answer starts, so the timer callback never races with them.
type guardedWriter struct {
	w      http.ResponseWriter
	ctx    context.Context // carries the deadline
	cancel context.CancelFunc
	d      time.Duration
	rid    string
	note   service.RequestNote
	v      simulator.APIVersion // the request's (the current one without a version header)

	mu       sync.Mutex
	header   http.Header // the handler's headers, until its answer starts
	started  bool        // the handler's answer started: no 504 any more
	timedOut bool        // the 504 went out: the handler's answer is dropped
	done     bool        // the handler returned: the timer does nothing
	shutdown bool        // the 504 is shutdown's (cut), not the timeout's
}

// guardedSet is the requests under the request timeout now, so that
// shutdown can answer them (Server.Cut).
type guardedSet struct {
	mu  sync.Mutex
	set map[*guardedWriter]struct{}
	cut bool // Cut ran: a request still arriving is cut at once
}

func (gs *guardedSet) add(g *guardedWriter) {
	gs.mu.Lock()
	if gs.cut {
		gs.mu.Unlock()
		g.cut()
		return
	}
	if gs.set == nil {
		gs.set = map[*guardedWriter]struct{}{}
	}
	gs.set[g] = struct{}{}
	gs.mu.Unlock()
}

func (gs *guardedSet) remove(g *guardedWriter) {
	gs.mu.Lock()
	delete(gs.set, g)
	gs.mu.Unlock()
}

// Cut ends shutdown's wait for merchant and client requests: each one
// still held (by a timeout rule, a latency, a slow handler) that has not
// started its answer gets its 504 RequestTimeout now, naming its payment
// as the request timeout's 504 would, and is flushed to its connection
// before Cut returns, so closing the connections afterwards loses no
// answer. Later requests are cut at once. It answers how many it cut.
func (s *Server) Cut() int {
	gs := &s.guarded
	gs.mu.Lock()
	gs.cut = true
	list := make([]*guardedWriter, 0, len(gs.set))
	for g := range gs.set {
		list = append(list, g)
	}
	gs.mu.Unlock()
	n := 0
	for _, g := range list {
		if g.cut() {
			n++
		}
	}
	return n
}

func (g *guardedWriter) Header() http.Header {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.header == nil {
		g.header = headers.Get().(http.Header)
	}
	return g.header
}

// headers are the maps guardedWriter keeps a handler's headers in, emptied
// and reused once the handler returned: start copies the values into the
// connection's own map (the slices are shared, never written again: a
// header is set with a new slice), so nothing else refers to the map.
var headers = sync.Pool{New: func() any { return http.Header{} }}

// putHeader gives the handler's header map back (the handler has
// returned: finish).
func (g *guardedWriter) putHeader() {
	g.mu.Lock()
	h := g.header
	g.header = nil
	g.mu.Unlock()
	if h != nil && len(h) <= maxPooledHeaders {
		clear(h)
		headers.Put(h)
	}
}

// maxPooledHeaders keeps a map grown by an unusual answer out of the pool.
const maxPooledHeaders = 16

func (g *guardedWriter) WriteHeader(code int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.start(code)
}

func (g *guardedWriter) Write(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.start(http.StatusOK)
	if g.timedOut {
		return len(b), nil
	}
	return g.w.Write(b)
}

// start sends the handler's status and headers once (g.mu held); past the
// deadline it sends the 504 instead.
func (g *guardedWriter) start(code int) {
	if g.started || g.timedOut {
		return
	}
	if g.expired() {
		g.write504()
		return
	}
	g.started = true
	dst := g.w.Header()
	for k, v := range g.header {
		dst[k] = v
	}
	g.w.WriteHeader(code)
}

// expired: the deadline passed (a client gone away is not a timeout).
func (g *guardedWriter) expired() bool { return errors.Is(g.ctx.Err(), context.DeadlineExceeded) }

// expire (the timer, started with the context's deadline d ahead, so the
// deadline has passed when it runs even if the context's own timer has not
// fired yet) writes the 504 unless the handler's answer started or it
// returned, or the client went away first.
func (g *guardedWriter) expire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.started || g.done || g.timedOut || errors.Is(g.ctx.Err(), context.Canceled) {
		return
	}
	g.write504()
}

// cut (shutdown's limit) writes the 504 now unless the handler's answer
// started or it returned, and ends the request's context so that whatever
// holds it (a timeout rule, a latency) lets go. It reports whether it
// wrote the 504; the answer is flushed to the connection when it returns.
func (g *guardedWriter) cut() bool {
	g.mu.Lock()
	wrote := !g.started && !g.done && !g.timedOut
	if wrote {
		g.shutdown = true
		g.write504()
	}
	g.mu.Unlock()
	g.cancel()
	return wrote
}

// write504 answers RequestTimeout (g.mu held).
func (g *guardedWriter) write504() {
	g.timedOut = true
	d := g.d
	if g.shutdown {
		d = 0
	}
	body := timeoutBody(d, g.rid, &g.note, g.v)
	h := g.w.Header()
	h.Set("Content-Type", echo.MIMEApplicationJSON)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Connection", "close")
	g.w.WriteHeader(http.StatusGatewayTimeout)
	_, _ = g.w.Write(body)
	if f, ok := g.w.(http.Flusher); ok {
		f.Flush()
	}
}

// finish marks the handler returned and reports whether the 504 went out.
func (g *guardedWriter) finish() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done = true
	return g.timedOut
}
