package service

import (
	"context"
	"net/url"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// Fired is one piece of work a clock advance ran: a scheduled job (Kind is
// its JobKind) or a webhook attempt (Kind "webhook"). At is the instant on
// the tenant clock the work ran at (a webhook attempt's signedAt and log
// time). Pending marks a webhook attempt still in flight when the advance
// stopped waiting (Config.AdvanceWait); it finishes on its own and is
// recorded at At.
type Fired struct {
	Kind      string
	At        time.Time
	PaymentID string
	AttemptID string
	EventID   string
	Pending   bool
}

// FiredWebhook is the Kind of a webhook attempt in Fired.
const FiredWebhook = "webhook"

// WebhookRunner is the port to the webhook dispatcher (implemented by the
// webhooks package, made by Config.Webhooks inside NewService). A
// clock advance drives it: it holds the tenant's background delivery, then
// walks the advanced window in time order, running scheduled jobs and the
// instants NextDue names with RunAt, so every attempt is made at its due
// instant on the tenant clock.
type WebhookRunner interface {
	// Hold keeps background delivery off the tenant until release is
	// called, so that what a clock advance makes due is run (and answered)
	// by the advance itself. Release also applies the retention bound to
	// the tenant at once, so what the advance answers is within it.
	Hold(tenantID string) (release func())
	// Settle waits until no attempt of the tenant is in flight, or until
	// deadline (or ctx) ends the wait; it reports whether none is.
	Settle(ctx context.Context, tenantID string, deadline time.Time) bool
	// NextDue answers the earliest instant, not before from, at which an
	// attempt of the tenant is due on its clock (a payment's queue is due
	// when its first PENDING event is); ok is false when none is pending.
	NextDue(tenantID string, from time.Time) (at time.Time, ok bool)
	// RunAt makes every attempt of the tenant due at or before at, each
	// stamped at (signedAt, log time, and the failure its retry counts
	// from), concurrently across payments and one event at a time within
	// one (a payment's next event goes at the same instant once the one
	// before it is delivered or exhausted). It waits for them until
	// deadline (or ctx): attempts still in flight then are answered with
	// Pending set and finish on their own, and done is false.
	RunAt(ctx context.Context, tenantID string, at, deadline time.Time) (fired []Fired, done bool)
	// DeliverPending tries every PENDING event of the tenant now, a payment's
	// events in order; it answers how many were delivered and how many failed.
	DeliverPending(ctx context.Context, tenantID string) (delivered, failed int)
	// Replay makes one immediate attempt at an event (same X-Event-Id, new
	// signedAt); a 2xx marks it DELIVERED, a failure schedules nothing.
	Replay(ctx context.Context, tenantID, eventID string) (simulator.DeliveryAttempt, error)
	// Appended is told about every event the service appends, after the
	// write transaction that appends it has committed (never for one rolled
	// back; so a store read that starts after the call sees the event):
	// pending is true for an event queued for delivery, false for one
	// finished at once (EXHAUSTED: no endpoint), which only the retention
	// bound still concerns. It must not block.
	Appended(tenantID string, pending bool)
	// Wake is called by Service.Kick, after the service stored a job (and
	// so, often, events): the dispatcher looks at the outbox again. It must
	// not block.
	Wake()
}

// Retention bounds a tenant's delivered and exhausted events: at most Keep of
// them, none older than MaxAge on the tenant clock. PENDING events are never pruned.
type Retention struct {
	Keep   int
	MaxAge time.Duration
}

// DefaultRetention is the bound when none is configured.
var DefaultRetention = Retention{Keep: 1000, MaxAge: 7 * 24 * time.Hour}

func (s *Service) webhooksNotify(tenantID string) { s.waits.notify("webhooks:" + tenantID) }

// CheckWebhookEndpoint is the one check of a webhook endpoint, wherever one
// is set (the config file, tenant creation, the control plane, a snapshot
// import): its form (CheckWebhookURL), then policy p (nil: none). ""
// (no endpoint) passes. The error's text completes a sentence about the
// field ("url must be an absolute http(s) URL", "url is refused by
// --webhook-allow ..."); WebhookURLError makes it a 422.
func CheckWebhookEndpoint(p simulator.EndpointPolicy, raw string) error {
	if err := simulator.CheckWebhookURL(raw); err != nil || raw == "" || p == nil {
		return err
	}
	u, _ := url.Parse(raw) // CheckWebhookURL parsed it
	return p.AdmitEndpoint(u)
}

// CheckWebhookEndpoint checks raw with the service's EndpointPolicy.
func (s *Service) CheckWebhookEndpoint(raw string) error {
	return CheckWebhookEndpoint(s.endpoints, raw)
}

// WebhookURLError is the 422 of an endpoint that CheckWebhookEndpoint
// refused, at path of model (field is the field's name in the message).
func WebhookURLError(model, path, field string, err error) *simulator.Error {
	return simulator.ValidationError(model, simulator.FieldError{Path: path, Description: field + " " + err.Error()})
}

// SetWebhookURL sets the tenant's webhook endpoint, its webhook version
// unchanged. Errors: as SetWebhookEndpoint.
func (s *Service) SetWebhookURL(t *simulator.Tenant, url string) (*simulator.Tenant, error) {
	return s.SetWebhookEndpoint(t, url, "")
}

// SetWebhookEndpoint sets the tenant's webhook endpoint and, unless version
// is "", its webhook version: events made from then on have bodies of that
// version; events already made keep theirs.
// Errors: RequestValidationError (url empty or refused by
// CheckWebhookEndpoint, version not one of simulator.APIVersions; every
// one at once).
func (s *Service) SetWebhookEndpoint(t *simulator.Tenant, url string, version simulator.APIVersion) (*simulator.Tenant, error) {
	var errs []simulator.FieldError
	if url == "" {
		errs = append(errs, simulator.FieldError{Path: "$.url", Description: "url " + simulator.ErrNotAbsoluteURL.Error()})
	} else if err := s.CheckWebhookEndpoint(url); err != nil {
		errs = append(errs, simulator.FieldError{Path: "$.url", Description: "url " + err.Error()})
	}
	if version != "" {
		if err := simulator.CheckAPIVersion(string(version)); err != nil {
			errs = append(errs, simulator.FieldError{Path: "$.version", Description: "version " + err.Error()})
		}
	}
	if len(errs) > 0 {
		return nil, simulator.ValidationError("WebhookEndpointRequest", errs...)
	}
	return s.updateTenant(t, func(cur *simulator.Tenant) {
		cur.WebhookURL = url
		if version != "" {
			cur.WebhookVersion = version
		}
	})
}

// RotateSecret gives the tenant a new signing secret; the previous one signs
// X-Signature-Secondary for 24h of the tenant clock.
func (s *Service) RotateSecret(t *simulator.Tenant) (*simulator.Tenant, error) {
	return s.updateTenant(t, func(cur *simulator.Tenant) {
		cur.PreviousSecret, cur.PreviousUntil = cur.SigningSecret, s.now(cur).Add(24*time.Hour)
		cur.SigningSecret = "whsec_" + s.ids.NewID(simulator.IDSecret)
	})
}

// SetWebhookChaos sets the tenant's delivery chaos; nil turns it off.
func (s *Service) SetWebhookChaos(t *simulator.Tenant, c *simulator.WebhookChaos) (*simulator.Tenant, error) {
	return s.updateTenant(t, func(cur *simulator.Tenant) { cur.WebhookChaos = c })
}

func (s *Service) updateTenant(t *simulator.Tenant, fn func(cur *simulator.Tenant)) (*simulator.Tenant, error) {
	var out *simulator.Tenant
	err := s.store.Update(func(tx simulator.Tx) error {
		cur, err := tx.Tenant(t.ID)
		if err != nil {
			return err
		}
		if cur == nil {
			return simulator.Errorf(simulator.CodeUnauthorized, "The tenant no longer exists")
		}
		fn(cur)
		out = cur
		return tx.PutTenant(cur)
	})
	return out, err
}

// Events lists the tenant's events, newest first. Errors: RequestValidationError.
func (s *Service) Events(t *simulator.Tenant, q simulator.EventQuery) ([]*simulator.Event, error) {
	out, _, err := s.EventsAndUnreadable(t, q)
	return out, err
}

// EventsAndUnreadable is Events, and the keys of the events left out
// because their records do not decode.
func (s *Service) EventsAndUnreadable(t *simulator.Tenant, q simulator.EventQuery) ([]*simulator.Event, []string, error) {
	if errs := validEventQuery(q); len(errs) > 0 {
		return nil, nil, simulator.ValidationError("WebhookEventsQuery", errs...)
	}
	if q.Limit == 0 {
		q.Limit = 100
	}
	var out []*simulator.Event
	var unreadable []string
	err := s.store.View(func(tx simulator.Tx) (err error) {
		out, err = tx.Events(t.ID, q)
		unreadable = unreadableKeys(tx)
		return
	})
	return out, unreadable, err
}

// Event reads one event. Errors: NotFound.
func (s *Service) Event(t *simulator.Tenant, id string) (*simulator.Event, error) {
	var ev *simulator.Event
	if err := s.store.View(func(tx simulator.Tx) (err error) { ev, err = tx.Event(t.ID, id); return }); err != nil {
		return nil, err
	}
	if ev == nil {
		return nil, simulator.Errorf(simulator.CodeNotFound, "No webhook event %q in this tenant", id)
	}
	return ev, nil
}

// EventDetails lists the tenant's events as Events does, each as Event
// reads it (with what its body is rendered from), in one read transaction.
// Errors: RequestValidationError.
func (s *Service) EventDetails(t *simulator.Tenant, q simulator.EventQuery) ([]*simulator.Event, error) {
	if errs := validEventQuery(q); len(errs) > 0 {
		return nil, simulator.ValidationError("WebhookEventsQuery", errs...)
	}
	if q.Limit == 0 {
		q.Limit = 100
	}
	var out []*simulator.Event
	err := s.store.View(func(tx simulator.Tx) error {
		list, err := tx.Events(t.ID, q)
		for _, ev := range list {
			if err != nil {
				break
			}
			var full *simulator.Event
			if full, err = tx.Event(t.ID, ev.ID); full != nil {
				out = append(out, full)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RecordAttempt stores attempt a of event id and, in the same transaction,
// what follows from it: a 2xx marks the event DELIVERED; a failed ordinary
// attempt schedules the next retry (NextRetry) or, after the sixth, marks it
// EXHAUSTED; "no endpoint" exhausts it at once. A held event (an imported
// PENDING one, Tx.HoldEvent) stays held while it is PENDING. Replays and chaos duplicates
// (a.Replay, a.Chaos == "duplicate") only mark DELIVERED on a 2xx. It
// answers the event as stored, without what its body is rendered from (nil
// when it is gone).
func (s *Service) RecordAttempt(tenantID, id string, a simulator.DeliveryAttempt) (*simulator.Event, error) {
	var out *simulator.Event
	err := s.store.Update(func(tx simulator.Tx) error {
		ev, err := tx.EventRecord(tenantID, id)
		if err != nil || ev == nil {
			return err
		}
		held, err := tx.EventHeld(ev) // an imported event stays held after a failed replay
		if err != nil {
			return err
		}
		before := ev.Status
		ev.Attempts = append(ev.Attempts, a)
		switch {
		case a.OK():
			ev.Status, ev.NextAt = simulator.DeliveryDelivered, time.Time{}
		case a.Replay || a.Chaos == "duplicate" || ev.Status != simulator.DeliveryPending:
		case a.Error == simulator.ErrNoEndpoint:
			ev.Status, ev.NextAt = simulator.DeliveryExhausted, time.Time{}
		default:
			n := 0
			for _, x := range ev.Attempts {
				if !x.Replay && x.Chaos != "duplicate" {
					n++
				}
			}
			if next, ok := simulator.NextRetry(n, a.At); ok {
				ev.NextAt = simulator.NormTime(next)
			} else {
				ev.Status, ev.NextAt = simulator.DeliveryExhausted, time.Time{}
			}
		}
		out = ev
		if err := tx.PutEvent(ev); err != nil {
			return err
		}
		url := ""
		if a.Error != simulator.ErrNoEndpoint {
			tn, err := tx.Tenant(tenantID)
			if err != nil {
				return err
			}
			if tn != nil {
				url = tn.WebhookURL
			}
		}
		id, typ, pid, after, outcome := ev.ID, ev.Type, ev.PaymentID, ev.Status, attemptOutcome(a)
		tx.AfterCommit(func() {
			s.observers.Publish(observe.Happening{Kind: observe.DeliveryAttempted, TenantID: tenantID, EventID: id, EventType: typ,
				PaymentID: pid, URL: url, Before: before, After: after, Attempt: outcome})
		})
		if held {
			return tx.HoldEvent(ev)
		}
		return nil
	})
	if err == nil {
		s.webhooksNotify(tenantID)
	}
	return out, err
}

// PruneEvents applies the retention bound r to the tenant's delivered and
// exhausted events (PENDING events are never pruned), in write transactions
// of at most PruneBatch deletions each; it answers how many went.
func (s *Service) PruneEvents(t *simulator.Tenant, r Retention) (int, error) {
	var before time.Time
	if r.MaxAge > 0 {
		before = s.now(t).Add(-r.MaxAge)
	}
	total := 0
	var from simulator.PruneFrom // each batch resumes where the last one stopped
	for {
		n := 0
		err := s.store.Update(func(tx simulator.Tx) (err error) {
			n, from, err = tx.PruneEvents(t.ID, r.Keep, before, from)
			return err
		})
		total += n
		if err != nil || n < simulator.PruneBatch {
			return total, err
		}
	}
}

// DeliverWebhooks tries every PENDING event of the tenant now.
func (s *Service) DeliverWebhooks(ctx context.Context, t *simulator.Tenant) (delivered, failed int, err error) {
	if s.webhooks == nil {
		return 0, 0, simulator.Errorf(simulator.CodeNotFound, "Webhook delivery is not running")
	}
	d, f := s.webhooks.DeliverPending(ctx, t.ID)
	return d, f, nil
}

// ReplayWebhook makes one immediate attempt at an event. Errors: NotFound.
func (s *Service) ReplayWebhook(ctx context.Context, t *simulator.Tenant, id string) (simulator.DeliveryAttempt, error) {
	if _, err := s.Event(t, id); err != nil {
		return simulator.DeliveryAttempt{}, err
	}
	if s.webhooks == nil {
		return simulator.DeliveryAttempt{}, simulator.Errorf(simulator.CodeNotFound, "Webhook delivery is not running")
	}
	return s.webhooks.Replay(ctx, t.ID, id)
}

// WaitEvent waits until an event of the payment (of type typ, when set)
// reaches delivery status, and answers it. Errors: RequestValidationError,
// WaitTimeout (at the timeout), TooManyRequests.
func (s *Service) WaitEvent(ctx context.Context, t *simulator.Tenant, q simulator.EventQuery, timeout time.Duration) (*simulator.Event, error) {
	q.Limit = 1000
	if errs := validEventQuery(q); len(errs) > 0 {
		return nil, simulator.ValidationError("WebhookWaitQuery", errs...)
	}
	key := "webhooks:" + t.ID
	found := func() (*simulator.Event, bool, error) {
		evs, err := s.Events(t, q)
		if err != nil || len(evs) == 0 {
			return nil, false, err
		}
		ev, err := s.Event(t, evs[len(evs)-1].ID) // the oldest such event, with its body
		return ev, err == nil, err
	}
	// A wait that is already satisfied answers before the tenant's cap applies.
	if ev, ok, err := found(); err != nil || ok {
		return ev, err
	}
	release, err := s.held.Acquire(t.ID)
	if err != nil {
		return nil, err
	}
	defer release()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	timedOut := func() error {
		return simulator.Errorf(simulator.CodeWaitTimeout, "No %s event of payment %q reached %s within %s", orAny(q.Type), q.PaymentID, q.Status, timeout)
	}
	for {
		ch := s.waits.subscribe(key)
		if ev, ok, err := found(); err != nil || ok {
			s.waits.release(key, ch)
			return ev, err
		}
		select {
		case <-ch:
			s.waits.release(key, nil)
		case <-deadline.C:
			s.waits.release(key, ch)
			return nil, timedOut()
		case <-s.held.Stopping(): // shutdown: answer the current state
			s.waits.release(key, ch)
			return nil, timedOut()
		case <-ctx.Done():
			s.waits.release(key, ch)
			return nil, simulator.Errorf(simulator.CodeWaitTimeout, "The wait was cancelled")
		}
	}
}

func orAny(typ string) string {
	if typ == "" {
		return "webhook"
	}
	return typ
}
