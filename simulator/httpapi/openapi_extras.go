package httpapi

import "strings"

// OpenAPIExtra is something the sandbox's merchant API serves that the
// vendor's OpenAPI (../shared/reference, 2.4) does not document: a route, a
// request or answer field (Component.field), an enum value or an errorId.
type OpenAPIExtra struct {
	Kind   string // route | field | enum | errorId
	Name   string
	Reason string
}

// OpenAPIExtras is the one list of them, each with its reason; a test fails
// on any other departure and on an entry nothing needs any more.
var OpenAPIExtras = []OpenAPIExtra{
	{Kind: "route", Name: "POST /payment-attempts/{id}/approve", Reason: "Interface spec 2.4: the payment-attempts area (manual approval); the vendor's 2.4 snapshot predates it. Not served below 2.4."},
	{Kind: "route", Name: "POST /payment-attempts/{id}/abort", Reason: "Interface spec 2.4: the payment-attempts area (manual approval); the vendor's 2.4 snapshot predates it. Not served below 2.4."},
	{Kind: "field", Name: "ClientSessionAPIRequest.approvalMode", Reason: "Interface spec 2.4: AUTO or MANUAL sessions."},
	{Kind: "field", Name: "ClientSession.approvalMode", Reason: "Interface spec 2.4: the session's approval mode, on every 2.4 answer."},
	{Kind: "field", Name: "ClientSession.currentAttemptId", Reason: "Interface spec 2.4: the attempt a MANUAL session is waiting on."},
	{Kind: "field", Name: "ClientSession.clientToken", Reason: "One answer schema serves POST, GET and PATCH /client-session: only POST answers carry the token (the vendor's ClientSessionWithTokenAPIResponse); GET and PATCH leave it out."},
	{Kind: "field", Name: "ClientSession.clientTokenExpirationDate", Reason: "As clientToken: only POST /client-session answers carry it."},
	{Kind: "field", Name: "VaultPaymentInstrumentAPIRequest.verify", Reason: "Interface spec (2.1): vault takes a boolean verify."},
	{Kind: "field", Name: "Instrument.isVerified", Reason: "Interface spec (2.1): the vaulted payment method carries isVerified."},
	{Kind: "field", Name: "PaymentCustomer.email", Reason: "Interface spec: the payment answer's customer names the e-mail `email` (webhooks say `emailAddress`)."},
	{Kind: "field", Name: "PaymentResumeAPIRequest.expand", Reason: "Interface spec 2.4: every payment action takes expand=transactions.events; the vendor snapshot lists it on the others."},
	{Kind: "field", Name: "RequiredAction.challengeUrl", Reason: "The sandbox's 3DS flow: a 3DS challenge's requiredAction carries the sandbox's own challenge page."},
	{Kind: "field", Name: "Transaction.authorizationCode", Reason: "Interface spec 2.4: transactions[].authorizationCode, where the processor gives one."},
	{Kind: "field", Name: "Transaction.type", Reason: "Interface spec: a transaction's type is `type` in the payment answer (`transactionType` in webhooks)."},
	{Kind: "errorId", Name: "BadRequest", Reason: "The sandbox's errors: a body that is not JSON, or JSON of the wrong type at the top (400)."},
	{Kind: "errorId", Name: "Unauthorized", Reason: "The sandbox's errors: a missing or unknown X-API-KEY (401)."},
	{Kind: "errorId", Name: "Forbidden", Reason: "The sandbox's errors: a key without the route's scope (403)."},
	{Kind: "errorId", Name: "UnsupportedApiVersion", Reason: "The sandbox's errors: X-API-VERSION missing or not a version served (400, listing the accepted values)."},
	{Kind: "errorId", Name: "PayloadTooLarge", Reason: "The sandbox's limits: a body over 1 MiB (413)."},
	{Kind: "errorId", Name: "RequestTimeout", Reason: "The sandbox's errors: a request still running after request_timeout; the vendor documents the 504, not its errorId."},
	{Kind: "errorId", Name: "TooManyRequests", Reason: "The sandbox's limits: the connection and long-poll caps (429)."},
	{Kind: "errorId", Name: "TenantUnavailable", Reason: "The sandbox keeps each tenant in its own store file: one that cannot be opened answers 503 for that tenant only."},
	{Kind: "errorId", Name: "RecordUnreadable", Reason: "The sandbox's store: a stored record that does not decode answers 503 naming its key; lists skip it."},
	{Kind: "errorId", Name: "InternalError", Reason: "The sandbox's errors: 500 with a generic description and a diagnosticsId that is in the log."},
	{Kind: "errorId", Name: "PaymentAttemptNotFound", Reason: "Interface spec 2.4, payment attempts (404)."},
	{Kind: "errorId", Name: "ClientSessionNotManual", Reason: "Interface spec 2.4, payment attempts (409)."},
	{Kind: "errorId", Name: "InvalidPaymentAttemptTransition", Reason: "Interface spec 2.4, payment attempts (409)."},
	{Kind: "errorId", Name: "PaymentAttemptExpired", Reason: "Interface spec 2.4, payment attempts (410)."},
}

// OpenAPIExtrasMarkdown renders OpenAPIExtras as a markdown table (the docs
// print it).
func OpenAPIExtrasMarkdown() string {
	var sb strings.Builder
	sb.WriteString("| Kind | Name | Why the sandbox serves it |\n|---|---|---|\n")
	for _, e := range OpenAPIExtras {
		sb.WriteString("| " + e.Kind + " | `" + strings.ReplaceAll(e.Name, "|", `\|`) + "` | " + strings.ReplaceAll(e.Reason, "|", `\|`) + " |\n")
	}
	return sb.String()
}
