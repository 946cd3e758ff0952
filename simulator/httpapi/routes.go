package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	sim "github.com/paysandbox/paysandbox/simulator"
)

// routes is the one route table. Middleware is per route (never per group:
// echo's group middleware would answer 401 before 404 on unknown routes).
func (s *Server) routes() {
	merchant := func(scope sim.Scope) []echo.MiddlewareFunc {
		return []echo.MiddlewareFunc{s.auth(scope), version, readBody, s.timeout}
	}
	client := []echo.MiddlewareFunc{cors, readBody, s.timeout}
	control := []echo.MiddlewareFunc{s.auth(""), readBody}
	e := s.e

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)

	// Merchant API (X-API-KEY + X-API-VERSION: 2.4).
	e.POST("/client-session", s.createSession, merchant(sim.ScopeClientTokensWrite)...)
	e.GET("/client-session", s.getSession, merchant(sim.ScopeClientTokensWrite)...)
	e.PATCH("/client-session", s.updateSession, merchant(sim.ScopeClientTokensWrite)...)

	e.POST("/payments", s.createPayment, merchant(sim.ScopeTransactionsAuthorize)...)
	e.GET("/payments", s.listPayments, merchant(sim.ScopeTransactionsRetrieve)...)
	e.GET("/payments/:id", s.getPayment, merchant(sim.ScopeTransactionsRetrieve)...)
	e.POST("/payments/:id/authorize", s.authorizePayment, merchant(sim.ScopeTransactionsAuthorize)...)
	e.POST("/payments/:id/resume", s.resumePayment, merchant(sim.ScopeTransactionsAuthorize)...)
	e.POST("/payments/:id/capture", s.capturePayment, merchant(sim.ScopeTransactionsCapture)...)
	e.POST("/payments/:id/cancel", s.cancelPayment, merchant(sim.ScopeTransactionsCancel)...)
	e.POST("/payments/:id/refund", s.refundPayment, merchant(sim.ScopeTransactionsRefund)...)

	e.POST("/payment-attempts/:id/approve", s.approveAttempt, merchant(sim.ScopeTransactionsAuthorize)...)
	e.POST("/payment-attempts/:id/abort", s.abortAttempt, merchant(sim.ScopeTransactionsAuthorize)...)

	e.POST("/payment-instruments/:token/vault", s.vault, merchant(sim.ScopePaymentInstrumentWrite)...)
	e.GET("/payment-instruments", s.listInstruments, merchant(sim.ScopePaymentInstrumentRead)...)
	e.DELETE("/payment-instruments/:token", s.deleteInstrument, merchant(sim.ScopePaymentInstrumentWrite)...)
	e.POST("/payment-instruments/:token/default", s.setDefaultInstrument, merchant(sim.ScopePaymentInstrumentWrite)...)

	// Client side (X-Client-Token, CORS, no key, no version).
	e.POST("/client/payment-instruments", s.tokenize, client...)
	e.POST("/client/payments", s.clientCreatePayment, client...)
	e.POST("/client/payments/:id/resume", s.clientResume, client...)
	e.POST("/client/3ds/challenge", s.clientChallenge, client...)
	for _, p := range []string{"/client/payment-instruments", "/client/payments", "/client/payments/:id/resume", "/client/3ds/challenge"} {
		e.OPTIONS(p, preflight)
	}

	// Control plane (tenant's key, any scope, no version, no request timeout).
	e.POST("/_sandbox/tenants", s.createTenant, readBody)
	e.DELETE("/_sandbox/tenant", s.deleteTenant, control...)
	e.POST("/_sandbox/reset", s.reset, control...)
	e.GET("/_sandbox/clock", s.getClock, control...)
	e.POST("/_sandbox/clock/advance", s.advanceClock, control...)
	e.GET("/_sandbox/payment-attempts/:id", s.getAttempt, control...)
	e.POST("/_sandbox/payment-attempts/:id/expire", s.expireAttempt, control...)
	e.GET("/_sandbox/wait", s.wait, control...)
	e.POST("/_sandbox/payments/:id/dispute", s.dispute, control...)
	e.POST("/_sandbox/payments/:id/settle", s.settle, control...)
	e.POST("/_sandbox/payments/:id/3ds", s.complete3DS, control...)

	// Scenarios (scenarios.go).
	e.GET("/_sandbox/scenarios", s.getScenarios, control...)
	e.PUT("/_sandbox/scenarios", s.putScenarios, control...)
	e.DELETE("/_sandbox/scenarios", s.deleteScenarios, control...)
	e.POST("/_sandbox/scenarios/explain", s.explainScenarios, control...)
	e.GET("/_sandbox/scenarios/next", s.getNextScenario, control...)
	e.POST("/_sandbox/scenarios/next", s.postNextScenario, control...)
	e.DELETE("/_sandbox/scenarios/next", s.deleteNextScenario, control...)
	e.GET("/_sandbox/payments/:id/explain", s.explainPayment, control...)
	// Webhooks and disputes (webhooks.go).
	e.PUT("/_sandbox/webhooks/endpoint", s.putWebhookEndpoint, control...)
	e.GET("/_sandbox/webhooks/endpoint", s.getWebhookEndpoint, control...)
	e.POST("/_sandbox/webhooks/rotate-secret", s.rotateSecret, control...)
	e.GET("/_sandbox/webhooks/events", s.listWebhookEvents, control...)
	e.GET("/_sandbox/webhooks/events/:id", s.getWebhookEvent, control...)
	e.POST("/_sandbox/webhooks/events/:id/replay", s.replayWebhook, control...)
	e.POST("/_sandbox/webhooks/deliver", s.deliverWebhooks, control...)
	e.GET("/_sandbox/webhooks/wait", s.waitWebhook, control...)
	e.PUT("/_sandbox/webhooks/chaos", s.putWebhookChaos, control...)
	e.GET("/_sandbox/disputes", s.listDisputes, control...)
	e.POST("/_sandbox/disputes/:id/status", s.setDisputeStatus, control...)
	// QA toolkit: journal, hints, attempts list, tenant administration.
	e.GET("/_sandbox/requests", s.listRequests, control...)
	e.GET("/_sandbox/hints", s.listHints, control...)
	e.GET("/_sandbox/payment-attempts", s.listAttempts, control...)
	e.GET("/_sandbox/tenants", s.listTenants, readBody)
	e.DELETE("/_sandbox/tenants/:id", s.adminDeleteTenant, readBody)
}

func (s *Server) healthz(c echo.Context) error {
	return writeJSON(c, http.StatusOK, map[string]string{"status": "ok", "version": s.opt.Version})
}

func (s *Server) readyz(c echo.Context) error {
	if s.opt.Ready != nil {
		if err := s.opt.Ready(); err != nil {
			return writeJSON(c, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": err.Error()})
		}
	}
	return writeJSON(c, http.StatusOK, map[string]string{"status": "ready"})
}
