package httpapi

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// apiOp documents one operation of simulator.Operations in the OpenAPI
// document (its method, path, auth, scope, idempotency and version gate are
// the table's), or one page of the dashboard. A test fails when an
// operation has no apiOp, and the other way round.
type apiOp struct {
	id simulator.OperationID // "": a dashboard page (method, path)
	// method and path are a dashboard page's (package dashboard, in front
	// of this server).
	method, path string
	tag          string
	summary      string
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
	// also are answers beyond the success and the error envelope, by status.
	also      map[int]any
	dashboard bool // method and path are a dashboard page's
}

// operation is what the table says of d's operation; a dashboard page's
// method and path, with no key.
func (d apiOp) operation() simulator.Operation {
	if d.dashboard {
		return simulator.Operation{Method: d.method, Path: d.path}
	}
	return simulator.OperationOf(d.id)
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
	{id: simulator.OpHealth, tag: "Health", summary: "The process is up", answer: props(strP("status"), strP("version"))},
	{id: simulator.OpReady, tag: "Health", summary: "The store is open (503 when not)", answer: props(strP("status")),
		also: map[int]any{http.StatusServiceUnavailable: props(strP("status"), strP("error"))}},

	{id: simulator.OpCreateSession, tag: "Client Session API", summary: "Create a client session",
		req: clientSessionCreate, model: "ClientSessionAPIRequest", optional: true, answer: sessionDTO{}, codes: []simulator.Code{simulator.CodeMetadataContainsEmptyKey}},
	{id: simulator.OpGetSession, tag: "Client Session API", summary: "Retrieve a client session",
		query: []string{"clientToken"}, answer: sessionDTO{}, codes: []simulator.Code{simulator.CodeClientSessionValidationError}},
	{id: simulator.OpUpdateSession, tag: "Client Session API", summary: "Update a client session (approvalMode is refused: 422)",
		req: clientSessionUpdate, model: "ClientSessionUpdateAPIRequest", answer: sessionDTO{}, codes: []simulator.Code{simulator.CodeClientSessionValidationError, simulator.CodeMetadataContainsEmptyKey}},

	{id: simulator.OpCreatePayment, tag: "Payments API", summary: "Create a payment",
		req: paymentCreate, model: "PaymentCreationAPIRequest", answer: paymentDTO{},
		codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken, simulator.CodeClientSessionValidationError, simulator.CodeMetadataContainsEmptyKey, simulator.CodePaymentError}},
	{id: simulator.OpListPayments, tag: "Payments API", summary: "Search payments (filters and cursor)",
		query: paymentListParams, answer: paymentListDTO{}},
	{id: simulator.OpGetPayment, tag: "Payments API", summary: "Get a payment",
		query: []string{"expand"}, answer: paymentDTO{}, codes: []simulator.Code{simulator.CodePaymentError}},
	{id: simulator.OpAuthorizePayment, tag: "Payments API", summary: "Authorize a payment",
		req: paymentAuthorize, model: "PaymentAuthorizationAPIRequest", answer: paymentDTO{},
		codes: []simulator.Code{simulator.CodePaymentNotFoundError, simulator.CodePaymentAlreadyAuthorized, simulator.CodeInvalidPaymentStatus, simulator.CodeMerchantAccountNotFound, simulator.CodeMerchantAccountConflict}},
	{id: simulator.OpResumePayment, tag: "Payments API", summary: "Resume a payment after a required action",
		req: paymentResume, model: "PaymentResumeAPIRequest", answer: paymentDTO{}, codes: paymentCodes},
	{id: simulator.OpCapturePayment, tag: "Payments API", summary: "Capture a payment",
		req: paymentCapture, model: "PaymentCaptureAPIRequest", optional: true, answer: paymentDTO{}, codes: paymentCodes},
	{id: simulator.OpCancelPayment, tag: "Payments API", summary: "Cancel a payment",
		req: paymentCancel, model: "PaymentCancelAPIRequest", optional: true, answer: paymentDTO{}, codes: paymentCodes},
	{id: simulator.OpRefundPayment, tag: "Payments API", summary: "Refund a payment",
		req: paymentRefund, model: "PaymentRefundAPIRequest", optional: true, answer: paymentDTO{},
		codes: append([]simulator.Code{simulator.CodePaymentAlreadyRefunded, simulator.CodeUnprocessableRefundAmount}, paymentCodes...)},

	{id: simulator.OpApproveAttempt, tag: "Payment Attempts API", summary: "Approve a payment attempt of a MANUAL session",
		req: emptyRequest, model: "PaymentAttemptApproveRequest", optional: true, answer: approveDTO{},
		codes: []simulator.Code{simulator.CodePaymentAttemptNotFound, simulator.CodeClientSessionNotManual, simulator.CodeIdempotencyKeyAlreadyExists, simulator.CodePaymentAttemptExpired, simulator.CodeInvalidPaymentAttemptTransition}},
	{id: simulator.OpAbortAttempt, tag: "Payment Attempts API", summary: "Abort a payment attempt",
		req: emptyRequest, model: "PaymentAttemptAbortRequest", optional: true, answer: attemptStatusDTO{},
		codes: []simulator.Code{simulator.CodePaymentAttemptNotFound, simulator.CodePaymentAttemptExpired, simulator.CodeInvalidPaymentAttemptTransition}},

	{id: simulator.OpVaultInstrument, tag: "Payment Methods API", summary: "Vault a payment instrument",
		req: vaultRequest, model: "VaultPaymentInstrumentAPIRequest", answer: instrumentDTO{}, codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken, simulator.CodeFailedVerification}},
	{id: simulator.OpListInstruments, tag: "Payment Methods API", summary: "List a customer's saved payment instruments",
		query: []string{"customer_id"}, answer: listOf(instrumentDTO{})},
	{id: simulator.OpDeleteInstrument, tag: "Payment Methods API", summary: "Delete a saved payment instrument",
		answer: instrumentDTO{}, codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken}},
	{id: simulator.OpSetDefaultInstrument, tag: "Payment Methods API", summary: "Make a saved payment instrument the customer's default",
		req: emptyRequest, model: "SetDefaultPaymentMethodRequest", optional: true, answer: instrumentDTO{}, codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken}},

	{id: simulator.OpClientTokenize, tag: "Client API", summary: "Tokenise a card (what the client SDK does)",
		req: tokenizeRequest, model: "PaymentInstrumentTokenizationRequest", answer: tokenizeDTO{}},
	{id: simulator.OpClientCreatePayment, tag: "Client API", summary: "Pay with a token from the client (AUTO sessions)",
		req: clientPaymentCreate, model: "ClientPaymentCreationRequest", answer: paymentDTO{}, codes: []simulator.Code{simulator.CodeInvalidPaymentInstrumentToken, simulator.CodePaymentError}},
	{id: simulator.OpClientResumePayment, tag: "Client API", summary: "Resume a payment from the client",
		req: paymentResume, model: "PaymentResumeAPIRequest", answer: paymentDTO{}, codes: paymentCodes},
	{id: simulator.OpClientChallenge, tag: "Client API", summary: "Complete a 3DS challenge as the shopper (requiredAction.clientToken)",
		req: threeDSRequest, model: "ThreeDSChallengeRequest", answer: props(strP("resumeToken"))},
	{id: simulator.OpClientTokenizePreflight, tag: "Client API", summary: "CORS preflight", status: http.StatusNoContent},
	{id: simulator.OpClientPaymentsPreflight, tag: "Client API", summary: "CORS preflight", status: http.StatusNoContent},
	{id: simulator.OpClientResumePreflight, tag: "Client API", summary: "CORS preflight", status: http.StatusNoContent},
	{id: simulator.OpClientChallengePreflight, tag: "Client API", summary: "CORS preflight", status: http.StatusNoContent},

	{id: simulator.OpCreateTenant, tag: "Sandbox", summary: "Create a tenant",
		req: tenantCreate, model: "TenantCreateRequest", optional: true, status: http.StatusCreated,
		answer: props(strP("tenantId"), strP("apiKey"), strP("signingSecret"), enumP("webhookVersion", simulator.APIVersionNames()), optP(strP("expiresAt")))},
	{id: simulator.OpDeleteTenant, tag: "Sandbox", summary: "Delete the calling tenant", answer: tenantStatusAnswer},
	{id: simulator.OpReset, tag: "Sandbox", summary: "Delete the tenant's data (its settings stay)",
		req: emptyRequest, model: "ResetRequest", optional: true, answer: tenantStatusAnswer},
	{id: simulator.OpGetClock, tag: "Sandbox", summary: "The tenant's clock", answer: props(strP("now"))},
	{id: simulator.OpAdvanceClock, tag: "Sandbox", summary: "Advance the tenant's clock and run what falls due",
		req: clockAdvance, model: "ClockAdvanceRequest", answer: advanceDTO{}},
	{id: simulator.OpGetAttempt, tag: "Sandbox", summary: "Read a payment attempt", answer: attemptDTO{},
		codes: []simulator.Code{simulator.CodePaymentAttemptNotFound}},
	{id: simulator.OpExpireAttempt, tag: "Sandbox", summary: "Expire a payment attempt now",
		req: emptyRequest, model: "PaymentAttemptExpireRequest", optional: true, answer: attemptStatusDTO{},
		codes: []simulator.Code{simulator.CodePaymentAttemptNotFound, simulator.CodeInvalidPaymentAttemptTransition}},
	{id: simulator.OpWait, tag: "Sandbox", summary: "Wait for a payment to reach a status",
		query: []string{"paymentId", "status", "timeout"}, answer: paymentDTO{}, codes: []simulator.Code{simulator.CodeWaitTimeout, simulator.CodePaymentError}},
	{id: simulator.OpDispute, tag: "Sandbox", summary: "Open a dispute (sends DISPUTE.OPENED)",
		req: disputeRequest, model: "DisputeRequest", optional: true, answer: props(strP("disputeId"), strP("paymentId")), codes: paymentCodes},
	{id: simulator.OpSettle, tag: "Sandbox", summary: "Settle a SETTLING payment now",
		req: emptyRequest, model: "SettleRequest", optional: true, answer: paymentDTO{}, codes: paymentCodes},
	{id: simulator.OpComplete3DS, tag: "Sandbox", summary: "Complete a payment's 3DS challenge and resume it",
		req: threeDSRequest, model: "ThreeDSChallengeRequest", answer: paymentDTO{}, codes: paymentCodes},

	{id: simulator.OpGetScenarios, tag: "Sandbox", summary: "The scenario rules in force (YAML; JSON with Accept: application/json)",
		answer: scenarioDocumentSchema(), text: textYAML},
	{id: simulator.OpPutScenarios, tag: "Sandbox", summary: "Replace the tenant's scenario rules",
		rawBody: "application/yaml", answer: rulesAnswer, codes: []simulator.Code{simulator.CodeScenarioValidationError}},
	{id: simulator.OpDeleteScenarios, tag: "Sandbox", summary: "Back to the scenario file's rules", answer: rulesAnswer},
	{id: simulator.OpExplainScenarios, tag: "Sandbox", summary: "Which rule a payment request would match, and why the others did not",
		rawBody: "application/json", answer: simulator.ScenarioExplanation{}},
	{id: simulator.OpGetNextScenario, tag: "Sandbox", summary: "The one-shot rule in force", answer: oneShotDTO{}},
	{id: simulator.OpPostNextScenario, tag: "Sandbox", summary: "Force the rule of the next created payments",
		req: scenarioNext, model: "ScenarioNextRequest", answer: oneShotDTO{}},
	{id: simulator.OpDeleteNextScenario, tag: "Sandbox", summary: "Clear the one-shot rule", answer: oneShotDTO{}},
	{id: simulator.OpSandboxPayment, tag: "Sandbox", summary: "A payment in the API version it was made with",
		query: []string{"expand"}, answer: paymentDTO{}, codes: paymentCodes},
	{id: simulator.OpGetSnapshot, tag: "Sandbox", summary: "This tenant whole as one versioned file (secrets only with includeSecrets=true, for a key holding every scope or with X-Admin-Key)",
		query: []string{"includeSecrets"}, answer: snapshot.Snapshot{}, codes: []simulator.Code{simulator.CodeForbidden}},
	{id: simulator.OpExplainPayment, tag: "Sandbox", summary: "The scenario rule a payment was given, and why",
		answer: service.PaymentExplanation{}, codes: paymentCodes},

	{id: simulator.OpPutWebhookEndpoint, tag: "Sandbox", summary: "Set the tenant's webhook endpoint and version",
		req: webhookEndpointRequest, model: "WebhookEndpointRequest", answer: webhookEndpointDTO{}},
	{id: simulator.OpGetWebhookEndpoint, tag: "Sandbox", summary: "The tenant's webhook endpoint and version", answer: webhookEndpointDTO{}},
	{id: simulator.OpRotateSecret, tag: "Sandbox", summary: "Rotate the webhook signing secret",
		req: emptyRequest, model: "RotateSecretRequest", optional: true, answer: props(strP("signingSecret"), strP("previousSecretValidUntil"))},
	{id: simulator.OpListWebhookEvents, tag: "Sandbox", summary: "Webhook events with their delivery attempts",
		query: []string{"paymentId", "type", "status", "limit"}, answer: listOf(eventOutDTO{})},
	{id: simulator.OpGetWebhookEvent, tag: "Sandbox", summary: "One webhook event with the exact body sent", answer: eventOutDTO{},
		codes: []simulator.Code{simulator.CodeNotFound}},
	{id: simulator.OpGetWebhookEventBody, tag: "Sandbox", summary: "The exact bytes of the body a webhook event's latest attempt sent (what its signature signs)",
		answer: webhookBodyAnswer, codes: []simulator.Code{simulator.CodeNotFound}},
	{id: simulator.OpReplayWebhook, tag: "Sandbox", summary: "Send a webhook event again, now",
		req: emptyRequest, model: "ReplayRequest", optional: true, answer: attemptOutDTO{}, codes: []simulator.Code{simulator.CodeNotFound}},
	{id: simulator.OpDeliverWebhooks, tag: "Sandbox", summary: "Try every pending webhook delivery now",
		req: emptyRequest, model: "DeliverRequest", optional: true, answer: countsAnswer},
	{id: simulator.OpWaitWebhook, tag: "Sandbox", summary: "Wait for a webhook event to reach a delivery status",
		query: []string{"paymentId", "type", "status", "timeout"}, answer: eventOutDTO{}, codes: []simulator.Code{simulator.CodeWaitTimeout}},
	{id: simulator.OpPutWebhookChaos, tag: "Sandbox", summary: "Seeded webhook delivery chaos ({} turns it off)",
		req: webhookChaosRequest, model: "WebhookChaosRequest",
		answer: props(numP("duplicate"), boolP("reorder"), strP("delay"), numP("seed"))},
	{id: simulator.OpListDisputes, tag: "Sandbox", summary: "The tenant's disputes",
		query: []string{"paymentId"}, answer: listOf(disputeOutDTO{})},
	{id: simulator.OpSetDisputeStatus, tag: "Sandbox", summary: "Move a dispute (sends DISPUTE.STATUS)",
		req: disputeStatusRequest, model: "DisputeStatusRequest", answer: disputeOutDTO{}, codes: []simulator.Code{simulator.CodeNotFound}},

	{id: simulator.OpListRequests, tag: "Sandbox", summary: "The tenant's request journal, newest first",
		query: []string{"limit", "paymentId", "status", "since"}, answer: listOf(JournalEntry{})},
	{id: simulator.OpListHints, tag: "Sandbox", summary: "Integration mistakes seen in the journal", answer: listOf(HintSummary{})},
	{id: simulator.OpReport, tag: "Sandbox", summary: "The tenant's CI report: requests, rules, webhook outcomes, hints, migration notes (json, junit or markdown)",
		query: []string{"format"}, answer: reportDTO{}, text: []string{"application/xml", "text/markdown"}},
	{id: simulator.OpMigrationNotes, tag: "Sandbox", summary: "What changes on 2.4 for the requests made with older versions and for the tenant's webhook bodies, and the versions' sunset",
		answer: migrationDTO{}},
	{id: simulator.OpListAttempts, tag: "Sandbox", summary: "The tenant's payment attempts, newest first",
		query: []string{"status"}, answer: listOf(attemptDTO{})},
	{id: simulator.OpListTenants, tag: "Sandbox", summary: "Every tenant (admin)", answer: listOf(tenantSummaryDTO{})},
	{id: simulator.OpVersionNotes, tag: "Sandbox", summary: "The API versions served and what the older ones do unlike 2.4", answer: versionNotesDTO{}},
	{id: simulator.OpAdminDeleteTenant, tag: "Sandbox", summary: "Delete a tenant (admin)", answer: tenantStatusAnswer,
		codes: []simulator.Code{simulator.CodeNotFound}},
	{id: simulator.OpAcceptLoss, tag: "Sandbox", summary: "Open a tenant whose file is missing or short with what its file has (admin)", answer: acceptLossDTO{},
		codes: []simulator.Code{simulator.CodeNotFound}},
	// The dashboard's entry pages (HTML; the rest of /_sandbox/ui is its
	// browser UI: forms and a live stream behind a sign-in cookie).
	{method: http.MethodGet, path: "/_sandbox/ui/", tag: "Dashboard", summary: "The dashboard (sign in with the tenant's API key)",
		text: textHTML, dashboard: true},
	{method: http.MethodGet, path: "/_sandbox/ui/checkout", tag: "Dashboard", summary: "The demo checkout", text: textHTML, dashboard: true},
	{method: http.MethodGet, path: "/_sandbox/ui/checkout/challenge", tag: "Dashboard", summary: "The 3DS challenge page of a payment (requiredAction.challengeUrl)",
		query: []string{"token"}, text: textHTML, dashboard: true},
	{id: simulator.OpOpenAPIJSON, tag: "Sandbox", summary: "This document, as JSON", query: []string{"version"}, answer: openAPIDocumentSchema(),
		codes: []simulator.Code{simulator.CodeUnsupportedAPIVersion}},
	{id: simulator.OpOpenAPIYAML, tag: "Sandbox", summary: "This document, as YAML", query: []string{"version"}, text: textYAML,
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
