package httpapi

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// statusOf is the one table from catalogue code to HTTP status.
var statusOf = map[simulator.Code]int{
	simulator.CodeBadRequest:             http.StatusBadRequest,
	simulator.CodeUnauthorized:           http.StatusUnauthorized,
	simulator.CodeForbidden:              http.StatusForbidden,
	simulator.CodeUnsupportedAPIVersion:  http.StatusBadRequest,
	simulator.CodePayloadTooLarge:        http.StatusRequestEntityTooLarge,
	simulator.CodeNotFound:               http.StatusNotFound,
	simulator.CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	simulator.CodeRequestValidationError: http.StatusUnprocessableEntity,
	simulator.CodeRequestTimeout:         http.StatusGatewayTimeout,
	simulator.CodeTooManyRequests:        http.StatusTooManyRequests,
	simulator.CodeTenantUnavailable:      http.StatusServiceUnavailable,
	simulator.CodeStorageFull:            http.StatusServiceUnavailable,
	simulator.CodeRecordUnreadable:       http.StatusServiceUnavailable,
	simulator.CodeInternalError:          http.StatusInternalServerError,

	simulator.CodeClientSessionValidationError:  http.StatusBadRequest,
	simulator.CodeMetadataContainsEmptyKey:      http.StatusBadRequest,
	simulator.CodeInvalidPaymentInstrumentToken: http.StatusBadRequest,
	simulator.CodeFailedVerification:            http.StatusBadRequest,

	simulator.CodePaymentError:                http.StatusBadRequest,
	simulator.CodePaymentNotFoundError:        http.StatusNotFound,
	simulator.CodePaymentAlreadyAuthorized:    http.StatusBadRequest,
	simulator.CodeInvalidPaymentStatus:        http.StatusBadRequest,
	simulator.CodeMerchantAccountNotFound:     http.StatusBadRequest,
	simulator.CodeMerchantAccountConflict:     http.StatusBadRequest,
	simulator.CodeIdempotencyKeyAlreadyExists: http.StatusConflict,
	simulator.CodePaymentAlreadyRefunded:      http.StatusConflict,
	simulator.CodeUnprocessableRefundAmount:   http.StatusUnprocessableEntity,

	simulator.CodeTransactionRequestIdempotencyKeyAlreadyExists: http.StatusBadRequest,
	simulator.CodeEntityNotFound:                                http.StatusNotFound,
	simulator.CodePaymentIsNotAuthorizedYet:                     http.StatusBadRequest,
	simulator.CodeIncorrectPaymentAuthorizationType:             http.StatusBadRequest,
	simulator.CodeAdjustAuthorizationNonCardPayment:             http.StatusBadRequest,
	simulator.CodeAdjustAuthorizationNotSupported:               http.StatusBadRequest,
	simulator.CodeNoActionsToHandle:                             http.StatusAccepted,

	simulator.CodePaymentAttemptNotFound:          http.StatusNotFound,
	simulator.CodeClientSessionNotManual:          http.StatusConflict,
	simulator.CodeInvalidPaymentAttemptTransition: http.StatusConflict,
	simulator.CodePaymentAttemptExpired:           http.StatusGone,

	simulator.CodeScenarioValidationError: http.StatusUnprocessableEntity,
	simulator.CodeWaitTimeout:             http.StatusRequestTimeout,
	simulator.CodeHeadersTooLarge:         http.StatusRequestHeaderFieldsTooLarge,
}

// errorBody is the error envelope {"error": {...}}.
type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	ErrorID            string            `json:"errorId"`
	Description        string            `json:"description"`
	RecoverySuggestion string            `json:"recoverySuggestion,omitempty"`
	DiagnosticsID      string            `json:"diagnosticsId,omitempty"`
	ValidationErrors   []validationError `json:"validationErrors,omitempty"`
	PaymentID          string            `json:"paymentId,omitempty"`
	PaymentStatus      string            `json:"paymentStatus,omitempty"`
}

type validationError struct {
	Model  string                 `json:"model"`
	Errors []simulator.FieldError `json:"errors"`
}

// toCatalogue turns any error into a catalogue error; echo's routing errors
// become NotFound, MethodNotAllowed and PayloadTooLarge; anything else is
// internal.
func toCatalogue(err error) (*simulator.Error, bool) {
	var se *simulator.Error
	if errors.As(err, &se) {
		return se, true
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return simulator.Errorf(simulator.CodeNotFound, "No such route"), true
		case http.StatusMethodNotAllowed:
			return simulator.Errorf(simulator.CodeMethodNotAllowed, "This route does not accept this method"), true
		case http.StatusRequestEntityTooLarge:
			return errTooLarge(), true
		}
	}
	return simulator.Errorf(simulator.CodeInternalError, "An internal error occurred; quote the diagnosticsId to support"), false
}

func errTooLarge() *simulator.Error {
	return simulator.Errorf(simulator.CodePayloadTooLarge, "The request body exceeds 1 MiB").WithRecovery("Send a smaller body.")
}

// handleError is echo's HTTPErrorHandler: every error body of the product is
// written here.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	se, known := toCatalogue(err)
	rid := requestID(c)
	if !known {
		s.log.Error("internal error", "err", err, "diagnosticsId", rid, "method", c.Request().Method, "path", c.Request().URL.Path)
	}
	c.Set(ctxErrorCode, string(se.Code))
	status, ok := statusOf[se.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if se.Code == simulator.CodeMethodNotAllowed {
		if allow, ok := c.Get(echo.ContextKeyHeaderAllow).(string); ok && allow != "" {
			c.Response().Header().Set("Allow", allow)
		}
		// The route check comes before the version middleware: a merchant
		// route's 405 to an older version carries its headers all the same.
		if v, ok := simulator.ParseAPIVersion(c.Request().Header.Get("X-Api-Version")); ok && v.Deprecated() && merchantPath(c.Path()) {
			setDeprecation(c.Response().Header())
		}
	}
	body := errorBody{Error: errorObject{
		ErrorID: string(se.Code), Description: se.Message, RecoverySuggestion: se.Recovery,
		DiagnosticsID: rid, PaymentID: se.PaymentID, PaymentStatus: se.PaymentStatus,
	}}
	if se.Code == simulator.CodeRequestTimeout && se.PaymentID != "" {
		// The same words as the request timeout's own 504 (whichever answers first).
		body.Error.RecoverySuggestion = timeoutRecovery(se.PaymentID, versionOf(c))
	}
	if len(se.Fields) > 0 {
		body.Error.ValidationErrors = []validationError{{Model: se.Model, Errors: se.Fields}}
	}
	_ = writeJSON(c, status, body)
}
