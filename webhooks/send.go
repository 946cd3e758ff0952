// One attempt at an event: reading the event again, the signed POST of its
// body to the tenant's endpoint (through the Guard's client, cut at
// Timeout or by Cut, a span when a Tracer is set), the record of its
// outcome, and the chaos that may repeat a delivered one.

package webhooks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand"
	"net/http"
	"time"

	"github.com/paysandbox/paysandbox/internal/redact"
	"github.com/paysandbox/paysandbox/simulator"
)

// How an attempt is made.
type attemptKind int

const (
	dueAttempt    attemptKind = iota // only while PENDING and due on the tenant clock
	forcedAttempt                    // while PENDING, due or not (POST /_sandbox/webhooks/deliver)
	replayAttempt                    // whatever the status; a failure schedules nothing
)

// attempt makes one attempt at an event of tenant t (as read at the start
// of the caller's pass: endpoint, secrets, clock offset) and records it,
// stamped at (signedAt, the log's time, and the failure a retry counts
// from; zero: the tenant's now). It answers the attempt and the event as
// recorded (nil when there was nothing to do).
func (d *Dispatcher) attempt(ctx context.Context, t *simulator.Tenant, eventID, chaos string, kind attemptKind, at time.Time) (simulator.DeliveryAttempt, *simulator.Event) {
	replay := kind == replayAttempt
	tenantID := t.ID
	ev, err := d.Svc.Event(t, eventID)
	if simulator.ErrorCode(err) == simulator.CodeNotFound { // gone: nothing to do
		return simulator.DeliveryAttempt{}, nil
	}
	if err != nil {
		d.Log.Error("webhooks: reading an event", "tenant", tenantID, "event", eventID, "err", err)
		return simulator.DeliveryAttempt{}, nil
	}
	if ev == nil || (!replay && ev.Status != simulator.DeliveryPending) {
		return simulator.DeliveryAttempt{}, nil
	}
	if at.IsZero() {
		at = d.Svc.Now(t)
	}
	if kind == dueAttempt && ev.NextAt.After(at) { // another runner made this attempt meanwhile
		return simulator.DeliveryAttempt{}, nil
	}
	a := d.send(ctx, t, ev, at)
	a.Replay, a.Chaos = replay && chaos == "", chaos
	rec, err := d.Svc.RecordAttempt(tenantID, eventID, a)
	if err != nil {
		d.Log.Error("webhooks: recording an attempt", "tenant", tenantID, "event", eventID, "err", err)
		return a, nil
	}
	if rec != nil && rec.Status != simulator.DeliveryPending {
		d.mu.Lock()
		d.dirty[tenantID] = true
		d.mu.Unlock()
	}
	if d.OnAttempt != nil && rec != nil {
		d.OnAttempt(tenantID, rec, a)
	}
	if a.OK() && !replay && chaos != "duplicate" && rec != nil {
		if c := t.WebhookChaos; c != nil && c.Duplicate > 0 && d.chance(t) < c.Duplicate {
			return d.attempt(ctx, t, eventID, "duplicate", replayAttempt, at)
		}
	}
	return a, rec
}

// chance draws from the tenant's seeded chaos generator.
func (d *Dispatcher) chance(t *simulator.Tenant) float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.rngs[t.ID]
	if !ok {
		seed := int64(1)
		if t.WebhookChaos != nil && t.WebhookChaos.Seed != 0 {
			seed = t.WebhookChaos.Seed
		}
		r = rand.New(rand.NewSource(seed))
		d.rngs[t.ID] = r
	}
	return r.Float64()
}

// ResetChaos restarts a tenant's chaos generator (after its chaos changed).
func (d *Dispatcher) ResetChaos(tenantID string) {
	d.mu.Lock()
	delete(d.rngs, tenantID)
	d.mu.Unlock()
}

// Headers of a delivery.
const (
	HeaderSignaturePrimary   = "X-Signature-Primary"
	HeaderSignatureSecondary = "X-Signature-Secondary"
	HeaderEventID            = "X-Event-Id"
	// HeaderTraceParent carries the attempt's span (W3C Trace Context)
	// when tracing is on.
	HeaderTraceParent = "Traceparent"
)

// send POSTs ev's body to t's endpoint, signed at now (tenant clock), and
// describes the attempt. With a Tracer the attempt is a span and the
// request carries its traceparent.
func (d *Dispatcher) send(ctx context.Context, t *simulator.Tenant, ev *simulator.Event, now time.Time) simulator.DeliveryAttempt {
	if d.Tracer == nil || t.WebhookURL == "" {
		return d.post(ctx, t, ev, now, "")
	}
	ctx, sp := d.Tracer.Delivery(ctx, ev, t.WebhookURL)
	a := d.post(ctx, t, ev, now, sp.TraceParent())
	sp.End(a)
	return a
}

// post is send, with a traceparent header when it is not empty. The
// header is not among the attempt's recorded headers: those are the
// delivery's own, the same with tracing on or off.
func (d *Dispatcher) post(ctx context.Context, t *simulator.Tenant, ev *simulator.Event, now time.Time, traceparent string) simulator.DeliveryAttempt {
	a := simulator.DeliveryAttempt{At: now}
	if t.WebhookURL == "" {
		a.Error = simulator.ErrNoEndpoint
		return a
	}
	signedAt := signedAtOf(now)
	body, err := render(ev, signedAt)
	if err != nil {
		a.Error = "rendering the body: " + err.Error()
		return a
	}
	a.SignedAt = signedAt
	a.Headers = map[string]string{
		"Content-Type":         "application/json",
		HeaderEventID:          ev.ID,
		HeaderSignaturePrimary: Sign(t.SigningSecret, body),
	}
	if t.PreviousSecret != "" && now.Before(t.PreviousUntil) {
		a.Headers[HeaderSignatureSecondary] = Sign(t.PreviousSecret, body)
	}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	defer context.AfterFunc(d.cut, cancel)()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.WebhookURL, bytes.NewReader(body))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", "paysandbox-webhooks/"+Version)
	if traceparent != "" {
		req.Header.Set(HeaderTraceParent, traceparent)
	}
	start := time.Now()
	resp, err := d.client.Do(req)
	if err != nil {
		a.LatencyMs = time.Since(start).Milliseconds()
		a.Error = describe(err, d.Timeout)
		if d.cut.Err() != nil {
			a.Error = "cut: the sandbox was shutting down and its time was up (" + a.Error + ")"
		}
		return a
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, responseHead))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // reuse the connection
	resp.Body.Close()
	a.LatencyMs = time.Since(start).Milliseconds()
	a.StatusCode, a.ResponseBodyHead = resp.StatusCode, redact.Head(head, responseHead) // masked as the journal is (docs/journal.md)
	if !a.OK() {
		a.Error = "receiver answered " + resp.Status
		if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
			a.Error += " (redirects are not followed; Location: " + loc + ")"
		}
	}
	return a
}

func describe(err error, timeout time.Duration) string {
	if msg, ok := attemptError(err); ok {
		return msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout: no answer within " + timeout.String()
	}
	return err.Error()
}
