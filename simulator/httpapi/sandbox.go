package httpapi

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

type tenantBody struct {
	Scopes         *[]string `json:"scopes"`
	WebhookURL     string    `json:"webhookUrl"`
	WebhookVersion string    `json:"webhookVersion"`
	TTL            string    `json:"ttl"`
}

// createTenant is POST /_sandbox/tenants: 201 with a fresh tenant's
// credentials; a body that is a snapshot is imported (importSnapshot).
func (s *Server) createTenant(c echo.Context) error {
	if s.opt.AdminKey != "" && !s.adminKeyOK(c) {
		return simulator.Errorf(simulator.CodeUnauthorized, "A valid X-Admin-Key is required to create tenants").
			WithRecovery("Send the sandbox's admin key in the X-Admin-Key header.")
	}
	if b := body(c); snapshot.Is(b) {
		return s.importSnapshot(c, b)
	} else if len(b) > MaxBody { // the snapshot limit is this route's; a creation request keeps MaxBody
		return errTooLarge()
	}
	var req tenantBody
	var ttl time.Duration
	rules := func(tree map[string]any) (errs []simulator.FieldError) { // every broken rule at once
		if v, ok := tree["ttl"].(string); ok && v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				errs = append(errs, simulator.FieldError{Path: "$.ttl", Description: "ttl must be a positive duration like 2h or 30m"})
			}
			ttl = d
		}
		// CreateTenant checks the endpoint itself (it may resolve its host);
		// here only to list it with the other broken rules.
		if v, ok := tree["webhookUrl"].(string); ok && len(errs) > 0 {
			if err := s.svc.CheckWebhookEndpoint(v); err != nil {
				errs = append(errs, simulator.FieldError{Path: "$.webhookUrl", Description: "webhookUrl " + err.Error()})
			}
		}
		return errs
	}
	if _, err := decodeWith(c, tenantCreate, "TenantCreateRequest", &req, true, rules); err != nil {
		return err
	}
	var scopes []simulator.Scope
	if req.Scopes != nil {
		scopes = []simulator.Scope{}
		for _, sc := range *req.Scopes {
			scopes = append(scopes, simulator.Scope(sc))
		}
	}
	t, err := s.svc.CreateTenant(scopes, req.WebhookURL, simulator.APIVersion(req.WebhookVersion), ttl)
	if err != nil {
		return err
	}
	setTenant(c, t)
	return writeJSON(c, http.StatusCreated, tenantCreated(t))
}

// tenantCreated is the 201 answer of POST /_sandbox/tenants.
func tenantCreated(t *simulator.Tenant) map[string]any {
	out := map[string]any{"tenantId": t.ID, "apiKey": t.APIKeys[0].Key, "signingSecret": t.SigningSecret,
		"webhookVersion": t.WebhookAPIVersion()}
	if !t.ExpiresAt.IsZero() {
		out["expiresAt"] = ts(t.ExpiresAt)
	}
	return out
}

func (s *Server) deleteTenant(c echo.Context) error {
	t := tenantOf(c)
	if err := s.svc.DeleteTenant(t); err != nil {
		return err
	}
	s.journal.Clear(t.ID)
	return writeJSON(c, http.StatusOK, map[string]string{"tenantId": t.ID, "status": "DELETED"})
}

// reset is POST /_sandbox/reset; its body is optional: none or {} (an
// unknown member is 422, as on every control route with a closed body).
func (s *Server) reset(c echo.Context) error {
	if _, err := decodeRequest(c, emptyRequest, "ResetRequest", nil, true); err != nil {
		return err
	}
	t := tenantOf(c)
	if err := s.svc.ResetTenant(t); err != nil {
		return err
	}
	s.journal.Clear(t.ID)
	return writeJSON(c, http.StatusOK, map[string]string{"tenantId": t.ID, "status": "RESET"})
}

func (s *Server) getClock(c echo.Context) error {
	t, err := s.svc.Tenant(tenantOf(c).ID)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]string{"now": ts(s.svc.Now(t))})
}

type advanceBody struct {
	Duration string `json:"duration"`
}

func (s *Server) advanceClock(c echo.Context) error {
	var req advanceBody
	if _, err := decodeRequest(c, clockAdvance, "ClockAdvanceRequest", &req, false); err != nil {
		return err
	}
	d, err := time.ParseDuration(req.Duration)
	if err != nil || d <= 0 {
		return simulator.ValidationError("ClockAdvanceRequest", simulator.FieldError{Path: "$.duration", Description: "duration must be a positive Go duration like 90s, 15m or 24h"})
	}
	now, fired, err := s.svc.AdvanceClockFired(c.Request().Context(), tenantOf(c), d)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, advanceDTO{Now: ts(now), Fired: toFiredDTOs(fired)})
}

func (s *Server) getAttempt(c echo.Context) error {
	if errs := uuidParam(c, "id"); len(errs) > 0 {
		return simulator.ValidationError("PaymentAttemptRequest", errs...)
	}
	a, err := s.svc.Attempt(tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toAttemptDTO(a))
}

func (s *Server) expireAttempt(c echo.Context) error {
	if _, err := decodeRequest(c, emptyRequest, "PaymentAttemptExpireRequest", nil, true, uuidParam(c, "id")...); err != nil {
		return err
	}
	a, err := s.svc.ExpireAttempt(tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, attemptStatusDTO{PaymentAttemptID: a.ID, Status: string(a.Status)})
}

// wait is GET /_sandbox/wait?paymentId=&status=&timeout=5s.
func (s *Server) wait(c echo.Context) error {
	var errs []simulator.FieldError
	id, status := c.QueryParam("paymentId"), simulator.PaymentStatus(c.QueryParam("status"))
	if id == "" {
		errs = append(errs, simulator.FieldError{Path: "$.paymentId", Description: "Field required"})
	}
	if !status.Valid() {
		errs = append(errs, simulator.FieldError{Path: "$.status", Description: "Value must be a payment status"})
	}
	timeout, errs := waitTimeout(c, errs)
	if len(errs) > 0 {
		return simulator.ValidationError("WaitQuery", errs...)
	}
	p, err := s.svc.WaitForStatus(c.Request().Context(), tenantOf(c), id, status, timeout)
	if err != nil {
		return err
	}
	return writePayment(c, http.StatusOK, p, p.APIVersion, true)
}

// sandboxPayment is GET /_sandbox/payments/{id} (`?expand=transactions.events`
// as on GET /payments/{id}): the payment in the version it was made with,
// as every answer about a payment without a version header of its own.
func (s *Server) sandboxPayment(c echo.Context) error {
	p, err := s.svc.Payment(tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return writePayment(c, http.StatusOK, p, p.APIVersion, expands(queryList(c, "expand")))
}

type disputeBody struct {
	Reason string `json:"reason"`
	Amount *int64 `json:"amount"`
}

func (s *Server) dispute(c echo.Context) error {
	var req disputeBody
	if _, err := decodeRequest(c, disputeRequest, "DisputeRequest", &req, true); err != nil {
		return err
	}
	d, err := s.svc.OpenDispute(c.Request().Context(), tenantOf(c), c.Param("id"), req.Reason, req.Amount)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]string{"disputeId": d.ID, "paymentId": d.PaymentID})
}

func (s *Server) settle(c echo.Context) error {
	if _, err := decodeRequest(c, emptyRequest, "SettleRequest", nil, true); err != nil {
		return err
	}
	p, err := s.svc.SettleNow(c.Request().Context(), tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return writePayment(c, http.StatusOK, p, p.APIVersion, true)
}

func (s *Server) complete3DS(c echo.Context) error {
	var req threeDSRequestBody
	if _, err := decodeRequest(c, threeDSRequest, "ThreeDSChallengeRequest", &req, false); err != nil {
		return err
	}
	p, err := s.svc.CompleteChallenge(c.Request().Context(), tenantOf(c), c.Param("id"), req.Result)
	if err != nil {
		return err
	}
	return writePayment(c, http.StatusOK, p, p.APIVersion, true)
}

// waitTimeout reads a long-poll's `timeout` query parameter (default 5s, at
// most 60s), adding a rule to errs when it is not such a duration.
func waitTimeout(c echo.Context, errs []simulator.FieldError) (time.Duration, []simulator.FieldError) {
	v := c.QueryParam("timeout")
	if v == "" {
		return 5 * time.Second, errs
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > 60*time.Second {
		errs = append(errs, simulator.FieldError{Path: "$.timeout", Description: "timeout must be a duration from 0s to 60s"})
	}
	return d, errs
}
