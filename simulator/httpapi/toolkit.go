package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// listAttempts is GET /_sandbox/payment-attempts?status=: the tenant's
// attempts, newest first.
func (s *Server) listAttempts(c echo.Context) error {
	st := simulator.AttemptStatus(c.QueryParam("status"))
	switch st {
	case "", simulator.AttemptAwaiting, simulator.AttemptApproved, simulator.AttemptAborted, simulator.AttemptExpired:
	default:
		return simulator.ValidationError("PaymentAttemptListQuery", simulator.FieldError{Path: "$.status",
			Description: "status must be AWAITING_APPROVAL, APPROVED, ABORTED or EXPIRED"})
	}
	list, unreadable, err := s.svc.AttemptsAndUnreadable(tenantOf(c), st)
	if err != nil {
		return err
	}
	warnUnreadable(c, unreadable)
	out := make([]attemptDTO, 0, len(list))
	for _, a := range list {
		out = append(out, toAttemptDTO(a))
	}
	return writeJSON(c, http.StatusOK, map[string]any{"data": out})
}

// checkAdmin enforces the admin key of tenant administration: X-Admin-Key
// must carry admin_key (401 otherwise). Without an admin key the routes are
// off (401 too): a tenant's API key must never reach other tenants.
func (s *Server) checkAdmin(c echo.Context) error {
	if s.opt.AdminKey == "" {
		return simulator.Errorf(simulator.CodeUnauthorized, "Tenant administration is off: this sandbox has no admin key").
			WithRecovery("Start the sandbox with --admin-key (PAYSANDBOX_ADMIN_KEY) and send it in the X-Admin-Key header.")
	}
	if !s.adminKeyOK(c) {
		return simulator.Errorf(simulator.CodeUnauthorized, "A valid X-Admin-Key is required for tenant administration").
			WithRecovery("Send the sandbox's admin key in the X-Admin-Key header.")
	}
	return nil
}

type tenantSummaryDTO struct {
	TenantID   string `json:"tenantId"`
	CreatedAt  string `json:"createdAt"`
	ExpiresAt  string `json:"expiresAt,omitempty"`
	WebhookURL string `json:"webhookUrl,omitempty"`
	APIKeys    int    `json:"apiKeys"`
	FromConfig bool   `json:"fromConfig"`
	// WebhookVersion shapes the tenant's webhook bodies.
	WebhookVersion simulator.APIVersion `json:"webhookVersion"`
}

// listTenants is GET /_sandbox/tenants (admin): every tenant, oldest first,
// without keys or secrets.
func (s *Server) listTenants(c echo.Context) error {
	if err := s.checkAdmin(c); err != nil {
		return err
	}
	list, err := s.svc.Tenants()
	if err != nil {
		return err
	}
	out := make([]tenantSummaryDTO, 0, len(list))
	for _, t := range list {
		d := tenantSummaryDTO{TenantID: t.ID, CreatedAt: ts(t.CreatedAt), WebhookURL: t.WebhookURL, APIKeys: len(t.APIKeys), FromConfig: t.FromConfig,
			WebhookVersion: t.WebhookAPIVersion()}
		if !t.ExpiresAt.IsZero() {
			d.ExpiresAt = ts(t.ExpiresAt)
		}
		out = append(out, d)
	}
	return writeJSON(c, http.StatusOK, map[string]any{"data": out})
}

// acceptLoss is POST /_sandbox/tenants/{id}/accept-loss (admin): a tenant
// whose file is missing or ends before its last fsynced commit opens with
// what its file has; lost is what was accepted (absent: nothing was lost).
func (s *Server) acceptLoss(c echo.Context) error {
	if err := s.checkAdmin(c); err != nil {
		return err
	}
	id := c.Param("id")
	lost, err := s.svc.AcceptLoss(id)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, acceptLossDTO{TenantID: id, Lost: lost})
}

// acceptLossDTO answers POST /_sandbox/tenants/{id}/accept-loss.
type acceptLossDTO struct {
	TenantID string `json:"tenantId"`
	// Lost is the loss accepted ("its file is missing", ...); absent when
	// the file had lost nothing.
	Lost string `json:"lost,omitempty"`
}

// adminDeleteTenant is DELETE /_sandbox/tenants/{id} (admin): the tenant and
// all its data are gone (a config tenant comes back, empty, at the next start).
func (s *Server) adminDeleteTenant(c echo.Context) error {
	if err := s.checkAdmin(c); err != nil {
		return err
	}
	t, err := s.svc.DeleteTenantByID(c.Param("id"))
	if err != nil {
		return err
	}
	s.journal.Clear(t.ID)
	return writeJSON(c, http.StatusOK, map[string]string{"tenantId": t.ID, "status": "DELETED"})
}
