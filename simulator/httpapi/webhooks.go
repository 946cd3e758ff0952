package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// Webhook and dispute control (docs/webhooks.md, docs/control-plane.md).

var (
	webhookEndpointRequest = obj(true, required("url", str(1, 2048)), field("version", enum(simulator.APIVersionNames()...)))
	webhookChaosRequest    = obj(true, field("duplicate", number()), field("reorder", boolean()), field("delay", anyStr()), field("seed", number()))
	disputeStatusRequest   = obj(true, required("status", enum(simulator.Names(simulator.DisputeMoves)...)), field("type", enum(simulator.DisputeTypes...)))
)

type attemptOutDTO struct {
	At               string            `json:"at"`
	StatusCode       int               `json:"statusCode"`
	LatencyMs        int64             `json:"latencyMs"`
	Error            *string           `json:"error"` // null when the attempt succeeded
	ResponseBodyHead string            `json:"responseBodyHead,omitempty"`
	SignedAt         string            `json:"signedAt,omitempty"`
	Headers          map[string]string `json:"headers,omitempty"`
	Replay           bool              `json:"replay,omitempty"`
	Chaos            string            `json:"chaos,omitempty"`
}

type eventOutDTO struct {
	ID            string          `json:"id"`
	EventType     string          `json:"eventType"`
	PaymentID     string          `json:"paymentId"`
	DisputeID     string          `json:"disputeId,omitempty"`
	CreatedAt     string          `json:"createdAt"`
	Status        string          `json:"status"`
	NextAttemptAt string          `json:"nextAttemptAt,omitempty"`
	Attempts      []attemptOutDTO `json:"attempts"`
	Body          json.RawMessage `json:"body,omitempty"`
	// PaymentStatus is the payment status the event announces (absent for
	// an event without a payment, or stored by an earlier release).
	PaymentStatus simulator.PaymentStatus `json:"paymentStatus,omitempty"`
}

func toAttemptOut(a simulator.DeliveryAttempt) attemptOutDTO {
	out := attemptOutDTO{
		At: ts(a.At), StatusCode: a.StatusCode, LatencyMs: a.LatencyMs,
		ResponseBodyHead: a.ResponseBodyHead, SignedAt: a.SignedAt, Headers: a.Headers, Replay: a.Replay, Chaos: a.Chaos,
	}
	if a.Error != "" {
		e := a.Error
		out.Error = &e
	}
	return out
}

// toEventOut renders an event; body, when set, is the body its latest
// attempt sent (or the body before any attempt): Service.EventBody.
func toEventOut(ev *simulator.Event, body json.RawMessage) eventOutDTO {
	out := eventOutDTO{
		ID: ev.ID, EventType: ev.Type, PaymentID: ev.PaymentID, DisputeID: ev.DisputeID,
		CreatedAt: ts(ev.CreatedAt), Status: ev.Status, Attempts: []attemptOutDTO{}, Body: body, PaymentStatus: ev.PaymentStatus,
	}
	if ev.Status == simulator.DeliveryPending {
		out.NextAttemptAt = ts(ev.CreatedAt)
		if !ev.NextAt.IsZero() {
			out.NextAttemptAt = ts(ev.NextAt)
		}
	}
	for _, a := range ev.Attempts {
		out.Attempts = append(out.Attempts, toAttemptOut(a))
	}
	return out
}

// eventWithBody answers ev with the body its latest attempt sent.
func (s *Server) eventWithBody(c echo.Context, ev *simulator.Event) error {
	body, err := s.svc.EventBody(ev)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toEventOut(ev, body))
}

func (s *Server) putWebhookEndpoint(c echo.Context) error {
	var req struct {
		URL     string `json:"url"`
		Version string `json:"version"`
	}
	if _, err := decodeRequest(c, webhookEndpointRequest, "WebhookEndpointRequest", &req, false); err != nil {
		return err
	}
	t, err := s.svc.SetWebhookEndpoint(tenantOf(c), req.URL, simulator.APIVersion(req.Version))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, webhookEndpointDTO{URL: nullable(t.WebhookURL), Version: t.WebhookAPIVersion()})
}

// webhookEndpointDTO is the tenant's endpoint and the version of the
// webhook bodies its events are made with from now on.
type webhookEndpointDTO struct {
	URL     *string              `json:"url"` // null: no endpoint
	Version simulator.APIVersion `json:"version"`
}

func (s *Server) getWebhookEndpoint(c echo.Context) error {
	t, err := s.svc.Tenant(tenantOf(c).ID)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, webhookEndpointDTO{URL: nullable(t.WebhookURL), Version: t.WebhookAPIVersion()})
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) rotateSecret(c echo.Context) error {
	if _, err := decodeRequest(c, emptyRequest, "RotateSecretRequest", nil, true); err != nil {
		return err
	}
	t, err := s.svc.RotateSecret(tenantOf(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]string{"signingSecret": t.SigningSecret, "previousSecretValidUntil": ts(t.PreviousUntil)})
}

func eventQuery(c echo.Context) (simulator.EventQuery, []simulator.FieldError) {
	q := simulator.EventQuery{PaymentID: c.QueryParam("paymentId"), Type: c.QueryParam("type"), Status: c.QueryParam("status")}
	var errs []simulator.FieldError
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			errs = append(errs, simulator.FieldError{Path: "$.limit", Description: "limit must be between 1 and 1000"})
		}
		q.Limit = n
	}
	return q, errs
}

func (s *Server) listWebhookEvents(c echo.Context) error {
	q, errs := eventQuery(c)
	if len(errs) > 0 {
		return simulator.ValidationError("WebhookEventsQuery", errs...)
	}
	evs, unreadable, err := s.svc.EventsAndUnreadable(tenantOf(c), q)
	if err != nil {
		return err
	}
	warnUnreadable(c, unreadable)
	out := struct {
		Data []eventOutDTO `json:"data"`
	}{Data: []eventOutDTO{}}
	for _, ev := range evs {
		out.Data = append(out.Data, toEventOut(ev, nil))
	}
	return writeJSON(c, http.StatusOK, out)
}

func (s *Server) getWebhookEvent(c echo.Context) error {
	ev, err := s.svc.Event(tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return s.eventWithBody(c, ev)
}

// getWebhookEventBody is GET /_sandbox/webhooks/events/{id}/body: the
// exact bytes of the body the event's latest attempt sent (before any
// attempt, the body every attempt sends but for signedAt), to check an
// X-Signature-Primary against. The event's JSON answer carries the body as
// JSON, which a reader re-encodes; these bytes are what was signed.
func (s *Server) getWebhookEventBody(c echo.Context) error {
	ev, err := s.svc.Event(tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	body, err := s.svc.EventBody(ev)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body)
}

func (s *Server) deliverWebhooks(c echo.Context) error {
	if _, err := decodeRequest(c, emptyRequest, "DeliverRequest", nil, true); err != nil {
		return err
	}
	d, f, err := s.svc.DeliverWebhooks(c.Request().Context(), tenantOf(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]int{"delivered": d, "failed": f})
}

func (s *Server) replayWebhook(c echo.Context) error {
	if _, err := decodeRequest(c, emptyRequest, "ReplayRequest", nil, true); err != nil {
		return err
	}
	a, err := s.svc.ReplayWebhook(c.Request().Context(), tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toAttemptOut(a))
}

// waitWebhook is GET /_sandbox/webhooks/wait?paymentId=&type=&status=DELIVERED&timeout=5s.
func (s *Server) waitWebhook(c echo.Context) error {
	q, errs := eventQuery(c)
	if q.PaymentID == "" {
		errs = append(errs, simulator.FieldError{Path: "$.paymentId", Description: "Field required"})
	}
	if q.Status == "" {
		q.Status = simulator.DeliveryDelivered
	}
	timeout, errs := waitTimeout(c, errs)
	if len(errs) > 0 {
		return simulator.ValidationError("WebhookWaitQuery", errs...)
	}
	ev, err := s.svc.WaitEvent(c.Request().Context(), tenantOf(c), q, timeout)
	if err != nil {
		return err
	}
	return s.eventWithBody(c, ev)
}

func (s *Server) putWebhookChaos(c echo.Context) error {
	var req struct {
		Duplicate *float64 `json:"duplicate"`
		Reorder   bool     `json:"reorder"`
		Delay     string   `json:"delay"`
		Seed      *float64 `json:"seed"`
	}
	var delay time.Duration
	rules := func(tree map[string]any) (errs []simulator.FieldError) {
		if v, ok := tree["duplicate"].(json.Number); ok {
			if f, err := v.Float64(); err != nil || f < 0 || f > 1 {
				errs = append(errs, simulator.FieldError{Path: "$.duplicate", Description: "duplicate must be a fraction from 0 to 1"})
			}
		} else if v, ok := tree["duplicate"].(float64); ok && (v < 0 || v > 1) {
			errs = append(errs, simulator.FieldError{Path: "$.duplicate", Description: "duplicate must be a fraction from 0 to 1"})
		}
		if v, ok := tree["delay"].(string); ok && v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 || d > 24*time.Hour {
				errs = append(errs, simulator.FieldError{Path: "$.delay", Description: "delay must be a duration from 0s to 24h"})
			}
			delay = d
		}
		return errs
	}
	if _, err := decodeWith(c, webhookChaosRequest, "WebhookChaosRequest", &req, false, rules); err != nil {
		return err
	}
	var chaos *simulator.WebhookChaos
	if (req.Duplicate != nil && *req.Duplicate > 0) || req.Reorder || delay > 0 {
		chaos = &simulator.WebhookChaos{Reorder: req.Reorder, Delay: delay}
		if req.Duplicate != nil {
			chaos.Duplicate = *req.Duplicate
		}
		if req.Seed != nil {
			chaos.Seed = int64(*req.Seed)
		}
	}
	if _, err := s.svc.SetWebhookChaos(tenantOf(c), chaos); err != nil {
		return err
	}
	if s.opt.OnChaos != nil {
		s.opt.OnChaos(tenantOf(c).ID)
	}
	out := map[string]any{"duplicate": 0.0, "reorder": false, "delay": "0s", "seed": 0}
	if chaos != nil {
		out = map[string]any{"duplicate": chaos.Duplicate, "reorder": chaos.Reorder, "delay": chaos.Delay.String(), "seed": chaos.Seed}
	}
	return writeJSON(c, http.StatusOK, out)
}

// Disputes.

type disputeOutDTO struct {
	DisputeID     string `json:"disputeId"`
	PaymentID     string `json:"paymentId"`
	TransactionID string `json:"transactionId,omitempty"`
	Status        string `json:"status"`
	Type          string `json:"type"`
	Reason        string `json:"reason"`
	Amount        int64  `json:"amount"`
	CurrencyCode  string `json:"currencyCode"`
	OpenedAt      string `json:"openedAt"`
	UpdatedAt     string `json:"updatedAt"`
}

func toDisputeOut(d *simulator.Dispute) disputeOutDTO {
	return disputeOutDTO{
		DisputeID: d.ID, PaymentID: d.PaymentID, TransactionID: d.TransactionID, Status: string(d.Status), Type: d.Type,
		Reason: d.Reason, Amount: d.Amount, CurrencyCode: d.CurrencyCode, OpenedAt: ts(d.OpenedAt), UpdatedAt: ts(d.UpdatedAt),
	}
}

func (s *Server) listDisputes(c echo.Context) error {
	ds, unreadable, err := s.svc.DisputesAndUnreadable(tenantOf(c), c.QueryParam("paymentId"))
	if err != nil {
		return err
	}
	warnUnreadable(c, unreadable)
	out := struct {
		Data []disputeOutDTO `json:"data"`
	}{Data: []disputeOutDTO{}}
	for _, d := range ds {
		out.Data = append(out.Data, toDisputeOut(d))
	}
	return writeJSON(c, http.StatusOK, out)
}

func (s *Server) setDisputeStatus(c echo.Context) error {
	var req struct {
		Status string `json:"status"`
		Type   string `json:"type"`
	}
	if _, err := decodeRequest(c, disputeStatusRequest, "DisputeStatusRequest", &req, false); err != nil {
		return err
	}
	d, err := s.svc.SetDisputeStatus(c.Request().Context(), tenantOf(c), c.Param("id"), simulator.DisputeStatus(req.Status), req.Type)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toDisputeOut(d))
}

// Clock advance answer: {now, fired}.

type advanceDTO struct {
	Now   string     `json:"now"`
	Fired []firedDTO `json:"fired"`
}

// firedDTO is one item of fired. Pending (present only when true) marks a
// webhook attempt still in flight when the advance stopped waiting for it
// (--advance-wait): it finishes on its own, recorded at At.
type firedDTO struct {
	Kind      string `json:"kind"`
	At        string `json:"at"`
	PaymentID string `json:"paymentId,omitempty"`
	AttemptID string `json:"attemptId,omitempty"`
	EventID   string `json:"eventId,omitempty"`
	Pending   bool   `json:"pending,omitempty"`
}

func toFiredDTOs(fs []service.Fired) []firedDTO {
	out := []firedDTO{}
	for _, f := range fs {
		out = append(out, firedDTO{Kind: f.Kind, At: ts(f.At), PaymentID: f.PaymentID, AttemptID: f.AttemptID, EventID: f.EventID, Pending: f.Pending})
	}
	return out
}
