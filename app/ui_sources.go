package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/dashboard"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// The dashboard's sources over the real implementations: the dashboard
// package may import only the simulator, so the composition root adapts the
// service's webhook and scenario methods and the server's request journal
// to its interfaces.

// UISources fills the dashboard sources still nil in opt from the app's
// service and journal.
func (a *App) UISources(opt *dashboard.Options) {
	if opt.Webhooks == nil {
		opt.Webhooks = uiWebhooks{svc: a.Svc}
	}
	if opt.Scenarios == nil {
		opt.Scenarios = uiScenarios{svc: a.Svc, file: a.Config.Scenarios}
	}
	if opt.Journal == nil {
		opt.Journal = uiJournal{j: a.Server.Journal()}
	}
}

// webhookHint reports a failed delivery to the journal's hints and the CI
// report (webhook-non-2xx): a receiver that answered outside 2xx, or that
// could not be reached. An event recorded without an endpoint reached no
// receiver and is not reported.
func webhookHint(srv *httpapi.Server) func(string, *simulator.Event, simulator.DeliveryAttempt) {
	return func(tenantID string, ev *simulator.Event, a simulator.DeliveryAttempt) {
		if a.OK() || a.Error == simulator.ErrNoEndpoint {
			return
		}
		detail := ""
		if a.StatusCode == 0 {
			detail = a.Error
		}
		srv.RecordWebhookHint(tenantID, ev.ID, a.StatusCode, detail, a.At)
	}
}

// uiWebhooks is dashboard.Webhooks over the service's webhook methods (the
// dispatcher behind them is the one that delivers in the background).
type uiWebhooks struct{ svc *service.Service }

func (w uiWebhooks) Endpoint(t *simulator.Tenant) (dashboard.WebhookEndpoint, error) {
	cur, err := w.svc.Tenant(t.ID)
	if err != nil {
		return dashboard.WebhookEndpoint{}, err
	}
	return dashboard.WebhookEndpoint{URL: cur.WebhookURL, Version: string(cur.WebhookAPIVersion())}, nil
}

func (w uiWebhooks) SetEndpoint(t *simulator.Tenant, url, version string) error {
	_, err := w.svc.SetWebhookEndpoint(t, url, simulator.APIVersion(version))
	return err
}

// Events reads the events with their bodies (the listing leaves them out).
func (w uiWebhooks) Events(t *simulator.Tenant, paymentID string, limit int) ([]dashboard.WebhookEvent, error) {
	q := simulator.EventQuery{PaymentID: paymentID, Limit: min(max(limit, 1), 1000)}
	evs, err := w.svc.EventDetails(t, q)
	if err != nil {
		return nil, err
	}
	out := make([]dashboard.WebhookEvent, 0, len(evs))
	for _, ev := range evs {
		ue, err := w.toUIEvent(ev)
		if err != nil {
			return nil, err
		}
		out = append(out, ue)
	}
	return out, nil
}

func (w uiWebhooks) Replay(ctx context.Context, t *simulator.Tenant, id string) (dashboard.WebhookAttempt, error) {
	ev, err := w.svc.Event(t, id)
	if err != nil {
		return dashboard.WebhookAttempt{}, err
	}
	a, err := w.svc.ReplayWebhook(ctx, t, id)
	if err != nil {
		return dashboard.WebhookAttempt{}, err
	}
	return w.toUIAttempt(ev, a)
}

func (w uiWebhooks) DeliverNow(ctx context.Context, t *simulator.Tenant) (int, int, error) {
	return w.svc.DeliverWebhooks(ctx, t)
}

func (w uiWebhooks) RotateSecret(t *simulator.Tenant) (string, error) {
	cur, err := w.svc.RotateSecret(t)
	if err != nil {
		return "", err
	}
	return cur.SigningSecret, nil
}

// toUIEvent is an event with each attempt's exact body (the webhooks
// package renders it, signedAt included); the event's Body is the latest
// attempt's, or the body before any attempt was sent.
func (w uiWebhooks) toUIEvent(ev *simulator.Event) (dashboard.WebhookEvent, error) {
	body, err := w.svc.EventBody(ev)
	if err != nil {
		return dashboard.WebhookEvent{}, err
	}
	out := dashboard.WebhookEvent{ID: ev.ID, Type: ev.Type, PaymentID: ev.PaymentID, Status: ev.Status,
		CreatedAt: ev.CreatedAt, Body: string(body)}
	for _, a := range ev.Attempts {
		ua, err := w.toUIAttempt(ev, a)
		if err != nil {
			return dashboard.WebhookEvent{}, err
		}
		out.Attempts = append(out.Attempts, ua)
	}
	return out, nil
}

// toUIAttempt describes attempt a of event ev. An attempt that sent
// nothing (no endpoint) has no headers and no body.
func (w uiWebhooks) toUIAttempt(ev *simulator.Event, a simulator.DeliveryAttempt) (dashboard.WebhookAttempt, error) {
	out := dashboard.WebhookAttempt{At: a.At, StatusCode: a.StatusCode, Latency: time.Duration(a.LatencyMs) * time.Millisecond,
		Error: a.Error, Headers: a.Headers, Response: a.ResponseBodyHead}
	switch {
	case a.Replay:
		out.Kind = "replay"
	case a.Chaos != "":
		out.Kind = "chaos: " + a.Chaos
	}
	body, err := w.svc.SentBody(ev, a)
	out.Body = string(body)
	return out, err
}

// uiScenarios is dashboard.Scenarios over the service's scenario methods
// (the fake processors' rule book); file is the --scenarios path ("" for
// the built-in file).
type uiScenarios struct {
	svc  *service.Service
	file string
}

func (s uiScenarios) Rules(t *simulator.Tenant) (string, string, error) {
	cur, err := s.svc.Tenant(t.ID)
	if err != nil {
		return "", "", err
	}
	if cur.Scenarios != "" { // the tenant's own document, as it was sent
		return cur.Scenarios, "this tenant's own rules (PUT /_sandbox/scenarios)", nil
	}
	doc, err := s.svc.Scenarios(t, false)
	if err != nil {
		return "", "", err
	}
	src := "the built-in scenarios.yaml"
	if s.file != "" {
		src = s.file
	}
	return string(doc), src, nil
}

// Apply answers the validator's problems (with their lines) instead of an
// error when the document is refused.
func (s uiScenarios) Apply(t *simulator.Tenant, doc string) ([]dashboard.ScenarioProblem, error) {
	_, err := s.svc.PutScenarios(t, []byte(doc))
	var e *simulator.Error
	if err == nil || !errors.As(err, &e) || e.Code != simulator.CodeScenarioValidationError {
		return nil, err
	}
	out := make([]dashboard.ScenarioProblem, 0, len(e.Fields))
	for _, f := range e.Fields {
		var line int
		if _, serr := fmt.Sscanf(f.Path, "line %d", &line); serr != nil {
			line = 0
		}
		msg := strings.TrimPrefix(f.Description, fmt.Sprintf("line %d: ", line))
		out = append(out, dashboard.ScenarioProblem{Line: line, Message: msg})
	}
	return out, nil
}

func (s uiScenarios) Reset(t *simulator.Tenant) error { return s.svc.DeleteScenarios(t) }

// ExplainPayment: the rule stored on the payment at creation and why, then
// how each rule in force now sees it.
func (s uiScenarios) ExplainPayment(t *simulator.Tenant, id string) (dashboard.Explanation, error) {
	ex, err := s.svc.ExplainPayment(t, id)
	if err != nil {
		return dashboard.Explanation{}, err
	}
	out := dashboard.Explanation{Rule: ruleName(ex.Matched)}
	if ex.Reason != "" {
		out.Reasons = append(out.Reasons, "at creation: "+ex.Reason)
	}
	return withRules(out, ex.Now), nil
}

// explainInput is the sample request of the dashboard's explain form: the
// body of POST /_sandbox/scenarios/explain (a card number, or a token),
// with paymentMethod.number accepted for the card as on POST /payments.
type explainInput struct {
	Amount              *int64         `json:"amount"`
	CurrencyCode        string         `json:"currencyCode"`
	OrderID             string         `json:"orderId"`
	CustomerID          string         `json:"customerId"`
	Metadata            map[string]any `json:"metadata"`
	Card                string         `json:"card"`
	PaymentMethodToken  string         `json:"paymentMethodToken"`
	ProcessorMerchantID string         `json:"processorMerchantId"`
	PaymentMethod       *struct {
		Number string `json:"number"`
	} `json:"paymentMethod"`
}

func (s uiScenarios) ExplainRequest(t *simulator.Tenant, requestJSON string) (dashboard.Explanation, error) {
	var in explainInput
	dec := json.NewDecoder(bytes.NewReader([]byte(requestJSON)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return dashboard.Explanation{}, simulator.ValidationError("ScenarioExplainRequest", simulator.FieldError{Path: "$",
			Description: "the sample must be a JSON object with amount, currencyCode, orderId, customerId, metadata, card or paymentMethodToken (" + err.Error() + ")"})
	}
	req := service.ExplainRequest{Amount: in.Amount, CurrencyCode: in.CurrencyCode, OrderID: in.OrderID, CustomerID: in.CustomerID,
		Metadata: in.Metadata, Card: in.Card, Token: in.PaymentMethodToken, ProcessorMerchantID: in.ProcessorMerchantID}
	if req.Card == "" && in.PaymentMethod != nil {
		req.Card = in.PaymentMethod.Number
	}
	ex, err := s.svc.ExplainScenario(t, req)
	if err != nil {
		return dashboard.Explanation{}, err
	}
	return withRules(dashboard.Explanation{Rule: ruleName(ex.Matched)}, ex), nil
}

func ruleName(matched *string) string {
	if matched == nil {
		return "(none: the default processor authorizes)"
	}
	return *matched
}

// withRules adds one line per rule: its name, whether it matches, and why.
func withRules(out dashboard.Explanation, ex simulator.ScenarioExplanation) dashboard.Explanation {
	for _, r := range ex.Rules {
		verdict := "does not match"
		if r.Matched {
			verdict = "matches"
		}
		line := r.Name + ": " + verdict
		if r.Reason != "" {
			line += " (" + r.Reason + ")"
		}
		out.Reasons = append(out.Reasons, line)
	}
	return out
}

// uiJournal is dashboard.Journal over the server's request journal.
type uiJournal struct{ j *httpapi.Journal }

func (u uiJournal) Requests(t *simulator.Tenant, paymentID string, limit int) ([]dashboard.JournalEntry, error) {
	es := u.j.Entries(t.ID, httpapi.JournalQuery{PaymentID: paymentID, Limit: max(limit, 1)})
	out := make([]dashboard.JournalEntry, 0, len(es))
	for _, e := range es {
		at, err := time.Parse(simulator.TimeFormat, e.At)
		if err != nil {
			return nil, fmt.Errorf("journal entry %s: %w", e.RequestID, err)
		}
		de := dashboard.JournalEntry{ID: e.RequestID, At: at, Method: e.Method, Path: e.Path, Status: e.Status,
			Latency: time.Duration(e.LatencyMs) * time.Millisecond, RequestBody: e.RequestBody, ResponseBody: e.ResponseBody}
		for _, h := range e.Hints {
			de.Hints = append(de.Hints, h.Kind+": "+h.Message)
		}
		out = append(out, de)
	}
	return out, nil
}
