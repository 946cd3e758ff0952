package simulator

// The operations the server answers, one table: each with its method, path,
// who may call it, the scope a merchant key needs and whether an idempotency
// key applies. The HTTP adapter binds a handler to each, the dashboard asks
// it which scope an action needs, the OpenAPI document is built from it.

// OperationID names one operation.
type OperationID string

// Auth is who may call an operation, and how.
type Auth int

const (
	AuthNone     Auth = iota // no key
	AuthMerchant             // X-API-KEY with the operation's scope, X-API-VERSION
	AuthClient               // X-Client-Token
	AuthControl              // X-API-KEY, any scope, no version
	AuthFullKey              // X-API-KEY with every scope, or any with X-Admin-Key
	AuthAdmin                // X-Admin-Key
	AuthAdminIf              // X-Admin-Key when the sandbox has one
)

// Operation is one method and path the server answers.
type Operation struct {
	ID     OperationID
	Method string // GET, POST, PUT, PATCH, DELETE or OPTIONS
	Path   string // a segment ":name" is a path parameter
	Auth   Auth
	Scope  Scope // the scope an AuthMerchant key needs
	// Idempotent: X-Idempotency-Key applies (a reused key is refused).
	Idempotent bool
	// Gate is the version difference (Difference.Kind) whose versions do
	// not serve the operation; "": every version does.
	Gate string
}

// Paths of operations that other code names.
const (
	// VersionNotesPath is the page the Link of a deprecated version's
	// answer names.
	VersionNotesPath = "/_sandbox/versions"
	// OpenAPIPath is where the OpenAPI document is served, as
	// OpenAPIPath+".json" and OpenAPIPath+".yaml".
	OpenAPIPath = "/_sandbox/openapi"
)

// The operations.
const (
	OpHealth OperationID = "health"
	OpReady  OperationID = "ready"

	OpCreateSession OperationID = "createSession"
	OpGetSession    OperationID = "getSession"
	OpUpdateSession OperationID = "updateSession"

	OpCreatePayment    OperationID = "createPayment"
	OpListPayments     OperationID = "listPayments"
	OpGetPayment       OperationID = "getPayment"
	OpAuthorizePayment OperationID = "authorizePayment"
	OpResumePayment    OperationID = "resumePayment"
	OpCapturePayment   OperationID = "capturePayment"
	OpCancelPayment    OperationID = "cancelPayment"
	OpRefundPayment    OperationID = "refundPayment"

	OpApproveAttempt OperationID = "approveAttempt"
	OpAbortAttempt   OperationID = "abortAttempt"

	OpVaultInstrument      OperationID = "vaultInstrument"
	OpListInstruments      OperationID = "listInstruments"
	OpDeleteInstrument     OperationID = "deleteInstrument"
	OpSetDefaultInstrument OperationID = "setDefaultInstrument"

	OpClientTokenize           OperationID = "clientTokenize"
	OpClientCreatePayment      OperationID = "clientCreatePayment"
	OpClientResumePayment      OperationID = "clientResumePayment"
	OpClientChallenge          OperationID = "clientChallenge"
	OpClientTokenizePreflight  OperationID = "clientTokenizePreflight"
	OpClientPaymentsPreflight  OperationID = "clientPaymentsPreflight"
	OpClientResumePreflight    OperationID = "clientResumePreflight"
	OpClientChallengePreflight OperationID = "clientChallengePreflight"

	OpCreateTenant       OperationID = "createTenant"
	OpGetSnapshot        OperationID = "getSnapshot"
	OpDeleteTenant       OperationID = "deleteTenant"
	OpReset              OperationID = "reset"
	OpGetClock           OperationID = "getClock"
	OpAdvanceClock       OperationID = "advanceClock"
	OpGetAttempt         OperationID = "getAttempt"
	OpExpireAttempt      OperationID = "expireAttempt"
	OpWait               OperationID = "wait"
	OpSandboxPayment     OperationID = "sandboxPayment"
	OpDispute            OperationID = "dispute"
	OpSettle             OperationID = "settle"
	OpComplete3DS        OperationID = "complete3DS"
	OpGetScenarios       OperationID = "getScenarios"
	OpPutScenarios       OperationID = "putScenarios"
	OpDeleteScenarios    OperationID = "deleteScenarios"
	OpExplainScenarios   OperationID = "explainScenarios"
	OpGetNextScenario    OperationID = "getNextScenario"
	OpPostNextScenario   OperationID = "postNextScenario"
	OpDeleteNextScenario OperationID = "deleteNextScenario"
	OpExplainPayment     OperationID = "explainPayment"

	OpPutWebhookEndpoint  OperationID = "putWebhookEndpoint"
	OpGetWebhookEndpoint  OperationID = "getWebhookEndpoint"
	OpRotateSecret        OperationID = "rotateSecret"
	OpListWebhookEvents   OperationID = "listWebhookEvents"
	OpGetWebhookEvent     OperationID = "getWebhookEvent"
	OpGetWebhookEventBody OperationID = "getWebhookEventBody"
	OpReplayWebhook       OperationID = "replayWebhook"
	OpDeliverWebhooks     OperationID = "deliverWebhooks"
	OpWaitWebhook         OperationID = "waitWebhook"
	OpPutWebhookChaos     OperationID = "putWebhookChaos"
	OpListDisputes        OperationID = "listDisputes"
	OpSetDisputeStatus    OperationID = "setDisputeStatus"

	OpListRequests      OperationID = "listRequests"
	OpListHints         OperationID = "listHints"
	OpMigrationNotes    OperationID = "migrationNotes"
	OpReport            OperationID = "report"
	OpListAttempts      OperationID = "listAttempts"
	OpListTenants       OperationID = "listTenants"
	OpVersionNotes      OperationID = "versionNotes"
	OpOpenAPIJSON       OperationID = "openAPIJSON"
	OpOpenAPIYAML       OperationID = "openAPIYAML"
	OpAdminDeleteTenant OperationID = "adminDeleteTenant"
	OpAcceptLoss        OperationID = "acceptLoss"
)

// Operations is the table; each id once.
var Operations = []Operation{
	{ID: OpHealth, Method: "GET", Path: "/healthz"},
	{ID: OpReady, Method: "GET", Path: "/readyz"},

	{ID: OpCreateSession, Method: "POST", Path: "/client-session", Auth: AuthMerchant, Scope: ScopeClientTokensWrite},
	{ID: OpGetSession, Method: "GET", Path: "/client-session", Auth: AuthMerchant, Scope: ScopeClientTokensWrite},
	{ID: OpUpdateSession, Method: "PATCH", Path: "/client-session", Auth: AuthMerchant, Scope: ScopeClientTokensWrite},

	{ID: OpCreatePayment, Method: "POST", Path: "/payments", Auth: AuthMerchant, Scope: ScopeTransactionsAuthorize, Idempotent: true},
	{ID: OpListPayments, Method: "GET", Path: "/payments", Auth: AuthMerchant, Scope: ScopeTransactionsRetrieve},
	{ID: OpGetPayment, Method: "GET", Path: "/payments/:id", Auth: AuthMerchant, Scope: ScopeTransactionsRetrieve},
	{ID: OpAuthorizePayment, Method: "POST", Path: "/payments/:id/authorize", Auth: AuthMerchant, Scope: ScopeTransactionsAuthorize, Idempotent: true},
	{ID: OpResumePayment, Method: "POST", Path: "/payments/:id/resume", Auth: AuthMerchant, Scope: ScopeTransactionsAuthorize, Idempotent: true},
	{ID: OpCapturePayment, Method: "POST", Path: "/payments/:id/capture", Auth: AuthMerchant, Scope: ScopeTransactionsCapture, Idempotent: true},
	{ID: OpCancelPayment, Method: "POST", Path: "/payments/:id/cancel", Auth: AuthMerchant, Scope: ScopeTransactionsCancel, Idempotent: true},
	{ID: OpRefundPayment, Method: "POST", Path: "/payments/:id/refund", Auth: AuthMerchant, Scope: ScopeTransactionsRefund, Idempotent: true},

	{ID: OpApproveAttempt, Method: "POST", Path: "/payment-attempts/:id/approve", Auth: AuthMerchant, Scope: ScopeTransactionsAuthorize, Gate: DiffAttemptRoutes},
	{ID: OpAbortAttempt, Method: "POST", Path: "/payment-attempts/:id/abort", Auth: AuthMerchant, Scope: ScopeTransactionsAuthorize, Gate: DiffAttemptRoutes},

	{ID: OpVaultInstrument, Method: "POST", Path: "/payment-instruments/:token/vault", Auth: AuthMerchant, Scope: ScopePaymentInstrumentWrite},
	{ID: OpListInstruments, Method: "GET", Path: "/payment-instruments", Auth: AuthMerchant, Scope: ScopePaymentInstrumentRead},
	{ID: OpDeleteInstrument, Method: "DELETE", Path: "/payment-instruments/:token", Auth: AuthMerchant, Scope: ScopePaymentInstrumentWrite},
	{ID: OpSetDefaultInstrument, Method: "POST", Path: "/payment-instruments/:token/default", Auth: AuthMerchant, Scope: ScopePaymentInstrumentWrite},

	{ID: OpClientTokenize, Method: "POST", Path: "/client/payment-instruments", Auth: AuthClient},
	{ID: OpClientCreatePayment, Method: "POST", Path: "/client/payments", Auth: AuthClient},
	{ID: OpClientResumePayment, Method: "POST", Path: "/client/payments/:id/resume", Auth: AuthClient},
	{ID: OpClientChallenge, Method: "POST", Path: "/client/3ds/challenge", Auth: AuthClient},
	{ID: OpClientTokenizePreflight, Method: "OPTIONS", Path: "/client/payment-instruments"},
	{ID: OpClientPaymentsPreflight, Method: "OPTIONS", Path: "/client/payments"},
	{ID: OpClientResumePreflight, Method: "OPTIONS", Path: "/client/payments/:id/resume"},
	{ID: OpClientChallengePreflight, Method: "OPTIONS", Path: "/client/3ds/challenge"},

	{ID: OpCreateTenant, Method: "POST", Path: "/_sandbox/tenants", Auth: AuthAdminIf},
	{ID: OpDeleteTenant, Method: "DELETE", Path: "/_sandbox/tenant", Auth: AuthFullKey},
	{ID: OpReset, Method: "POST", Path: "/_sandbox/reset", Auth: AuthFullKey},
	{ID: OpGetClock, Method: "GET", Path: "/_sandbox/clock", Auth: AuthControl},
	{ID: OpAdvanceClock, Method: "POST", Path: "/_sandbox/clock/advance", Auth: AuthControl},
	{ID: OpGetAttempt, Method: "GET", Path: "/_sandbox/payment-attempts/:id", Auth: AuthControl},
	{ID: OpExpireAttempt, Method: "POST", Path: "/_sandbox/payment-attempts/:id/expire", Auth: AuthControl},
	{ID: OpWait, Method: "GET", Path: "/_sandbox/wait", Auth: AuthControl},
	{ID: OpDispute, Method: "POST", Path: "/_sandbox/payments/:id/dispute", Auth: AuthControl},
	{ID: OpSettle, Method: "POST", Path: "/_sandbox/payments/:id/settle", Auth: AuthControl},
	{ID: OpComplete3DS, Method: "POST", Path: "/_sandbox/payments/:id/3ds", Auth: AuthControl},

	{ID: OpGetScenarios, Method: "GET", Path: "/_sandbox/scenarios", Auth: AuthControl},
	{ID: OpPutScenarios, Method: "PUT", Path: "/_sandbox/scenarios", Auth: AuthControl},
	{ID: OpDeleteScenarios, Method: "DELETE", Path: "/_sandbox/scenarios", Auth: AuthControl},
	{ID: OpExplainScenarios, Method: "POST", Path: "/_sandbox/scenarios/explain", Auth: AuthControl},
	{ID: OpGetNextScenario, Method: "GET", Path: "/_sandbox/scenarios/next", Auth: AuthControl},
	{ID: OpPostNextScenario, Method: "POST", Path: "/_sandbox/scenarios/next", Auth: AuthControl},
	{ID: OpDeleteNextScenario, Method: "DELETE", Path: "/_sandbox/scenarios/next", Auth: AuthControl},
	{ID: OpSandboxPayment, Method: "GET", Path: "/_sandbox/payments/:id", Auth: AuthControl},
	// Any key exports the tenant; its secrets need a key holding every
	// scope, or the admin key.
	{ID: OpGetSnapshot, Method: "GET", Path: "/_sandbox/snapshot", Auth: AuthControl},
	{ID: OpExplainPayment, Method: "GET", Path: "/_sandbox/payments/:id/explain", Auth: AuthControl},

	{ID: OpPutWebhookEndpoint, Method: "PUT", Path: "/_sandbox/webhooks/endpoint", Auth: AuthControl},
	{ID: OpGetWebhookEndpoint, Method: "GET", Path: "/_sandbox/webhooks/endpoint", Auth: AuthControl},
	{ID: OpRotateSecret, Method: "POST", Path: "/_sandbox/webhooks/rotate-secret", Auth: AuthFullKey},
	{ID: OpListWebhookEvents, Method: "GET", Path: "/_sandbox/webhooks/events", Auth: AuthControl},
	{ID: OpGetWebhookEvent, Method: "GET", Path: "/_sandbox/webhooks/events/:id", Auth: AuthControl},
	{ID: OpGetWebhookEventBody, Method: "GET", Path: "/_sandbox/webhooks/events/:id/body", Auth: AuthControl},
	{ID: OpReplayWebhook, Method: "POST", Path: "/_sandbox/webhooks/events/:id/replay", Auth: AuthControl},
	{ID: OpDeliverWebhooks, Method: "POST", Path: "/_sandbox/webhooks/deliver", Auth: AuthControl},
	{ID: OpWaitWebhook, Method: "GET", Path: "/_sandbox/webhooks/wait", Auth: AuthControl},
	{ID: OpPutWebhookChaos, Method: "PUT", Path: "/_sandbox/webhooks/chaos", Auth: AuthControl},
	{ID: OpListDisputes, Method: "GET", Path: "/_sandbox/disputes", Auth: AuthControl},
	{ID: OpSetDisputeStatus, Method: "POST", Path: "/_sandbox/disputes/:id/status", Auth: AuthControl},

	{ID: OpListRequests, Method: "GET", Path: "/_sandbox/requests", Auth: AuthControl},
	{ID: OpListHints, Method: "GET", Path: "/_sandbox/hints", Auth: AuthControl},
	{ID: OpReport, Method: "GET", Path: "/_sandbox/report", Auth: AuthControl},
	{ID: OpMigrationNotes, Method: "GET", Path: "/_sandbox/migration", Auth: AuthControl},
	{ID: OpListAttempts, Method: "GET", Path: "/_sandbox/payment-attempts", Auth: AuthControl},
	{ID: OpListTenants, Method: "GET", Path: "/_sandbox/tenants", Auth: AuthAdmin},
	{ID: OpVersionNotes, Method: "GET", Path: VersionNotesPath},
	{ID: OpAdminDeleteTenant, Method: "DELETE", Path: "/_sandbox/tenants/:id", Auth: AuthAdmin},
	{ID: OpAcceptLoss, Method: "POST", Path: "/_sandbox/tenants/:id/accept-loss", Auth: AuthAdmin},
	{ID: OpOpenAPIJSON, Method: "GET", Path: OpenAPIPath + ".json"},
	{ID: OpOpenAPIYAML, Method: "GET", Path: OpenAPIPath + ".yaml"},
}

// OperationOf is the operation id names; it panics on an id the table does
// not hold (a programming error: ids are this file's constants).
func OperationOf(id OperationID) Operation {
	for _, op := range Operations {
		if op.ID == id {
			return op
		}
	}
	panic("simulator: no operation " + string(id))
}
