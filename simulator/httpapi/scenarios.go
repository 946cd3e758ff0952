package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// getScenarios is GET /_sandbox/scenarios: the rules in force for the
// tenant, as YAML, or JSON when the Accept header asks for it.
func (s *Server) getScenarios(c echo.Context) error {
	asJSON := strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "json")
	out, err := s.svc.Scenarios(tenantOf(c), asJSON)
	if err != nil {
		return err
	}
	if asJSON {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, out)
	}
	return c.Blob(http.StatusOK, "application/yaml", out)
}

// putScenarios is PUT /_sandbox/scenarios with a whole YAML document as the
// body (a JSON document is YAML too): {"rules": N}, or 422
// ScenarioValidationError with every problem at "line N".
func (s *Server) putScenarios(c echo.Context) error {
	n, err := s.svc.PutScenarios(tenantOf(c), body(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]int{"rules": n})
}

// deleteScenarios is DELETE /_sandbox/scenarios: back to the server's rules;
// answers their count.
func (s *Server) deleteScenarios(c echo.Context) error {
	t := tenantOf(c)
	if err := s.svc.DeleteScenarios(t); err != nil {
		return err
	}
	raw, err := s.svc.Scenarios(t, true)
	if err != nil {
		return err
	}
	var doc struct {
		Rules []json.RawMessage `json:"rules"`
	}
	_ = json.Unmarshal(raw, &doc)
	return writeJSON(c, http.StatusOK, map[string]int{"rules": len(doc.Rules)})
}

// explainScenarios is POST /_sandbox/scenarios/explain: a
// PaymentCreationAPIRequest body (the fields the rules look at; the others
// are ignored) plus an optional test-card number in `card`, with its
// `expirationMonth` and `expirationYear`.
func (s *Server) explainScenarios(c echo.Context) error {
	tree, err := parseJSON(body(c), true)
	if err != nil {
		return err
	}
	const model = "ScenarioExplainRequest"
	var req service.ExplainRequest
	var errs []simulator.FieldError
	str := func(key string, dst *string) {
		v, ok := tree[key]
		if !ok || v == nil {
			return
		}
		sv, isStr := v.(string)
		if !isStr {
			errs = append(errs, simulator.FieldError{Path: "$." + key, Description: key + " must be a string"})
			return
		}
		*dst = sv
	}
	str("currencyCode", &req.CurrencyCode)
	str("orderId", &req.OrderID)
	str("customerId", &req.CustomerID)
	str("card", &req.Card)
	str("paymentMethodToken", &req.Token)
	str("processorMerchantId", &req.ProcessorMerchantID)
	str("expirationMonth", &req.ExpirationMonth)
	str("expirationYear", &req.ExpirationYear)
	if v, ok := tree["amount"]; ok && v != nil {
		n, isNum := v.(json.Number)
		amt, convErr := n.Int64()
		if !isNum || convErr != nil || amt < 0 {
			errs = append(errs, simulator.FieldError{Path: "$.amount", Description: "amount must be a whole number of minor units, at least 0"})
		}
		req.Amount = &amt
	}
	if v, ok := tree["metadata"]; ok && v != nil {
		m, isObj := v.(map[string]any)
		if !isObj {
			errs = append(errs, simulator.FieldError{Path: "$.metadata", Description: "metadata must be an object"})
		}
		req.Metadata = m
	}
	if len(errs) > 0 {
		return simulator.ValidationError(model, errs...)
	}
	ex, err := s.svc.ExplainScenario(tenantOf(c), req)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, ex)
}

// explainPayment is GET /_sandbox/payments/{id}/explain: the rule the
// payment was given at creation and why, and how the rules in force see it.
func (s *Server) explainPayment(c echo.Context) error {
	ex, err := s.svc.ExplainPayment(tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	out := paymentExplanationDTO{PaymentExplanation: ex}
	if ex.Hold != nil {
		out.HoldsFor = ex.Hold.HoldsFor(s.opt.RequestTimeout).String()
	}
	if tm := ex.Timeout; tm != nil {
		out.Timeout = &pendingTimeoutDTO{ResolveTo: tm.ResolveTo, ResolveAt: ts(tm.ResolveAt), ResolvesIn: max(tm.ResolveAt.Sub(ex.At), 0).Round(time.Millisecond).String()}
	}
	return writeJSON(c, http.StatusOK, out)
}

// paymentExplanationDTO is the answer of /_sandbox/payments/{id}/explain:
// holdsFor is how long the payment's rule holds a request that creates a
// payment (as on /_sandbox/scenarios/next; absent without a rule; for a
// payment not decided yet, the rule rulesInForce.matched names), timeout the
// gateway timeout the payment is in.
type paymentExplanationDTO struct {
	service.PaymentExplanation
	HoldsFor string             `json:"holdsFor,omitempty"`
	Timeout  *pendingTimeoutDTO `json:"timeout,omitempty"`
}

// pendingTimeoutDTO is a gateway timeout in progress: the payment becomes
// resolveTo at resolveAt, resolvesIn from now, both on the tenant's clock.
type pendingTimeoutDTO struct {
	ResolveTo  simulator.PaymentStatus `json:"resolveTo"`
	ResolveAt  string                  `json:"resolveAt"`
	ResolvesIn string                  `json:"resolvesIn"`
}

// oneShotDTO is the answer of /_sandbox/scenarios/next: the pending
// one-shot, or {"rule": null, "remaining": 0} when none is pending.
// HoldsFor, with a pending rule, is how long that rule holds the request
// that creates a payment (its latency and its timeout's holdFor, or the
// server's request timeout; "0s" for a rule that answers at once).
type oneShotDTO struct {
	Rule      *string `json:"rule"`
	Remaining int     `json:"remaining"`
	HoldsFor  string  `json:"holdsFor,omitempty"`
}

// oneShotAnswer is the answer for tenant t's one-shot o.
func (s *Server) oneShotAnswer(c echo.Context, o *simulator.OneShot) error {
	if o == nil {
		return writeJSON(c, http.StatusOK, oneShotDTO{})
	}
	h, err := s.svc.RuleHold(tenantOf(c), o.Rule)
	if err != nil {
		return err
	}
	r := o.Rule
	return writeJSON(c, http.StatusOK, oneShotDTO{Rule: &r, Remaining: o.Remaining, HoldsFor: h.HoldsFor(s.opt.RequestTimeout).String()})
}

type nextBody struct {
	Rule  string `json:"rule"`
	Times *int64 `json:"times"`
}

// postNextScenario is POST /_sandbox/scenarios/next {rule, times?}: the
// tenant's next `times` (default 1) created payments take the rule; it
// replaces any pending one-shot.
func (s *Server) postNextScenario(c echo.Context) error {
	var req nextBody
	if _, err := decodeRequest(c, scenarioNext, "ScenarioNextRequest", &req, false); err != nil {
		return err
	}
	times := int64(1)
	if req.Times != nil {
		times = *req.Times
	}
	o, err := s.svc.SetNextScenario(tenantOf(c), req.Rule, times)
	if err != nil {
		return err
	}
	return s.oneShotAnswer(c, o)
}

// getNextScenario is GET /_sandbox/scenarios/next: what is pending.
func (s *Server) getNextScenario(c echo.Context) error {
	o, err := s.svc.NextScenario(tenantOf(c))
	if err != nil {
		return err
	}
	return s.oneShotAnswer(c, o)
}

// deleteNextScenario is DELETE /_sandbox/scenarios/next: nothing pending
// afterwards; answers that ({"rule": null, "remaining": 0}).
func (s *Server) deleteNextScenario(c echo.Context) error {
	if err := s.svc.ClearNextScenario(tenantOf(c)); err != nil {
		return err
	}
	return s.oneShotAnswer(c, nil)
}
