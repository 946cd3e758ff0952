package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	sim "github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// routes is the one route table. Middleware is per route (never per group:
// echo's group middleware would answer 401 before 404 on unknown routes).
// chain composes a route's middleware around its handler once, when the
// route is registered: echo's route-level middleware is composed anew on
// every request (a closure per middleware per request).
func chain(h echo.HandlerFunc, mws ...echo.MiddlewareFunc) echo.HandlerFunc {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

func (s *Server) routes() {
	merchant := func(scope sim.Scope) []echo.MiddlewareFunc {
		return []echo.MiddlewareFunc{s.auth(scope), version, readBody, s.timeout}
	}
	client := []echo.MiddlewareFunc{cors, readBody, s.timeout}
	control := []echo.MiddlewareFunc{s.auth(""), readBody}
	e := s.e

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)

	// Merchant API (X-API-KEY + X-API-VERSION: 2.1-2.4, simulator.APIVersions).
	e.POST("/client-session", chain(s.createSession, merchant(sim.ScopeClientTokensWrite)...))
	e.GET("/client-session", chain(s.getSession, merchant(sim.ScopeClientTokensWrite)...))
	e.PATCH("/client-session", chain(s.updateSession, merchant(sim.ScopeClientTokensWrite)...))

	e.POST("/payments", chain(s.createPayment, merchant(sim.ScopeTransactionsAuthorize)...))
	e.GET("/payments", chain(s.listPayments, merchant(sim.ScopeTransactionsRetrieve)...))
	e.GET("/payments/:id", chain(s.getPayment, merchant(sim.ScopeTransactionsRetrieve)...))
	e.POST("/payments/:id/authorize", chain(s.authorizePayment, merchant(sim.ScopeTransactionsAuthorize)...))
	e.POST("/payments/:id/resume", chain(s.resumePayment, merchant(sim.ScopeTransactionsAuthorize)...))
	e.POST("/payments/:id/capture", chain(s.capturePayment, merchant(sim.ScopeTransactionsCapture)...))
	e.POST("/payments/:id/cancel", chain(s.cancelPayment, merchant(sim.ScopeTransactionsCancel)...))
	e.POST("/payments/:id/refund", chain(s.refundPayment, merchant(sim.ScopeTransactionsRefund)...))

	e.POST("/payment-attempts/:id/approve", chain(s.approveAttempt, merchant(sim.ScopeTransactionsAuthorize)...))
	e.POST("/payment-attempts/:id/abort", chain(s.abortAttempt, merchant(sim.ScopeTransactionsAuthorize)...))

	e.POST("/payment-instruments/:token/vault", chain(s.vault, merchant(sim.ScopePaymentInstrumentWrite)...))
	e.GET("/payment-instruments", chain(s.listInstruments, merchant(sim.ScopePaymentInstrumentRead)...))
	e.DELETE("/payment-instruments/:token", chain(s.deleteInstrument, merchant(sim.ScopePaymentInstrumentWrite)...))
	e.POST("/payment-instruments/:token/default", chain(s.setDefaultInstrument, merchant(sim.ScopePaymentInstrumentWrite)...))

	// Client side (X-Client-Token, CORS, no key, no version).
	e.POST("/client/payment-instruments", chain(s.tokenize, client...))
	e.POST("/client/payments", chain(s.clientCreatePayment, client...))
	e.POST("/client/payments/:id/resume", chain(s.clientResume, client...))
	e.POST("/client/3ds/challenge", chain(s.clientChallenge, client...))
	for _, p := range []string{"/client/payment-instruments", "/client/payments", "/client/payments/:id/resume", "/client/3ds/challenge"} {
		e.OPTIONS(p, preflight)
	}

	// Control plane (tenant's key, any scope, no version, no request timeout;
	// what reveals or changes credentials or destroys data: a key with every
	// scope, or the admin key, authEveryScope).
	e.POST("/_sandbox/tenants", chain(s.createTenant, readBodyUpTo(s.snapshotMax(), func() *sim.Error { return snapshot.ErrTooLarge(s.snapshotMax()) })))
	e.GET("/_sandbox/snapshot", chain(s.getSnapshot, s.authEveryScope("Exporting the tenant's keys and signing secret", withSecrets), readBody))
	e.DELETE("/_sandbox/tenant", chain(s.deleteTenant, s.authEveryScope("Deleting the tenant", nil), readBody))
	e.POST("/_sandbox/reset", chain(s.reset, s.authEveryScope("Resetting the tenant", nil), readBody))
	e.GET("/_sandbox/clock", chain(s.getClock, control...))
	e.POST("/_sandbox/clock/advance", chain(s.advanceClock, control...))
	e.GET("/_sandbox/payment-attempts/:id", chain(s.getAttempt, control...))
	e.POST("/_sandbox/payment-attempts/:id/expire", chain(s.expireAttempt, control...))
	e.GET("/_sandbox/wait", chain(s.wait, control...))
	e.GET("/_sandbox/payments/:id", chain(s.sandboxPayment, control...))
	e.POST("/_sandbox/payments/:id/dispute", chain(s.dispute, control...))
	e.POST("/_sandbox/payments/:id/settle", chain(s.settle, control...))
	e.POST("/_sandbox/payments/:id/3ds", chain(s.complete3DS, control...))

	// Scenarios (scenarios.go).
	e.GET("/_sandbox/scenarios", chain(s.getScenarios, control...))
	e.PUT("/_sandbox/scenarios", chain(s.putScenarios, control...))
	e.DELETE("/_sandbox/scenarios", chain(s.deleteScenarios, control...))
	e.POST("/_sandbox/scenarios/explain", chain(s.explainScenarios, control...))
	e.GET("/_sandbox/scenarios/next", chain(s.getNextScenario, control...))
	e.POST("/_sandbox/scenarios/next", chain(s.postNextScenario, control...))
	e.DELETE("/_sandbox/scenarios/next", chain(s.deleteNextScenario, control...))
	e.GET("/_sandbox/payments/:id/explain", chain(s.explainPayment, control...))
	// Webhooks and disputes (webhooks.go).
	e.PUT("/_sandbox/webhooks/endpoint", chain(s.putWebhookEndpoint, control...))
	e.GET("/_sandbox/webhooks/endpoint", chain(s.getWebhookEndpoint, control...))
	e.POST("/_sandbox/webhooks/rotate-secret", chain(s.rotateSecret, s.authEveryScope("Rotating the signing secret", nil), readBody))
	e.GET("/_sandbox/webhooks/events", chain(s.listWebhookEvents, control...))
	e.GET("/_sandbox/webhooks/events/:id", chain(s.getWebhookEvent, control...))
	e.GET("/_sandbox/webhooks/events/:id/body", chain(s.getWebhookEventBody, control...))
	e.POST("/_sandbox/webhooks/events/:id/replay", chain(s.replayWebhook, control...))
	e.POST("/_sandbox/webhooks/deliver", chain(s.deliverWebhooks, control...))
	e.GET("/_sandbox/webhooks/wait", chain(s.waitWebhook, control...))
	e.PUT("/_sandbox/webhooks/chaos", chain(s.putWebhookChaos, control...))
	e.GET("/_sandbox/disputes", chain(s.listDisputes, control...))
	e.POST("/_sandbox/disputes/:id/status", chain(s.setDisputeStatus, control...))
	// QA toolkit: journal, hints, attempts list, tenant administration.
	e.GET("/_sandbox/requests", chain(s.listRequests, control...))
	e.GET("/_sandbox/hints", chain(s.listHints, control...))
	e.GET("/_sandbox/migration", chain(s.migrationNotes, control...))
	e.GET("/_sandbox/report", chain(s.report, control...))
	e.GET("/_sandbox/payment-attempts", chain(s.listAttempts, control...))
	e.GET("/_sandbox/tenants", chain(s.listTenants, readBody))
	// Version notes (no key: the Link of an older version's answer names it).
	e.GET(VersionNotesPath, s.versionNotes)
	// The OpenAPI document (no key; ?version= picks the API version).
	e.GET(OpenAPIPath+".json", s.openAPIHandler(OpenAPIJSON))
	e.GET(OpenAPIPath+".yaml", s.openAPIHandler(OpenAPIYAML))
	e.DELETE("/_sandbox/tenants/:id", chain(s.adminDeleteTenant, readBody))
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
