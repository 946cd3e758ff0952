package simulator

import (
	"errors"
	"fmt"
)

// Code is one errorId of the closed error catalogue. Values equal the errorIds
// on the wire. The HTTP status of each code lives in httpapi's one table.
type Code string

// The catalogue: every errorId of the interface spec, of the sandbox's own
// routes (docs/api.md) and of the vendor OpenAPI. Codes the product never
// emits are marked so; they are kept so that the table is complete and
// clients can rely on the names.
const (
	// Request pipeline.
	CodeBadRequest             Code = "BadRequest"
	CodeUnauthorized           Code = "Unauthorized"
	CodeForbidden              Code = "Forbidden"
	CodeUnsupportedAPIVersion  Code = "UnsupportedApiVersion"
	CodePayloadTooLarge        Code = "PayloadTooLarge"
	CodeNotFound               Code = "NotFound"
	CodeMethodNotAllowed       Code = "MethodNotAllowed"
	CodeRequestValidationError Code = "RequestValidationError"
	CodeRequestTimeout         Code = "RequestTimeout"
	CodeTooManyRequests        Code = "TooManyRequests"
	CodeInternalError          Code = "InternalError"

	// Client sessions and instruments.
	CodeClientSessionValidationError  Code = "ClientSessionValidationError"
	CodeMetadataContainsEmptyKey      Code = "MetadataContainsEmptyKey"
	CodeInvalidPaymentInstrumentToken Code = "InvalidPaymentInstrumentToken"
	CodeFailedVerification            Code = "FailedVerification"

	// Payments.
	CodePaymentError                Code = "PaymentError"
	CodePaymentNotFoundError        Code = "PaymentNotFoundError"
	CodePaymentAlreadyAuthorized    Code = "PaymentAlreadyAuthorized"
	CodeInvalidPaymentStatus        Code = "InvalidPaymentStatus"
	CodeMerchantAccountNotFound     Code = "MerchantAccountNotFound"
	CodeMerchantAccountConflict     Code = "MerchantAccountConflict"
	CodeIdempotencyKeyAlreadyExists Code = "IdempotencyKeyAlreadyExists"
	CodePaymentAlreadyRefunded      Code = "PaymentAlreadyRefunded"
	CodeUnprocessableRefundAmount   Code = "UnprocessableRefundAmount"
	// CodeTransactionRequestIdempotencyKeyAlreadyExists is the reused-key
	// error of versions before 2.3 (2.3 and later answer 409
	// IdempotencyKeyAlreadyExists).
	CodeTransactionRequestIdempotencyKeyAlreadyExists Code = "TransactionRequestIdempotencyKeyAlreadyExists"
	// Never emitted: the adjust-authorization errors (the endpoint is not
	// part of this product) and the resume 202.
	CodeEntityNotFound                    Code = "EntityNotFound"
	CodePaymentIsNotAuthorizedYet         Code = "PaymentIsNotAuthorizedYet"
	CodeIncorrectPaymentAuthorizationType Code = "IncorrectPaymentAuthorizationType"
	CodeAdjustAuthorizationNonCardPayment Code = "AdjustAuthorizationNonCardPayment"
	CodeAdjustAuthorizationNotSupported   Code = "AdjustAuthorizationNotSupported"
	CodeNoActionsToHandle                 Code = "NoActionsToHandle"

	// Payment attempts.
	CodePaymentAttemptNotFound          Code = "PaymentAttemptNotFound"
	CodeClientSessionNotManual          Code = "ClientSessionNotManual"
	CodeInvalidPaymentAttemptTransition Code = "InvalidPaymentAttemptTransition"
	CodePaymentAttemptExpired           Code = "PaymentAttemptExpired"

	// Sandbox control plane.
	CodeScenarioValidationError Code = "ScenarioValidationError"
	CodeWaitTimeout             Code = "WaitTimeout"
	// CodeTenantUnavailable: the tenant's data cannot be opened or read
	// (503); other tenants are unaffected (docs/limits.md).
	CodeTenantUnavailable Code = "TenantUnavailable"
	// CodeStorageFull: a change could not be stored because the server's
	// disk is full (503); nothing of it was stored, reads keep working, and
	// the same request succeeds once space is freed.
	CodeStorageFull Code = "StorageFull"
	// CodeRecordUnreadable: a stored record of the tenant does not decode
	// (503, naming its key); lists skip it and name it in a Sandbox-Warning
	// (docs/limits.md).
	CodeRecordUnreadable Code = "RecordUnreadable"
	// CodeHeadersTooLarge: the request's header block is over 64 KiB
	// (docs/limits.md).
	CodeHeadersTooLarge Code = "RequestHeaderFieldsTooLarge"
)

// Codes lists the whole catalogue, for the table test of httpapi.
var Codes = []Code{
	CodeBadRequest, CodeUnauthorized, CodeForbidden, CodeUnsupportedAPIVersion, CodePayloadTooLarge,
	CodeNotFound, CodeMethodNotAllowed, CodeRequestValidationError, CodeRequestTimeout,
	CodeTooManyRequests, CodeInternalError,
	CodeClientSessionValidationError, CodeMetadataContainsEmptyKey, CodeInvalidPaymentInstrumentToken,
	CodeFailedVerification,
	CodePaymentError, CodePaymentNotFoundError, CodePaymentAlreadyAuthorized, CodeInvalidPaymentStatus,
	CodeMerchantAccountNotFound, CodeMerchantAccountConflict, CodeIdempotencyKeyAlreadyExists,
	CodePaymentAlreadyRefunded, CodeUnprocessableRefundAmount,
	CodeTransactionRequestIdempotencyKeyAlreadyExists, CodeEntityNotFound, CodePaymentIsNotAuthorizedYet,
	CodeIncorrectPaymentAuthorizationType, CodeAdjustAuthorizationNonCardPayment,
	CodeAdjustAuthorizationNotSupported, CodeNoActionsToHandle,
	CodePaymentAttemptNotFound, CodeClientSessionNotManual, CodeInvalidPaymentAttemptTransition,
	CodePaymentAttemptExpired,
	CodeScenarioValidationError, CodeWaitTimeout, CodeHeadersTooLarge, CodeTenantUnavailable,
	CodeStorageFull, CodeRecordUnreadable,
}

// FieldError is one broken rule of a request, at a JSONPath like "$.order.lineItems[0].amount".
type FieldError struct {
	Path        string `json:"path"`
	Description string `json:"description"`
}

// Error is a catalogue error. Anything that is not an *Error is internal.
type Error struct {
	Code     Code
	Message  string
	Recovery string
	// Model and Fields make up validationErrors (422).
	Model  string
	Fields []FieldError
	// PaymentID and PaymentStatus name the related payment (400/408/409).
	PaymentID     string
	PaymentStatus string
}

func (e *Error) Error() string {
	if len(e.Fields) > 0 {
		return fmt.Sprintf("%s: %s (%s: %s)", e.Code, e.Message, e.Fields[0].Path, e.Fields[0].Description)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf builds a catalogue error.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithRecovery sets the recovery suggestion.
func (e *Error) WithRecovery(s string) *Error { e.Recovery = s; return e }

// WithPayment names the related payment.
func (e *Error) WithPayment(p *Payment) *Error {
	if p != nil {
		e.PaymentID, e.PaymentStatus = p.ID, string(p.Status)
	}
	return e
}

// ValidationError is a 422 RequestValidationError for the request schema model.
func ValidationError(model string, fields ...FieldError) *Error {
	return &Error{
		Code:    CodeRequestValidationError,
		Message: "We were unable to validate your request, please check your payload against the validationErrors listed",
		Model:   model,
		Fields:  fields,
		// It points only at what exists: the docs section on errors (a
		// test checks that every docs anchor the code names exists).
		Recovery: "Fix every field listed in validationErrors (each path is a JSONPath into your body); the rules are in docs/api.md#the-request-pipeline-and-errors",
	}
}

// ErrorCode returns the catalogue code of err, or "" when err is internal.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// ErrTenantUnavailable is TenantUnavailable: the store cannot open or read
// the tenant's data; problem says why (the store's log names the file).
func ErrTenantUnavailable(problem string) *Error {
	return Errorf(CodeTenantUnavailable, "This tenant's data cannot be opened: %s", problem).
		WithRecovery("Other tenants are unaffected. The server's log names the file; restore it from a backup or remove it and reset the tenant.")
}

// ErrTenantDataLost is TenantUnavailable for a tenant known to have
// committed data whose file lost some of it (problem: it is missing, or
// ends before its last fsynced commit): the tenant stays unavailable, never
// empty or shorter, until an operator accepts the loss.
func ErrTenantDataLost(problem, tenantID string) *Error {
	return Errorf(CodeTenantUnavailable, "This tenant's data cannot be opened: %s", problem).
		WithRecovery("Other tenants are unaffected. The server's log names the file: restore it from a backup, or accept the loss (paysandbox tenants accept-loss " + tenantID + ", admin key) to open the tenant with what its file has.")
}

// ErrRecordUnreadable is RecordUnreadable: the stored record at key does
// not decode (damaged on disk).
func ErrRecordUnreadable(key string) *Error {
	return Errorf(CodeRecordUnreadable, "A stored record of this tenant cannot be read: %s", key).
		WithRecovery("Other records are unaffected: lists skip it and name it in a Sandbox-Warning header, and a snapshot export leaves it out. Restore the tenant's file from a backup, or import an export into a new tenant.")
}

// ErrStorageFull is StorageFull: a write failed for lack of disk space and
// was not stored; problem is the system's word for it ("no space left on
// device"; the store's log names the file).
func ErrStorageFull(problem string) *Error {
	return Errorf(CodeStorageFull, "This change could not be stored: the sandbox's disk is full (%s); it was not applied", problem).
		WithRecovery("Reads keep working. Free disk space on the sandbox's server (its log names the file), then send the request again.")
}

// The common errors, each a new *Error with the vendor's wording.

// ErrPaymentNotFound is PaymentError: the payment is unknown to the tenant.
func ErrPaymentNotFound() *Error {
	return Errorf(CodePaymentError, "The payment could not be found")
}

// ErrInvalidToken is InvalidPaymentInstrumentToken: the token is unknown,
// used, invalidated or deleted.
func ErrInvalidToken() *Error {
	return Errorf(CodeInvalidPaymentInstrumentToken, "Invalid payment instrument.").
		WithRecovery("Tokenise the payment method again, or use a vaulted token of this customer.")
}

// ErrClientToken is ClientSessionValidationError: the client token is
// unknown or expired.
func ErrClientToken() *Error {
	return Errorf(CodeClientSessionValidationError, "The client token is invalid.").
		WithRecovery("Please provide a valid client token.")
}
