package httpapi

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// authKind is who may call a route, and how.
type authKind int

const (
	authNone     authKind = iota // no key
	authMerchant                 // X-API-KEY with the route's scope, X-API-VERSION
	authClient                   // X-Client-Token
	authControl                  // X-API-KEY, any scope, no version
	authFullKey                  // X-API-KEY with every scope, or any with X-Admin-Key (authEveryScope)
	authAdmin                    // X-Admin-Key
	authAdminIf                  // X-Admin-Key when the sandbox has one
)

// apiOp documents one route of routes.go in the OpenAPI document. A test
// fails when a route is served but has no apiOp, and the other way round.
type apiOp struct {
	method, path string // as routes.go registers it (echo's :name)
	tag          string
	summary      string
	auth         authKind
	scope        simulator.Scope
	// req is the request body's schema (the validator's table) and model its
	// name; optional: no body or {} is fine.
	req      *schema
	model    string
	optional bool
	// rawBody is a body that is not JSON the validator checks (a YAML
	// document, a request the handler reads itself); a text media type's
	// schema is a string.
	rawBody string
	query   []string
	// answer is a value of the success answer's DTO type, a *mapAnswer or
	// an *openapi3.Schema: its application/json body; nil: no JSON body.
	answer any
	status int // 200 when 0
	// text are the media types the success answer also comes in as a
	// document of its own (YAML, XML, markdown, HTML): a string each.
	text []string
	// codes are the errors of the route beyond those of its auth kind.
	codes []simulator.Code
	// idempotent: X-Idempotency-Key applies (409 on reuse, 400 below 2.3).
	idempotent bool
	// gate is the difference whose versions do not serve the route.
	gate string
	// also are answers beyond the success and the error envelope, by status.
	also map[int]any
	// dashboard: the route is the dashboard's (package dashboard, in front
	// of this server), not routes.go's.
	dashboard bool
}

// merchantPath reports whether path (as routes.go registers it) is a
// merchant-API route's.
func merchantPath(path string) bool {
	for _, op := range apiOps {
		if op.auth == authMerchant && op.path == path {
			return true
		}
	}
	return false
}

// Answers written as maps, described once here.
var (
	tenantStatusAnswer = props(strP("tenantId"), strP("status"))
	countsAnswer       = props(intP("delivered"), intP("failed"))
	rulesAnswer        = props(intP("rules"))
	textHTML           = []string{"text/html"}
	textYAML           = []string{"application/yaml"}
)

var paymentCodes = []simulator.Code{simulator.CodePaymentError, simulator.CodeInvalidPaymentStatus}

// apiOps is the document's table of routes, in routes.go's order.
var apiOps = []apiOp{
	{method: http.MethodGet, path: "/healthz", tag: "Health", summary: "The process is up", answer: props(strP("status"), strP("version"))},
	{method: http.MethodGet, path: "/readyz", tag: "Health", summary: "The store is open (503 when not)", answer: props(strP("status")),
		also: map[int]any{http.StatusServiceUnavailable: props(strP("status"), strP("error"))}},

	{method: http.MethodPost, path: "/client-session", tag: "Client Session API", summary: "Create a client session", auth: authMerchant, scope: simulator.ScopeClientTokensWrite,
		req: clientSessionCreate, model: "ClientSessionAPIRequest", optional: true, answer: sessionDTO{}, codes: []simulator.Code{simulator.CodeMetadataContainsEmptyKey}},
	{method: http.MethodGet, path: "/client-session", tag: "Client Session API", summary: "Retrieve a client session", auth: authMerchant, scope: simulator.ScopeClientTokensWrite,
		query: []string{"clientToken"}, answer: sessionDTO{}, codes: []simulator.Code{simulator.CodeClientSessionValidationError}},
	{method: http.MethodPatch, path: "/client-session", tag: "Client Session API", summary: "Update a client session (approvalMode is refused: 422)", auth: authMerchant, scope: simulator.ScopeClientTokensWrite,
		req: clientSessionUpdate, model: "ClientSessionUpdateAPIRequest", answer: sessionDTO{}, codes: []simulator.Code{simulator.CodeClientSessionValidationError, simulator.CodeMetadataContainsEmptyKey}},

	{method: http.MethodPost, path: "/payments", tag: "Payments API", summary: "Create a payment", auth: authMerchant, scope: simulator.ScopeTransactionsAuthorize,
		req: paymentCreate, model: "PaymentCreationAPIRequest", answer: paymentDTO{}, idempotent: true,
		codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken, simulator.CodeClientSessionValidationError, simulator.CodeMetadataContainsEmptyKey, simulator.CodePaymentError}},
	{method: http.MethodGet, path: "/payments", tag: "Payments API", summary: "Search payments (filters and cursor)", auth: authMerchant, scope: simulator.ScopeTransactionsRetrieve,
		query: paymentListParams, answer: paymentListDTO{}},
	{method: http.MethodGet, path: "/payments/:id", tag: "Payments API", summary: "Get a payment", auth: authMerchant, scope: simulator.ScopeTransactionsRetrieve,
		query: []string{"expand"}, answer: paymentDTO{}, codes: []simulator.Code{simulator.CodePaymentError}},
	{method: http.MethodPost, path: "/payments/:id/authorize", tag: "Payments API", summary: "Authorize a payment", auth: authMerchant, scope: simulator.ScopeTransactionsAuthorize,
		req: paymentAuthorize, model: "PaymentAuthorizationAPIRequest", answer: paymentDTO{}, idempotent: true,
		codes: []simulator.Code{simulator.CodePaymentNotFoundError, simulator.CodePaymentAlreadyAuthorized, simulator.CodeInvalidPaymentStatus, simulator.CodeMerchantAccountNotFound, simulator.CodeMerchantAccountConflict}},
	{method: http.MethodPost, path: "/payments/:id/resume", tag: "Payments API", summary: "Resume a payment after a required action", auth: authMerchant, scope: simulator.ScopeTransactionsAuthorize,
		req: paymentResume, model: "PaymentResumeAPIRequest", answer: paymentDTO{}, idempotent: true, codes: paymentCodes},
	{method: http.MethodPost, path: "/payments/:id/capture", tag: "Payments API", summary: "Capture a payment", auth: authMerchant, scope: simulator.ScopeTransactionsCapture,
		req: paymentCapture, model: "PaymentCaptureAPIRequest", optional: true, answer: paymentDTO{}, idempotent: true, codes: paymentCodes},
	{method: http.MethodPost, path: "/payments/:id/cancel", tag: "Payments API", summary: "Cancel a payment", auth: authMerchant, scope: simulator.ScopeTransactionsCancel,
		req: paymentCancel, model: "PaymentCancelAPIRequest", optional: true, answer: paymentDTO{}, idempotent: true, codes: paymentCodes},
	{method: http.MethodPost, path: "/payments/:id/refund", tag: "Payments API", summary: "Refund a payment", auth: authMerchant, scope: simulator.ScopeTransactionsRefund,
		req: paymentRefund, model: "PaymentRefundAPIRequest", optional: true, answer: paymentDTO{}, idempotent: true,
		codes: append([]simulator.Code{simulator.CodePaymentAlreadyRefunded, simulator.CodeUnprocessableRefundAmount}, paymentCodes...)},

	{method: http.MethodPost, path: "/payment-attempts/:id/approve", tag: "Payment Attempts API", summary: "Approve a payment attempt of a MANUAL session", auth: authMerchant, scope: simulator.ScopeTransactionsAuthorize,
		req: emptyRequest, model: "PaymentAttemptApproveRequest", optional: true, answer: approveDTO{}, gate: simulator.DiffAttemptRoutes,
		codes: []simulator.Code{simulator.CodePaymentAttemptNotFound, simulator.CodeClientSessionNotManual, simulator.CodeIdempotencyKeyAlreadyExists, simulator.CodePaymentAttemptExpired, simulator.CodeInvalidPaymentAttemptTransition}},
	{method: http.MethodPost, path: "/payment-attempts/:id/abort", tag: "Payment Attempts API", summary: "Abort a payment attempt", auth: authMerchant, scope: simulator.ScopeTransactionsAuthorize,
		req: emptyRequest, model: "PaymentAttemptAbortRequest", optional: true, answer: attemptStatusDTO{}, gate: simulator.DiffAttemptRoutes,
		codes: []simulator.Code{simulator.CodePaymentAttemptNotFound, simulator.CodePaymentAttemptExpired, simulator.CodeInvalidPaymentAttemptTransition}},

	{method: http.MethodPost, path: "/payment-instruments/:token/vault", tag: "Payment Methods API", summary: "Vault a payment instrument", auth: authMerchant, scope: simulator.ScopePaymentInstrumentWrite,
		req: vaultRequest, model: "VaultPaymentInstrumentAPIRequest", answer: instrumentDTO{}, codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken, simulator.CodeFailedVerification}},
	{method: http.MethodGet, path: "/payment-instruments", tag: "Payment Methods API", summary: "List a customer's saved payment instruments", auth: authMerchant, scope: simulator.ScopePaymentInstrumentRead,
		query: []string{"customer_id"}, answer: listOf(instrumentDTO{})},
	{method: http.MethodDelete, path: "/payment-instruments/:token", tag: "Payment Methods API", summary: "Delete a saved payment instrument", auth: authMerchant, scope: simulator.ScopePaymentInstrumentWrite,
		answer: instrumentDTO{}, codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken}},
	{method: http.MethodPost, path: "/payment-instruments/:token/default", tag: "Payment Methods API", summary: "Make a saved payment instrument the customer's default", auth: authMerchant, scope: simulator.ScopePaymentInstrumentWrite,
		req: emptyRequest, model: "SetDefaultPaymentMethodRequest", optional: true, answer: instrumentDTO{}, codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken}},

	{method: http.MethodPost, path: "/client/payment-instruments", tag: "Client API", summary: "Tokenise a card (what the client SDK does)", auth: authClient,
		req: tokenizeRequest, model: "PaymentInstrumentTokenizationRequest", answer: tokenizeDTO{}},
	{method: http.MethodPost, path: "/client/payments", tag: "Client API", summary: "Pay with a token from the client (AUTO sessions)", auth: authClient,
		req: clientPaymentCreate, model: "ClientPaymentCreationRequest", answer: paymentDTO{}, codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken, simulator.CodePaymentError}},
	{method: http.MethodPost, path: "/client/payments/:id/resume", tag: "Client API", summary: "Resume a payment from the client", auth: authClient,
		req: paymentResume, model: "PaymentResumeAPIRequest", answer: paymentDTO{}, codes: paymentCodes},
	{method: http.MethodPost, path: "/client/3ds/challenge", tag: "Client API", summary: "Complete a 3DS challenge as the shopper (requiredAction.clientToken)", auth: authClient,
		req: threeDSRequest, model: "ThreeDSChallengeRequest", answer: props(strP("resumeToken"))},
	{method: http.MethodOptions, path: "/client/payment-instruments", tag: "Client API", summary: "CORS preflight", status: http.StatusNoContent},
	{method: http.MethodOptions, path: "/client/payments", tag: "Client API", summary: "CORS preflight", status: http.StatusNoContent},
	{method: http.MethodOptions, path: "/client/payments/:id/resume", tag: "Client API", summary: "CORS preflight", status: http.StatusNoContent},
	{method: http.MethodOptions, path: "/client/3ds/challenge", tag: "Client API", summary: "CORS preflight", status: http.StatusNoContent},

	{method: http.MethodPost, path: "/_sandbox/tenants", tag: "Sandbox", summary: "Create a tenant", auth: authAdminIf,
		req: tenantCreate, model: "TenantCreateRequest", optional: true, status: http.StatusCreated,
		answer: props(strP("tenantId"), strP("apiKey"), strP("signingSecret"), enumP("webhookVersion", simulator.APIVersionNames()), optP(strP("expiresAt")))},
	{method: http.MethodDelete, path: "/_sandbox/tenant", tag: "Sandbox", summary: "Delete the calling tenant", auth: authFullKey, answer: tenantStatusAnswer},
	{method: http.MethodPost, path: "/_sandbox/reset", tag: "Sandbox", summary: "Delete the tenant's data (its settings stay)", auth: authFullKey,
		req: emptyRequest, model: "ResetRequest", optional: true, answer: tenantStatusAnswer},
	{method: http.MethodGet, path: "/_sandbox/clock", tag: "Sandbox", summary: "The tenant's clock", auth: authControl, answer: props(strP("now"))},
	{method: http.MethodPost, path: "/_sandbox/clock/advance", tag: "Sandbox", summary: "Advance the tenant's clock and run what falls due", auth: authControl,
		req: clockAdvance, model: "ClockAdvanceRequest", answer: advanceDTO{}},
	{method: http.MethodGet, path: "/_sandbox/payment-attempts/:id", tag: "Sandbox", summary: "Read a payment attempt", auth: authControl, answer: attemptDTO{},
		codes: []simulator.Code{simulator.CodePaymentAttemptNotFound}},
	{method: http.MethodPost, path: "/_sandbox/payment-attempts/:id/expire", tag: "Sandbox", summary: "Expire a payment attempt now", auth: authControl,
		req: emptyRequest, model: "PaymentAttemptExpireRequest", optional: true, answer: attemptStatusDTO{},
		codes: []simulator.Code{simulator.CodePaymentAttemptNotFound, simulator.CodeInvalidPaymentAttemptTransition}},
	{method: http.MethodGet, path: "/_sandbox/wait", tag: "Sandbox", summary: "Wait for a payment to reach a status", auth: authControl,
		query: []string{"paymentId", "status", "timeout"}, answer: paymentDTO{}, codes: []simulator.Code{simulator.CodeWaitTimeout, simulator.CodePaymentError}},
	{method: http.MethodPost, path: "/_sandbox/payments/:id/dispute", tag: "Sandbox", summary: "Open a dispute (sends DISPUTE.OPENED)", auth: authControl,
		req: disputeRequest, model: "DisputeRequest", optional: true, answer: props(strP("disputeId"), strP("paymentId")), codes: paymentCodes},
	{method: http.MethodPost, path: "/_sandbox/payments/:id/settle", tag: "Sandbox", summary: "Settle a SETTLING payment now", auth: authControl,
		req: emptyRequest, model: "SettleRequest", optional: true, answer: paymentDTO{}, codes: paymentCodes},
	{method: http.MethodPost, path: "/_sandbox/payments/:id/3ds", tag: "Sandbox", summary: "Complete a payment's 3DS challenge and resume it", auth: authControl,
		req: threeDSRequest, model: "ThreeDSChallengeRequest", answer: paymentDTO{}, codes: paymentCodes},

	{method: http.MethodGet, path: "/_sandbox/scenarios", tag: "Sandbox", summary: "The scenario rules in force (YAML; JSON with Accept: application/json)", auth: authControl,
		answer: scenarioDocumentSchema(), text: textYAML},
	{method: http.MethodPut, path: "/_sandbox/scenarios", tag: "Sandbox", summary: "Replace the tenant's scenario rules", auth: authControl,
		rawBody: "application/yaml", answer: rulesAnswer, codes: []simulator.Code{simulator.CodeScenarioValidationError}},
	{method: http.MethodDelete, path: "/_sandbox/scenarios", tag: "Sandbox", summary: "Back to the scenario file's rules", auth: authControl, answer: rulesAnswer},
	{method: http.MethodPost, path: "/_sandbox/scenarios/explain", tag: "Sandbox", summary: "Which rule a payment request would match, and why the others did not", auth: authControl,
		rawBody: "application/json", answer: simulator.ScenarioExplanation{}},
	{method: http.MethodGet, path: "/_sandbox/scenarios/next", tag: "Sandbox", summary: "The one-shot rule in force", auth: authControl, answer: oneShotDTO{}},
	{method: http.MethodPost, path: "/_sandbox/scenarios/next", tag: "Sandbox", summary: "Force the rule of the next created payments", auth: authControl,
		req: scenarioNext, model: "ScenarioNextRequest", answer: oneShotDTO{}},
	{method: http.MethodDelete, path: "/_sandbox/scenarios/next", tag: "Sandbox", summary: "Clear the one-shot rule", auth: authControl, answer: oneShotDTO{}},
	{method: http.MethodGet, path: "/_sandbox/payments/:id", tag: "Sandbox", summary: "A payment in the API version it was made with", auth: authControl,
		query: []string{"expand"}, answer: paymentDTO{}, codes: paymentCodes},
	{method: http.MethodGet, path: "/_sandbox/snapshot", tag: "Sandbox", summary: "This tenant whole as one versioned file (secrets only with includeSecrets=true, for a key holding every scope or with X-Admin-Key)", auth: authControl,
		query: []string{"includeSecrets"}, answer: snapshot.Snapshot{}, codes: []simulator.Code{simulator.CodeForbidden}},
	{method: http.MethodGet, path: "/_sandbox/payments/:id/explain", tag: "Sandbox", summary: "The scenario rule a payment was given, and why", auth: authControl,
		answer: service.PaymentExplanation{}, codes: paymentCodes},

	{method: http.MethodPut, path: "/_sandbox/webhooks/endpoint", tag: "Sandbox", summary: "Set the tenant's webhook endpoint and version", auth: authControl,
		req: webhookEndpointRequest, model: "WebhookEndpointRequest", answer: webhookEndpointDTO{}},
	{method: http.MethodGet, path: "/_sandbox/webhooks/endpoint", tag: "Sandbox", summary: "The tenant's webhook endpoint and version", auth: authControl, answer: webhookEndpointDTO{}},
	{method: http.MethodPost, path: "/_sandbox/webhooks/rotate-secret", tag: "Sandbox", summary: "Rotate the webhook signing secret", auth: authFullKey,
		req: emptyRequest, model: "RotateSecretRequest", optional: true, answer: props(strP("signingSecret"), strP("previousSecretValidUntil"))},
	{method: http.MethodGet, path: "/_sandbox/webhooks/events", tag: "Sandbox", summary: "Webhook events with their delivery attempts", auth: authControl,
		query: []string{"paymentId", "type", "status", "limit"}, answer: listOf(eventOutDTO{})},
	{method: http.MethodGet, path: "/_sandbox/webhooks/events/:id", tag: "Sandbox", summary: "One webhook event with the exact body sent", auth: authControl, answer: eventOutDTO{},
		codes: []simulator.Code{simulator.CodeNotFound}},
	{method: http.MethodGet, path: "/_sandbox/webhooks/events/:id/body", tag: "Sandbox", summary: "The exact bytes of the body a webhook event's latest attempt sent (what its signature signs)", auth: authControl,
		answer: webhookBodyAnswer, codes: []simulator.Code{simulator.CodeNotFound}},
	{method: http.MethodPost, path: "/_sandbox/webhooks/events/:id/replay", tag: "Sandbox", summary: "Send a webhook event again, now", auth: authControl,
		req: emptyRequest, model: "ReplayRequest", optional: true, answer: attemptOutDTO{}, codes: []simulator.Code{simulator.CodeNotFound}},
	{method: http.MethodPost, path: "/_sandbox/webhooks/deliver", tag: "Sandbox", summary: "Try every pending webhook delivery now", auth: authControl,
		req: emptyRequest, model: "DeliverRequest", optional: true, answer: countsAnswer},
	{method: http.MethodGet, path: "/_sandbox/webhooks/wait", tag: "Sandbox", summary: "Wait for a webhook event to reach a delivery status", auth: authControl,
		query: []string{"paymentId", "type", "status", "timeout"}, answer: eventOutDTO{}, codes: []simulator.Code{simulator.CodeWaitTimeout}},
	{method: http.MethodPut, path: "/_sandbox/webhooks/chaos", tag: "Sandbox", summary: "Seeded webhook delivery chaos ({} turns it off)", auth: authControl,
		req: webhookChaosRequest, model: "WebhookChaosRequest",
		answer: props(numP("duplicate"), boolP("reorder"), strP("delay"), numP("seed"))},
	{method: http.MethodGet, path: "/_sandbox/disputes", tag: "Sandbox", summary: "The tenant's disputes", auth: authControl,
		query: []string{"paymentId"}, answer: listOf(disputeOutDTO{})},
	{method: http.MethodPost, path: "/_sandbox/disputes/:id/status", tag: "Sandbox", summary: "Move a dispute (sends DISPUTE.STATUS)", auth: authControl,
		req: disputeStatusRequest, model: "DisputeStatusRequest", answer: disputeOutDTO{}, codes: []simulator.Code{simulator.CodeNotFound}},

	{method: http.MethodGet, path: "/_sandbox/requests", tag: "Sandbox", summary: "The tenant's request journal, newest first", auth: authControl,
		query: []string{"limit", "paymentId", "status", "since"}, answer: listOf(JournalEntry{})},
	{method: http.MethodGet, path: "/_sandbox/hints", tag: "Sandbox", summary: "Integration mistakes seen in the journal", auth: authControl, answer: listOf(HintSummary{})},
	{method: http.MethodGet, path: "/_sandbox/report", tag: "Sandbox", summary: "The tenant's CI report: requests, rules, webhook outcomes, hints, migration notes (json, junit or markdown)", auth: authControl,
		query: []string{"format"}, answer: reportDTO{}, text: []string{"application/xml", "text/markdown"}},
	{method: http.MethodGet, path: "/_sandbox/migration", tag: "Sandbox", summary: "What changes on 2.4 for the requests made with older versions and for the tenant's webhook bodies, and the versions' sunset", auth: authControl,
		answer: migrationDTO{}},
	{method: http.MethodGet, path: "/_sandbox/payment-attempts", tag: "Sandbox", summary: "The tenant's payment attempts, newest first", auth: authControl,
		query: []string{"status"}, answer: listOf(attemptDTO{})},
	{method: http.MethodGet, path: "/_sandbox/tenants", tag: "Sandbox", summary: "Every tenant (admin)", auth: authAdmin, answer: listOf(tenantSummaryDTO{})},
	{method: http.MethodGet, path: VersionNotesPath, tag: "Sandbox", summary: "The API versions served and what the older ones do unlike 2.4", answer: versionNotesDTO{}},
	{method: http.MethodDelete, path: "/_sandbox/tenants/:id", tag: "Sandbox", summary: "Delete a tenant (admin)", auth: authAdmin, answer: tenantStatusAnswer,
		codes: []simulator.Code{simulator.CodeNotFound}},
	// The dashboard's entry pages (HTML; the rest of /_sandbox/ui is its
	// browser UI: forms and a live stream behind a sign-in cookie).
	{method: http.MethodGet, path: "/_sandbox/ui/", tag: "Dashboard", summary: "The dashboard (sign in with the tenant's API key)",
		text: textHTML, dashboard: true},
	{method: http.MethodGet, path: "/_sandbox/ui/checkout", tag: "Dashboard", summary: "The demo checkout", text: textHTML, dashboard: true},
	{method: http.MethodGet, path: simulator.ChallengePagePath, tag: "Dashboard", summary: "The 3DS challenge page of a payment (requiredAction.challengeUrl)",
		query: []string{"token"}, text: textHTML, dashboard: true},
	{method: http.MethodGet, path: OpenAPIPath + ".json", tag: "Sandbox", summary: "This document, as JSON", query: []string{"version"}, answer: openAPIDocumentSchema(),
		codes: []simulator.Code{simulator.CodeUnsupportedAPIVersion}},
	{method: http.MethodGet, path: OpenAPIPath + ".yaml", tag: "Sandbox", summary: "This document, as YAML", query: []string{"version"}, text: textYAML,
		codes: []simulator.Code{simulator.CodeUnsupportedAPIVersion}},
}

// queryParamSchemas are the query parameters that are not plain strings.
var queryParamSchemas = map[string]func() *openapi3.Schema{
	"limit":      openapi3.NewInt64Schema,
	"min_amount": openapi3.NewInt64Schema,
	"max_amount": openapi3.NewInt64Schema,
	"from_date":  openapi3.NewDateTimeSchema,
	"to_date":    openapi3.NewDateTimeSchema,
	"version":    func() *openapi3.Schema { return enumSchema(simulator.APIVersionNames()) },
}

// webhookBodyAnswer is a webhook body as sent: its eventType, the rest as
// the event's type and the tenant's webhook version shape it.
var webhookBodyAnswer = props(strP("eventType"), optP(strP("date")), optP(strP("signedAt")), optP(strP("version")))

// Builders of the schemas of answers written as maps.

type namedProp struct {
	name     string
	s        *openapi3.Schema
	item     any // array of this DTO
	optional bool
}

func strP(n string) namedProp  { return namedProp{name: n, s: openapi3.NewStringSchema()} }
func intP(n string) namedProp  { return namedProp{name: n, s: openapi3.NewInt64Schema()} }
func numP(n string) namedProp  { return namedProp{name: n, s: openapi3.NewFloat64Schema()} }
func boolP(n string) namedProp { return namedProp{name: n, s: openapi3.NewBoolSchema()} }
func arrP(n string, item any) namedProp {
	return namedProp{name: n, item: item}
}
func enumP(n string, vals []string) namedProp { return namedProp{name: n, s: enumSchema(vals)} }
func optP(p namedProp) namedProp              { p.optional = true; return p }

func enumSchema(vals []string) *openapi3.Schema {
	s := openapi3.NewStringSchema()
	for _, v := range vals {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// mapAnswer is an answer written as a map: its properties; items of DTO
// type are reflected when the document is built.
type mapAnswer struct{ props []namedProp }

func props(ps ...namedProp) *mapAnswer { return &mapAnswer{props: ps} }

// listOf is {"data": [item...]}.
func listOf(item any) *mapAnswer { return props(arrP("data", item)) }
