package paysandboxtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paysandbox/paysandbox/webhooks"
)

// maxWebhookBody bounds what the receiver reads of a delivery; the
// sandbox's bodies are a few KiB.
const maxWebhookBody = 4 << 20

// Receiver is a webhook endpoint in the test: an HTTP server on a loopback
// port that the tenant's webhooks are sent to. It verifies each delivery's
// signature with the tenant's signing secret (a delivery that fails fails
// the test and is answered 401), passes it on to the app's handler when
// told to (Forward), and records it; Wait and WaitFor return a recorded
// event, waiting for it when it has not arrived yet. Events are never
// consumed: two waits may return the same one. It stops when the test that
// made the tenant ends.
type Receiver struct {
	// URL is the endpoint set on the tenant.
	URL string

	tn      *Tenant // the handle of New, whose test owns the receiver
	srv     *httptest.Server
	forward http.Handler
	wait    time.Duration

	mu      sync.Mutex
	events  []Event
	arrived chan struct{} // closed (and replaced) when an event is recorded
}

// Event is one delivery the receiver got and verified.
type Event struct {
	// ID is the event's id (X-Event-Id): the same on every attempt and
	// replay of one event, so a duplicate delivery carries its original's.
	ID string
	// Type is the body's eventType: PAYMENT.STATUS, PAYMENT.REFUND,
	// DISPUTE.OPENED, DISPUTE.STATUS.
	Type string
	// PaymentID is the payment the event is about (payment.id, or
	// paymentId in a dispute event).
	PaymentID string
	// Status is the payment's status in a payment event (payment.status),
	// the dispute's in DISPUTE.STATUS, else "".
	Status string
	// Body is the exact body the sandbox sent (and signed).
	Body []byte
	// Header holds the delivery's headers (X-Signature-Primary, ...).
	Header http.Header
	// Answered is the status code the receiver answered: the forwarded
	// handler's, or 200.
	Answered int
}

// ReceiverOption configures the receiver of Webhooks.
type ReceiverOption func(*receiverConfig)

type receiverConfig struct {
	forward http.Handler
	path    string
}

// Forward passes each verified delivery to h, the app's webhook handler
// (or its whole handler: the request keeps the path of AtPath), and
// answers the sandbox what h answered: a non-2xx makes the sandbox retry,
// as it would the app's endpoint. The event is recorded once h returned,
// so a Wait that returns it returns after the app handled it.
func Forward(h http.Handler) ReceiverOption {
	return func(c *receiverConfig) { c.forward = h }
}

// AtPath sets the path of the endpoint the tenant sends to (default
// "/webhooks"): the path a forwarded request carries to the app's handler.
func AtPath(p string) ReceiverOption {
	return func(c *receiverConfig) { c.path = p }
}

// Webhooks starts the tenant's receiver and sets the tenant's webhook
// endpoint to it; a later call answers the same receiver (options go to the
// first call).
func (tn *Tenant) Webhooks(opts ...ReceiverOption) *Receiver {
	tn.t.Helper()
	st := tn.state
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.receiver != nil {
		if len(opts) > 0 {
			tn.t.Fatalf("paysandboxtest: tenant %s: Webhooks was called before: options go to its first call", tn.ID)
		}
		return st.receiver
	}
	c := receiverConfig{path: "/webhooks"}
	for _, o := range opts {
		o(&c)
	}
	if !strings.HasPrefix(c.path, "/") {
		c.path = "/" + c.path
	}
	owner := tn.With(st.owner)
	r := &Receiver{tn: owner, forward: c.forward, wait: st.cfg.wait, arrived: make(chan struct{})}
	r.srv = httptest.NewServer(r)
	r.URL = r.srv.URL + c.path
	// Registered after the tenant's deletion, so it runs before it: the
	// receiver stops first, the tenant's last deliveries fail quietly.
	st.owner.Cleanup(r.srv.Close)
	tn.SetWebhookEndpoint(r.URL)
	st.receiver = r
	return r
}

// ServeHTTP receives one delivery: verify, forward, record.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxWebhookBody))
	if err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	ev := parseEvent(req.Header, body)
	if err := r.verify(req.Header, body); err != nil {
		r.tn.t.Errorf("paysandboxtest: tenant %s: webhook %s (event %s) is not signed with the tenant's signing secret: %v",
			r.tn.ID, ev.Type, ev.ID, err)
		http.Error(w, "signature: "+err.Error(), http.StatusUnauthorized)
		return
	}
	ev.Answered = http.StatusOK
	if r.forward != nil {
		fwd := req.Clone(req.Context())
		fwd.Body, fwd.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		rec := httptest.NewRecorder()
		r.forward.ServeHTTP(rec, fwd)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		ev.Answered = rec.Code
	} else {
		w.WriteHeader(http.StatusOK)
	}
	r.record(ev)
}

// verify checks X-Signature-Primary with the tenant's secret, or
// X-Signature-Secondary (the previous secret's signature for a day after a
// rotation through the control plane).
func (r *Receiver) verify(h http.Header, body []byte) error {
	err := webhooks.Verify(r.tn.SigningSecret, body, h.Get(webhooks.HeaderSignaturePrimary))
	if err != nil && h.Get(webhooks.HeaderSignatureSecondary) != "" &&
		webhooks.Verify(r.tn.SigningSecret, body, h.Get(webhooks.HeaderSignatureSecondary)) == nil {
		return nil
	}
	return err
}

// parseEvent reads what an Event names from a delivery; a body that is not
// a webhook leaves them empty.
func parseEvent(h http.Header, body []byte) Event {
	var doc struct {
		EventType string `json:"eventType"`
		PaymentID string `json:"paymentId"`
		Status    string `json:"status"`
		Payment   *struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"payment"`
	}
	_ = json.Unmarshal(body, &doc)
	ev := Event{ID: h.Get(webhooks.HeaderEventID), Type: doc.EventType, PaymentID: doc.PaymentID, Status: doc.Status,
		Body: body, Header: h.Clone()}
	if p := doc.Payment; p != nil {
		ev.PaymentID, ev.Status = p.ID, p.Status
	}
	return ev
}

func (r *Receiver) record(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	close(r.arrived)
	r.arrived = make(chan struct{})
}

// Events are the deliveries received so far, in arrival order.
func (r *Receiver) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Wait answers the first event received of the type (of the payment, when
// one paymentID is given), waiting for it up to the tenant's wait timeout;
// then it fails t, listing what the receiver got and what the sandbox
// made and tried to deliver.
func (r *Receiver) Wait(t testing.TB, eventType string, paymentID ...string) Event {
	t.Helper()
	if len(paymentID) > 1 {
		t.Fatalf("paysandboxtest: Wait takes at most one payment id (got %d)", len(paymentID))
	}
	what, pid := eventType+" event", ""
	if len(paymentID) == 1 {
		pid = paymentID[0]
		what += " of payment " + pid
	}
	return r.waitFor(t, what, func(e Event) bool { return e.Type == eventType && (pid == "" || e.PaymentID == pid) })
}

// WaitFor answers the first event received that match accepts, waiting as
// Wait does.
func (r *Receiver) WaitFor(t testing.TB, match func(Event) bool) Event {
	t.Helper()
	return r.waitFor(t, "event that matches", match)
}

func (r *Receiver) waitFor(t testing.TB, what string, match func(Event) bool) Event {
	t.Helper()
	deadline := time.NewTimer(r.wait)
	defer deadline.Stop()
	for seen := 0; ; {
		r.mu.Lock()
		fresh, arrived := r.events[seen:len(r.events):len(r.events)], r.arrived
		r.mu.Unlock()
		for _, e := range fresh {
			if match(e) {
				return e
			}
		}
		seen += len(fresh)
		select {
		case <-arrived:
		case <-deadline.C:
			t.Fatalf("paysandboxtest: tenant %s: no %s arrived within %s.\n%s", r.tn.ID, what, r.wait, r.account())
			return Event{}
		}
	}
}

// account describes what the receiver got and the sandbox's side: its
// latest events with their delivery status and last attempt.
func (r *Receiver) account() string {
	var b strings.Builder
	got := r.Events()
	fmt.Fprintf(&b, "The receiver (%s) got %d delivery(ies):\n", r.URL, len(got))
	for _, e := range got {
		fmt.Fprintf(&b, "  %s payment=%s status=%s event=%s answered %d\n", e.Type, e.PaymentID, e.Status, e.ID, e.Answered)
	}
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			EventType     string `json:"eventType"`
			PaymentID     string `json:"paymentId"`
			PaymentStatus string `json:"paymentStatus"`
			Status        string `json:"status"`
			Attempts      []struct {
				StatusCode int     `json:"statusCode"`
				Error      *string `json:"error"`
			} `json:"attempts"`
		} `json:"data"`
	}
	if _, err := r.tn.srv.do(r.tn.APIKey, request{method: "GET", path: "/_sandbox/webhooks/events?limit=20"}, &list); err != nil {
		fmt.Fprintf(&b, "The sandbox's events could not be read: %v\n", err)
		return b.String()
	}
	fmt.Fprintf(&b, "The sandbox's latest %d events (GET /_sandbox/webhooks/events), newest first:\n", len(list.Data))
	for _, e := range list.Data {
		fmt.Fprintf(&b, "  %s payment=%s status=%s event=%s: %s, %d attempt(s)", e.EventType, e.PaymentID, e.PaymentStatus, e.ID, e.Status, len(e.Attempts))
		if n := len(e.Attempts); n > 0 {
			last := e.Attempts[n-1]
			if last.Error != nil {
				fmt.Fprintf(&b, ", the last answered %d: %s", last.StatusCode, *last.Error)
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
