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
	release, err := s.svc.Held.Acquire(tid)
	if err != nil {
		refuseStream(w, err)
		return
	}
	defer release()
	look := func() uint64 { s.looks.Add(1); return fp() }
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	changed := s.svc.Changed(tid) // before the read: a change during it wakes the loop
	lastLook := time.Now()
	last := look()
	cost := time.Since(lastLook)
	fmt.Fprintf(w, "retry: 2000\nevent: ready\ndata: {}\n\n")
	// The page was rendered at its fingerprint fp: a change between its render
	// and this connection (or during a reconnection) would otherwise reach
	// nobody.
	if seen := r.URL.Query().Get("fp"); seen != "" && seen != strconv.FormatUint(last, 16) {
		fmt.Fprintf(w, "event: change\ndata: {}\n\n")
	}
	if rc.Flush() != nil {
		return
	}
	end := time.NewTimer(sseLifetime)
	defer end.Stop()
	beat := time.NewTicker(s.keepAlive)
	defer beat.Stop()
	var hold <-chan time.Time // a change waiting for the looks' spacing
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.done.ch:
			return
		case <-s.svc.Held.Stopping():
			return
		case <-end.C:
			return
		case <-beat.C:
			fmt.Fprintf(w, ": keep-alive\n\n")
			if rc.Flush() != nil {
				return
			}
			continue
		case <-changed:
			changed = nil
			if d := time.Until(lastLook.Add(max(s.opt.PollInterval, 10*cost))); d > 0 {
				hold = time.After(d)
				continue
			}
		case <-hold:
			hold = nil
		}
		changed = s.svc.Changed(tid)
		lastLook = time.Now()
		cur := look()
		cost = time.Since(lastLook)
		if cur == last {
			continue
		}
		last = cur
		fmt.Fprintf(w, "event: change\ndata: {}\n\n")
		if rc.Flush() != nil {
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
	hash := func(write func(b *strings.Builder)) uint64 {
		var b strings.Builder
		write(&b)
		h := fnv.New64a()
		h.Write([]byte(b.String()))
		return h.Sum64()
	}
	clockLine := func(b *strings.Builder) {
		if cur, err := s.svc.Tenant(t.ID); err == nil && cur != nil {
			fmt.Fprintf(b, "%d|", cur.ClockOffset)
		}
	}
	switch {
	case topic == "payments":
		_, pq, msg := parseFilter(r.URL.Query())
		if msg != "" || !a.Key.Has(simulator.ScopeTransactionsRetrieve) {
			return func() uint64 { return 0 }
		}
		return func() uint64 {
			return hash(func(b *strings.Builder) {
				page, err := s.svc.ListPayments(t, pq)
				fmt.Fprintf(b, "%v|", err)
				for _, p := range page.Payments {
					fmt.Fprintf(b, "%s:%s:%d;", p.ID, p.Status, p.DateUpdated.UnixMicro())
				}
			})
		}
	case strings.HasPrefix(topic, "payment:"):
		id := strings.TrimPrefix(topic, "payment:")
		return func() uint64 {
			return hash(func(b *strings.Builder) {
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
			})
		}
	case topic == "attempts":
		return func() uint64 {
			return hash(func(b *strings.Builder) {
				clockLine(b)
				list, _ := s.svc.Attempts(t, "")
				for _, at := range list {
					fmt.Fprintf(b, "%s:%s;", at.ID, at.Status)
				}
			})
		}
	case topic == "clock":
		return func() uint64 {
			return hash(func(b *strings.Builder) {
				clockLine(b)
				_ = s.svc.Store.View(func(tx simulator.Tx) error {
					jobs, err := tx.DueJobs(t.ID, time.Unix(1<<40, 0), 20)
					for _, j := range jobs {
						fmt.Fprintf(b, "%s;", j.ID)
					}
					return err
				})
			})
		}
	case topic == "webhooks":
		return func() uint64 {
			return hash(func(b *strings.Builder) {
				if s.opt.Webhooks != nil {
					evs, _ := s.opt.Webhooks.Events(t, "", 100)
					for _, e := range evs {
						fmt.Fprintf(b, "%s:%s:%d;", e.ID, e.Status, len(e.Attempts))
					}
				}
			})
		}
	}
	return nil
}

// fixedTopic is the topic function of a page whose topic does not depend on
// the request.
func fixedTopic(topic string) func(*http.Request) string {
	return func(*http.Request) string { return topic }
}
