package dashboard

import (
	"context"
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

// events is the SSE stream of a view: it sends "change" whenever what the
// view shows changes (polled every PollInterval), and the page then fetches
// its live region again. Topics: payments (with the list's filters),
// payment:<id>, attempts, clock, webhooks.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	topic := r.URL.Query().Get("topic")
	fp := s.fingerprinter(a, topic, r)
	if fp == nil {
		http.Error(w, "unknown topic", http.StatusNotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	last := fp()
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
	// A view whose query is slow (an unindexed filter over many payments) is
	// looked at less often: the wait is at least ten times the last look.
	wait := func(cost time.Duration) time.Duration { return max(s.opt.PollInterval, 10*cost) }
	next := time.NewTimer(s.opt.PollInterval)
	defer next.Stop()
	lastBeat := time.Now()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.done.ch:
			return
		case <-end.C:
			return
		case <-next.C:
		}
		start := time.Now()
		cur := fp()
		next.Reset(wait(time.Since(start)))
		switch {
		case cur != last:
			last = cur
			fmt.Fprintf(w, "event: change\ndata: {}\n\n")
		case time.Since(lastBeat) > 15*time.Second:
			fmt.Fprintf(w, ": keep-alive\n\n")
		default:
			continue
		}
		lastBeat = time.Now()
		if rc.Flush() != nil {
			return
		}
	}
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
