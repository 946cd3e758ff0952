package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	sim "github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// chain composes a route's middleware around its handler once, when the
// route is registered: echo's route-level middleware is composed anew on
// every request (a closure per middleware per request). Middleware is per
// route, never per group: echo's group middleware would answer 401 before
// 404 on unknown routes.
func chain(h echo.HandlerFunc, mws ...echo.MiddlewareFunc) echo.HandlerFunc {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// binding is the handler of one operation and, where its auth kind's
// middleware does not fit, the operation's own.
type binding struct {
	h   echo.HandlerFunc
	own bool                  // mw, not middlewareOf(op)
	mw  []echo.MiddlewareFunc // when own
}

// bindings binds a handler to each operation of simulator.Operations (the
// one table of methods, paths, scopes and idempotency); TestOperationBindings
// fails when an operation has no handler or a handler no operation.
func (s *Server) bindings() map[sim.OperationID]binding {
	own := func(h echo.HandlerFunc, mw ...echo.MiddlewareFunc) binding { return binding{h: h, own: true, mw: mw} }
	return map[sim.OperationID]binding{
		sim.OpHealth: own(s.healthz),
		sim.OpReady:  own(s.readyz),

		// Merchant API (X-API-KEY + X-API-VERSION: 2.1-2.4, simulator.APIVersions).
		sim.OpCreateSession: {h: s.createSession},
		sim.OpGetSession:    {h: s.getSession},
		sim.OpUpdateSession: {h: s.updateSession},

		sim.OpCreatePayment:    {h: s.createPayment},
		sim.OpListPayments:     {h: s.listPayments},
		sim.OpGetPayment:       {h: s.getPayment},
		sim.OpAuthorizePayment: {h: s.authorizePayment},
		sim.OpResumePayment:    {h: s.resumePayment},
		sim.OpCapturePayment:   {h: s.capturePayment},
		sim.OpCancelPayment:    {h: s.cancelPayment},
		sim.OpRefundPayment:    {h: s.refundPayment},

		sim.OpApproveAttempt: {h: s.approveAttempt},
		sim.OpAbortAttempt:   {h: s.abortAttempt},

		sim.OpVaultInstrument:      {h: s.vault},
		sim.OpListInstruments:      {h: s.listInstruments},
		sim.OpDeleteInstrument:     {h: s.deleteInstrument},
		sim.OpSetDefaultInstrument: {h: s.setDefaultInstrument},

		// Client side (X-Client-Token, CORS, no key, no version).
		sim.OpClientTokenize:           {h: s.tokenize},
		sim.OpClientCreatePayment:      {h: s.clientCreatePayment},
		sim.OpClientResumePayment:      {h: s.clientResume},
		sim.OpClientChallenge:          {h: s.clientChallenge},
		sim.OpClientTokenizePreflight:  own(preflight),
		sim.OpClientPaymentsPreflight:  own(preflight),
		sim.OpClientResumePreflight:    own(preflight),
		sim.OpClientChallengePreflight: own(preflight),

		// Control plane (tenant's key, any scope, no version, no request
		// timeout; what reveals or changes credentials or destroys data: a
		// key with every scope, or the admin key, authEveryScope).
		sim.OpCreateTenant:   own(s.createTenant, readBodyUpTo(s.snapshotMax(), func() *sim.Error { return snapshot.ErrTooLarge(s.snapshotMax()) })),
		sim.OpGetSnapshot:    own(s.getSnapshot, s.authEveryScope("Exporting the tenant's keys and signing secret", withSecrets), readBody),
		sim.OpDeleteTenant:   own(s.deleteTenant, s.authEveryScope("Deleting the tenant", nil), readBody),
		sim.OpReset:          own(s.reset, s.authEveryScope("Resetting the tenant", nil), readBody),
		sim.OpGetClock:       {h: s.getClock},
		sim.OpAdvanceClock:   {h: s.advanceClock},
		sim.OpGetAttempt:     {h: s.getAttempt},
		sim.OpExpireAttempt:  {h: s.expireAttempt},
		sim.OpWait:           {h: s.wait},
		sim.OpSandboxPayment: {h: s.sandboxPayment},
		sim.OpDispute:        {h: s.dispute},
		sim.OpSettle:         {h: s.settle},
		sim.OpComplete3DS:    {h: s.complete3DS},

		// Scenarios (scenarios.go).
		sim.OpGetScenarios:       {h: s.getScenarios},
		sim.OpPutScenarios:       {h: s.putScenarios},
		sim.OpDeleteScenarios:    {h: s.deleteScenarios},
		sim.OpExplainScenarios:   {h: s.explainScenarios},
		sim.OpGetNextScenario:    {h: s.getNextScenario},
		sim.OpPostNextScenario:   {h: s.postNextScenario},
		sim.OpDeleteNextScenario: {h: s.deleteNextScenario},
		sim.OpExplainPayment:     {h: s.explainPayment},
		// Webhooks and disputes (webhooks.go).
		sim.OpPutWebhookEndpoint:  {h: s.putWebhookEndpoint},
		sim.OpGetWebhookEndpoint:  {h: s.getWebhookEndpoint},
		sim.OpRotateSecret:        own(s.rotateSecret, s.authEveryScope("Rotating the signing secret", nil), readBody),
		sim.OpListWebhookEvents:   {h: s.listWebhookEvents},
		sim.OpGetWebhookEvent:     {h: s.getWebhookEvent},
		sim.OpGetWebhookEventBody: {h: s.getWebhookEventBody},
		sim.OpReplayWebhook:       {h: s.replayWebhook},
		sim.OpDeliverWebhooks:     {h: s.deliverWebhooks},
		sim.OpWaitWebhook:         {h: s.waitWebhook},
		sim.OpPutWebhookChaos:     {h: s.putWebhookChaos},
		sim.OpListDisputes:        {h: s.listDisputes},
		sim.OpSetDisputeStatus:    {h: s.setDisputeStatus},
		// QA toolkit: journal, hints, attempts list, tenant administration
		// (the admin routes check X-Admin-Key themselves).
		sim.OpListRequests:      {h: s.listRequests},
		sim.OpListHints:         {h: s.listHints},
		sim.OpMigrationNotes:    {h: s.migrationNotes},
		sim.OpReport:            {h: s.report},
		sim.OpListAttempts:      {h: s.listAttempts},
		sim.OpListTenants:       own(s.listTenants, readBody),
		sim.OpAdminDeleteTenant: own(s.adminDeleteTenant, readBody),
		sim.OpAcceptLoss:        own(s.acceptLoss, readBody),
		// Version notes (no key: the Link of an older version's answer names it).
		sim.OpVersionNotes: own(s.versionNotes),
		// The OpenAPI document (no key; ?version= picks the API version).
		sim.OpOpenAPIJSON: own(s.openAPIHandler(OpenAPIJSON)),
		sim.OpOpenAPIYAML: own(s.openAPIHandler(OpenAPIYAML)),
	}
}

// middlewareOf is the middleware of op's auth kind.
func (s *Server) middlewareOf(op sim.Operation) []echo.MiddlewareFunc {
	switch op.Auth {
	case sim.AuthMerchant:
		return []echo.MiddlewareFunc{s.auth(op.Scope), version(op), readBody, s.timeout}
	case sim.AuthClient:
		return []echo.MiddlewareFunc{cors, readBody, s.timeout}
	case sim.AuthControl:
		return []echo.MiddlewareFunc{s.auth(""), readBody}
	}
	panic("httpapi: operation " + string(op.ID) + " needs its own middleware")
}

// routes registers every operation with its handler.
func (s *Server) routes() {
	b := s.bindings()
	for _, op := range sim.Operations {
		bd, ok := b[op.ID]
		if !ok {
			panic("httpapi: operation " + string(op.ID) + " has no handler")
		}
		mw := bd.mw
		if !bd.own {
			mw = s.middlewareOf(op)
		}
		s.e.Add(op.Method, op.Path, chain(bd.h, mw...))
	}
}

// merchantPaths are the paths of the AuthMerchant operations, and
// idempotentRoutes the "METHOD path" of the Idempotent ones.
var merchantPaths, idempotentRoutes = func() (map[string]bool, map[string]bool) {
	m, idem := map[string]bool{}, map[string]bool{}
	for _, op := range sim.Operations {
		if op.Auth == sim.AuthMerchant {
			m[op.Path] = true
		}
		if op.Idempotent {
			idem[op.Method+" "+op.Path] = true
		}
	}
	return m, idem
}()

// merchantPath reports whether path (as registered) is a merchant-API
// operation's.
func merchantPath(path string) bool { return merchantPaths[path] }

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
