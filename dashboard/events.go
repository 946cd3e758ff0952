package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// sseLifetime bounds one event stream; EventSource reconnects by itself.
const sseLifetime = 5 * time.Minute

// closer ends every open event stream (server shutdown).
type closer struct {
	once sync.Once
	ch   chan struct{}
}

// Close ends the open event streams so a graceful shutdown does not wait for
// them. Register it with http.Server.RegisterOnShutdown.
func (s *Server) Close() { s.done.once.Do(func() { close(s.done.ch) }) }

// liveFPKey carries the fingerprint a live page took before it read its data.
type liveFPKey struct{}

type liveFP struct{ topic, fp string }

// live wraps the GET handler of a page with a live region of topic(r): it
// takes the topic's fingerprint before the handler reads what it shows, and
// render puts that one on the page. Taken after the read, it could already
// include a change the page does not show, and the page's event stream would
// then never report that change (its catch-up compares this fingerprint).
func (s *Server) live(topic func(r *http.Request) string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Fragment") != "live" {
			if a := authOf(r); a != nil {
				t := topic(r)
				r = r.WithContext(context.WithValue(r.Context(), liveFPKey{}, liveFP{t, s.fingerprintNow(a, t, r)}))
			}
		}
		h(w, r)
	}
}

// liveFPOf is the fingerprint live took for topic, or now's when the page was
// not served through live (a form answer rendering a page).
func (s *Server) liveFPOf(r *http.Request, a *auth, topic string) string {
	if v, ok := r.Context().Value(liveFPKey{}).(liveFP); ok && v.topic == topic {
		return v.fp
	}
	return s.fingerprintNow(a, topic, r)
}

// fingerprintNow is topic's fingerprint as the page carries it ("" for an
// unknown topic, which the stream then does not compare).
func (s *Server) fingerprintNow(a *auth, topic string, r *http.Request) string {
	if fp := s.fingerprinter(a, topic, r); fp != nil {
		return strconv.FormatUint(fp(), 16)
	}
	return ""
}

// keepAlive is how often an event stream with nothing to say sends a
// comment, so that proxies keep it open and a gone client is noticed.
const keepAlive = 15 * time.Second

// events is the SSE stream of a view: it sends "change" whenever what the
// view shows changes, and the page then fetches its live region again.
// Topics: payments (with the list's filters), payment:<id>, attempts, clock,
// webhooks.
//
// A stream is one of the tenant's held requests (service.Held: one cap for
// long-polls and streams); past the cap it is refused (refuseStream). It
// looks at its view's data only when the tenant changed (Service.Changed),
// never on a timer: an idle stream runs no query. Looks are at least
// PollInterval apart (ten times the last look's cost when that is more), so a
// burst of writes costs one look.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	topic := r.URL.Query().Get("topic")
	fp := s.fingerprinter(a, topic, r)
	if fp == nil {
		http.Error(w, "unknown topic", http.StatusNotFound)
		return
	}
	tid := a.Tenant.ID
	release, err := s.svc.Held().Acquire(tid)
	if err != nil {
		refuseStream(w, err)
		return
	}
	defer release()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &eventStream{s: s, w: w, rc: http.NewResponseController(w), fp: fp, tid: tid,
		signedIn: func() bool { _, err := s.sessionOf(r); return err == nil }}
	st.last = st.look()
	fmt.Fprintf(w, "retry: 2000\nevent: ready\ndata: {}\n\n")
	// The page was rendered at its fingerprint fp: a change between its render
	// and this connection (or during a reconnection) would otherwise reach
	// nobody.
	if seen := r.URL.Query().Get("fp"); seen != "" && seen != strconv.FormatUint(st.last, 16) {
		fmt.Fprintf(w, "event: change\ndata: {}\n\n")
	}
	if st.rc.Flush() != nil {
		return
	}
	st.run(r.Context())
}

// eventStream is one open stream of events: the view's fingerprint fp, the
// last one sent, and when the last look was and what it cost.
type eventStream struct {
	s   *Server
	w   http.ResponseWriter
	rc  *http.ResponseController
	fp  func() uint64
	tid string
	// signedIn reports that the stream's session has not ended (sign-out,
	// a secret rotation, the tenant's deletion); the stream ends with it.
	signedIn func() bool
	changed  <-chan struct{} // closed at the tenant's next change after the last look
	lastLook time.Time
	last     uint64
	cost     time.Duration
}

// look takes the view's fingerprint, having first asked to hear of the
// tenant's next change (so a change during the read wakes the stream).
func (st *eventStream) look() uint64 {
	st.changed = st.s.svc.Changed(st.tid)
	st.lastLook = time.Now()
	st.s.looks.Add(1)
	cur := st.fp()
	st.cost = time.Since(st.lastLook)
	return cur
}

// send writes msg and flushes it; false when the client is gone.
func (st *eventStream) send(msg string) bool {
	fmt.Fprint(st.w, msg)
	return st.rc.Flush() == nil
}

// run sends keep-alives and a "change" each time a look finds a new
// fingerprint, until the client, the server, the session (checked at each
// keep-alive and each look) or the stream's lifetime ends.
func (st *eventStream) run(ctx context.Context) {
	s := st.s
	end := time.NewTimer(sseLifetime)
	defer end.Stop()
	beat := time.NewTicker(s.keepAlive)
	defer beat.Stop()
	var hold <-chan time.Time // a change waiting for the looks' spacing
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done.ch:
			return
		case <-s.svc.Held().Stopping():
			return
		case <-end.C:
			return
		case <-beat.C:
			if !st.signedIn() || !st.send(": keep-alive\n\n") {
				return
			}
			continue
		case <-st.changed:
			st.changed = nil
			if d := time.Until(st.lastLook.Add(max(s.opt.PollInterval, 10*st.cost))); d > 0 {
				hold = time.After(d)
				continue
			}
		case <-hold:
			hold = nil
		}
		cur := st.look()
		if !st.signedIn() {
			return
		}
		if cur == st.last {
			continue
		}
		st.last = cur
		if !st.send("event: change\ndata: {}\n\n") {
			return
		}
	}
}

// refuseStream answers a stream past the tenant's cap of held requests with
// the API's error envelope (429 TooManyRequests) and closes the connection,
// so that refused streams hold no connection either. EventSource does not
// reconnect after a non-200 answer; the page then says that live refresh
// stopped and tries again later (app.js).
func refuseStream(w http.ResponseWriter, err error) {
	var se *simulator.Error
	if !errors.As(err, &se) {
		se = simulator.Errorf(simulator.CodeInternalError, "The stream could not be opened")
	}
	type object struct {
		ErrorID            string `json:"errorId"`
		Description        string `json:"description"`
		RecoverySuggestion string `json:"recoverySuggestion,omitempty"`
	}
	body, _ := json.Marshal(struct {
		Error object `json:"error"`
	}{object{string(se.Code), se.Message, se.Recovery}})
	status := http.StatusTooManyRequests
	if se.Code != simulator.CodeTooManyRequests {
		status = http.StatusInternalServerError
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Connection", "close")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// fingerprinter returns a function that hashes what the topic's view shows.
func (s *Server) fingerprinter(a *auth, topic string, r *http.Request) func() uint64 {
	t := a.Tenant
	switch {
	case topic == "payments":
		_, pq, msg := parseFilter(r.URL.Query())
		if msg != "" || !a.Key.Has(simulator.OperationOf(simulator.OpListPayments).Scope) {
			return func() uint64 { return 0 }
		}
		return func() uint64 { return fingerprint(func(b *strings.Builder) { s.writePaymentsFP(b, t, pq) }) }
	case strings.HasPrefix(topic, "payment:"):
		id := strings.TrimPrefix(topic, "payment:")
		return func() uint64 { return fingerprint(func(b *strings.Builder) { s.writePaymentFP(b, t, id) }) }
	case topic == "attempts":
		return func() uint64 { return fingerprint(func(b *strings.Builder) { s.writeAttemptsFP(b, t) }) }
	case topic == "clock":
		return func() uint64 { return fingerprint(func(b *strings.Builder) { s.writeClockFP(b, t) }) }
	case topic == "webhooks":
		return func() uint64 { return fingerprint(func(b *strings.Builder) { s.writeWebhooksFP(b, t) }) }
	}
	return nil
}

// fingerprint is the FNV-64a hash of what write writes.
func fingerprint(write func(b *strings.Builder)) uint64 {
	var b strings.Builder
	write(&b)
	h := fnv.New64a()
	h.Write([]byte(b.String()))
	return h.Sum64()
}

// writeClockLine writes the tenant's clock offset (nothing when the tenant
// cannot be read).
func (s *Server) writeClockLine(b *strings.Builder, t *simulator.Tenant) {
	if cur, err := s.svc.Tenant(t.ID); err == nil && cur != nil {
		fmt.Fprintf(b, "%d|", cur.ClockOffset)
	}
}

// writePaymentsFP writes what the payments list shows for query pq: the
// error, then each payment's id, status and update time.
func (s *Server) writePaymentsFP(b *strings.Builder, t *simulator.Tenant, pq simulator.PaymentQuery) {
	page, err := s.svc.ListPayments(t, pq)
	fmt.Fprintf(b, "%v|", err)
	for _, p := range page.Payments {
		fmt.Fprintf(b, "%s:%s:%d;", p.ID, p.Status, p.DateUpdated.UnixMicro())
	}
}

// writePaymentFP writes what payment id's page shows: its status, update
// time and transactions, its events' states, and its journal's length.
func (s *Server) writePaymentFP(b *strings.Builder, t *simulator.Tenant, id string) {
	if p, err := s.svc.Payment(t, id); err == nil {
		fmt.Fprintf(b, "%s:%d:%d;", p.Status, p.DateUpdated.UnixMicro(), len(p.Transactions))
	}
	if s.opt.Webhooks != nil {
		evs, _ := s.opt.Webhooks.Events(t, id, 200)
		for _, e := range evs {
			fmt.Fprintf(b, "%s:%s:%d;", e.ID, e.Status, len(e.Attempts))
		}
	}
	if s.opt.Journal != nil {
		reqs, _ := s.opt.Journal.Requests(t, id, 200)
		fmt.Fprintf(b, "j%d;", len(reqs))
	}
}

// writeAttemptsFP writes the clock line and each attempt's id and status.
func (s *Server) writeAttemptsFP(b *strings.Builder, t *simulator.Tenant) {
	s.writeClockLine(b, t)
	list, _ := s.svc.Attempts(t, "")
	for _, at := range list {
		fmt.Fprintf(b, "%s:%s;", at.ID, at.Status)
	}
}

// writeClockFP writes the clock line and the ids of the first 20 jobs due.
func (s *Server) writeClockFP(b *strings.Builder, t *simulator.Tenant) {
	s.writeClockLine(b, t)
	jobs, _ := s.svc.UpcomingJobs(t, 20)
	for _, j := range jobs {
		fmt.Fprintf(b, "%s;", j.ID)
	}
}

// writeWebhooksFP writes the newest 100 events' ids, states and attempts.
func (s *Server) writeWebhooksFP(b *strings.Builder, t *simulator.Tenant) {
	if s.opt.Webhooks != nil {
		evs, _ := s.opt.Webhooks.Events(t, "", 100)
		for _, e := range evs {
			fmt.Fprintf(b, "%s:%s:%d;", e.ID, e.Status, len(e.Attempts))
		}
	}
}

// fixedTopic is the topic function of a page whose topic does not depend on
// the request.
func fixedTopic(topic string) func(*http.Request) string {
	return func(*http.Request) string { return topic }
}
