package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
)

// TestStatusOfCoversCatalogue: the one code->status table has exactly the
// catalogue's codes, each with an error status (the resume 202 aside).
func TestStatusOfCoversCatalogue(t *testing.T) {
	seen := map[simulator.Code]bool{}
	for _, c := range simulator.Codes {
		assert.False(t, seen[c], "%s is listed twice in simulator.Codes", c)
		seen[c] = true
		st, ok := statusOf[c]
		if assert.True(t, ok, "%s has no status in statusOf", c) && c != simulator.CodeNoActionsToHandle {
			assert.GreaterOrEqual(t, st, 400, "%s", c)
			assert.Less(t, st, 600, "%s", c)
		}
	}
	for c := range statusOf {
		assert.True(t, seen[c], "statusOf has %s, which is not in simulator.Codes", c)
	}
	assert.Len(t, statusOf, len(simulator.Codes))
}

// TestStatusOfPinned pins the statuses that docs/api.md and the spec state.
func TestStatusOfPinned(t *testing.T) {
	want := map[simulator.Code]int{
		simulator.CodeBadRequest: 400, simulator.CodeUnauthorized: 401, simulator.CodeForbidden: 403,
		simulator.CodeUnsupportedAPIVersion: 400, simulator.CodePayloadTooLarge: 413, simulator.CodeNotFound: 404,
		simulator.CodeMethodNotAllowed: 405, simulator.CodeRequestValidationError: 422, simulator.CodeRequestTimeout: 504,
		simulator.CodeTooManyRequests: 429, simulator.CodeInternalError: 500,
		simulator.CodeClientSessionValidationError: 400, simulator.CodeMetadataContainsEmptyKey: 400,
		simulator.CodeInvalidPaymentInstrumentToken: 400, simulator.CodeFailedVerification: 400,
		simulator.CodePaymentError: 400, simulator.CodePaymentNotFoundError: 404, simulator.CodePaymentAlreadyAuthorized: 400,
		simulator.CodeInvalidPaymentStatus: 400, simulator.CodeIdempotencyKeyAlreadyExists: 409,
		simulator.CodePaymentAlreadyRefunded: 409, simulator.CodeUnprocessableRefundAmount: 422,
		simulator.CodePaymentAttemptNotFound: 404, simulator.CodeClientSessionNotManual: 409,
		simulator.CodeInvalidPaymentAttemptTransition: 409, simulator.CodePaymentAttemptExpired: 410,
		simulator.CodeScenarioValidationError: 422, simulator.CodeWaitTimeout: 408,
	}
	for c, st := range want {
		assert.Equal(t, st, statusOf[c], "%s", c)
	}
}

// newBareServer is the real Server (middleware, error handler, routes) with
// no service behind it; tests add their own routes to s.e.
func newBareServer(t *testing.T, opt Options) (*Server, *apitest.SyncBuffer, *httptest.Server) {
	t.Helper()
	logs := &apitest.SyncBuffer{}
	opt.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := New(nil, opt)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, logs, ts
}

type answer struct {
	status int
	header http.Header
	body   []byte
	err    map[string]any
}

func call(t *testing.T, method, url string, body string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	out := answer{status: res.StatusCode, header: res.Header, body: raw}
	var env map[string]map[string]any
	if json.Unmarshal(raw, &env) == nil {
		out.err = env["error"]
	}
	return out
}

// TestHandleErrorBody: every error leaves through handleError as
// {"error": {errorId, description, recoverySuggestion?, diagnosticsId,
// validationErrors?, paymentId?, paymentStatus?}}.
func TestHandleErrorBody(t *testing.T) {
	s, logs, ts := newBareServer(t, Options{})
	fail := func(err error) echo.HandlerFunc { return func(echo.Context) error { return err } }
	s.e.GET("/t/catalogue", fail(simulator.Errorf(simulator.CodeClientSessionValidationError, "The client token is invalid.").WithRecovery("Please provide a valid client token.")))
	s.e.GET("/t/wrapped", fail(errors.Join(errors.New("context"), simulator.Errorf(simulator.CodeForbidden, "no scope"))))
	s.e.GET("/t/validation", fail(simulator.ValidationError("ClientSessionAPIRequest",
		simulator.FieldError{Path: "$.amount", Description: "Value must be a valid integer"},
		simulator.FieldError{Path: "$.bogusField", Description: "Extra fields not permitted"})))
	s.e.GET("/t/payment", fail(simulator.Errorf(simulator.CodeIdempotencyKeyAlreadyExists, "used").WithPayment(&simulator.Payment{ID: "pay1", Status: simulator.StatusAuthorized})))
	s.e.GET("/t/internal", fail(errors.New("disk on fire: /secret/path")))
	s.e.GET("/t/panic", func(echo.Context) error { panic("boom") })
	s.e.GET("/t/unknown-code", fail(simulator.Errorf("NoSuchCode", "?")))

	tests := []struct {
		path    string
		status  int
		want    map[string]any // exact error object, diagnosticsId aside
		logged  bool           // the diagnosticsId is in the log as an internal error
		headers map[string]string
	}{
		{path: "/t/catalogue", status: 400, want: map[string]any{"errorId": "ClientSessionValidationError", "description": "The client token is invalid.", "recoverySuggestion": "Please provide a valid client token."}},
		{path: "/t/wrapped", status: 403, want: map[string]any{"errorId": "Forbidden", "description": "no scope"}},
		{path: "/t/validation", status: 422, want: map[string]any{
			"errorId": "RequestValidationError", "description": "We were unable to validate your request, please check your payload against the validationErrors listed",
			"recoverySuggestion": "Fix every field listed in validationErrors (each path is a JSONPath into your body); the rules are in docs/api.md#the-request-pipeline-and-errors",
			"validationErrors": []any{map[string]any{"model": "ClientSessionAPIRequest", "errors": []any{
				map[string]any{"path": "$.amount", "description": "Value must be a valid integer"},
				map[string]any{"path": "$.bogusField", "description": "Extra fields not permitted"},
			}}},
		}},
		{path: "/t/payment", status: 409, want: map[string]any{"errorId": "IdempotencyKeyAlreadyExists", "description": "used", "paymentId": "pay1", "paymentStatus": "AUTHORIZED"}},
		{path: "/t/internal", status: 500, logged: true, want: map[string]any{"errorId": "InternalError", "description": "An internal error occurred; quote the diagnosticsId to support"}},
		{path: "/t/panic", status: 500, logged: true, want: map[string]any{"errorId": "InternalError", "description": "An internal error occurred; quote the diagnosticsId to support"}},
		{path: "/t/unknown-code", status: 500, want: map[string]any{"errorId": "NoSuchCode", "description": "?"}},
		{path: "/t/nothing-here", status: 404, want: map[string]any{"errorId": "NotFound", "description": "No such route"}},
		{path: "/t/catalogue/", status: 400, want: map[string]any{"errorId": "ClientSessionValidationError", "description": "The client token is invalid.", "recoverySuggestion": "Please provide a valid client token."}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := call(t, "GET", ts.URL+tc.path, "")
			require.Equal(t, tc.status, r.status, "%s", r.body)
			assert.Equal(t, "application/json", r.header.Get("Content-Type"))
			require.NotNil(t, r.err, "envelope: %s", r.body)
			rid := r.header.Get("X-Request-Id")
			require.NotEmpty(t, rid)
			assert.Equal(t, rid, r.err["diagnosticsId"])
			got := map[string]any{}
			for k, v := range r.err {
				if k != "diagnosticsId" {
					got[k] = v
				}
			}
			assert.Equal(t, tc.want, got)
			assert.NotContains(t, string(r.body), "/secret/path", "internal details stay in the log")
			if tc.logged {
				assert.Contains(t, logs.String(), "diagnosticsId="+rid)
			}
		})
	}

	t.Run("405 carries Allow", func(t *testing.T) {
		r := call(t, "POST", ts.URL+"/t/catalogue", "")
		require.Equal(t, 405, r.status, "%s", r.body)
		assert.Equal(t, "MethodNotAllowed", r.err["errorId"])
		assert.Contains(t, r.header.Get("Allow"), "GET")
	})
}

// TestTimeoutMiddleware: past RequestTimeout the caller gets 504
// RequestTimeout in the error envelope at once; the handler's work still
// runs to its end, and its late answer is dropped.
func TestTimeoutMiddleware(t *testing.T) {
	s, logs, ts := newBareServer(t, Options{RequestTimeout: 100 * time.Millisecond})
	var finished atomic.Bool
	done := make(chan struct{})
	release := make(chan struct{}) // the work ends only once the 504 is in
	s.e.POST("/t/slow", func(c echo.Context) error {
		defer close(done)
		_, hasDeadline := c.Request().Context().Deadline()
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		finished.Store(hasDeadline)
		return c.JSON(http.StatusOK, map[string]string{"late": "answer"})
	}, readBody, s.timeout)
	s.e.POST("/t/fast", func(c echo.Context) error {
		c.Response().Header().Set("X-Handler", "yes")
		return c.JSON(http.StatusCreated, map[string]int{"n": len(body(c))})
	}, readBody, s.timeout)
	s.e.POST("/t/fast-error", func(echo.Context) error {
		return simulator.Errorf(simulator.CodeForbidden, "nope")
	}, readBody, s.timeout)
	s.e.POST("/t/panic", func(echo.Context) error { panic("kaboom") }, readBody, s.timeout)

	// The work cannot end before the answer is in: a 504 here was answered
	// at the timeout, not after the work.
	r := call(t, "POST", ts.URL+"/t/slow", `{}`)
	close(release)
	require.Equal(t, http.StatusGatewayTimeout, r.status, "%s", r.body)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	require.NotNil(t, r.err, "%s", r.body)
	assert.Equal(t, "RequestTimeout", r.err["errorId"])
	assert.Contains(t, r.err["description"], "100ms")
	assert.NotEmpty(t, r.err["recoverySuggestion"])
	assert.Equal(t, r.header.Get("X-Request-Id"), r.err["diagnosticsId"])
	assert.NotContains(t, string(r.body), "late")

	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler never finished")
	}
	assert.True(t, finished.Load(), "the late work ran to its end, with the deadline in its context")
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "errorId=RequestTimeout") }, 5*time.Second, 5*time.Millisecond)

	t.Run("in time", func(t *testing.T) {
		r := call(t, "POST", ts.URL+"/t/fast", `{"a":1}`)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		assert.Equal(t, "yes", r.header.Get("X-Handler"))
		assert.JSONEq(t, `{"n":7}`, string(r.body))
	})
	t.Run("panic in time", func(t *testing.T) {
		r := call(t, "POST", ts.URL+"/t/panic", `{}`)
		require.Equal(t, http.StatusInternalServerError, r.status, "%s", r.body)
		assert.Equal(t, "InternalError", r.err["errorId"])
		assert.NotContains(t, string(r.body), "kaboom")
		assert.Contains(t, logs.String(), "kaboom", "the panic is in the log")
	})
	t.Run("error in time", func(t *testing.T) {
		r := call(t, "POST", ts.URL+"/t/fast-error", `{}`)
		require.Equal(t, http.StatusForbidden, r.status, "%s", r.body)
		assert.Equal(t, "Forbidden", r.err["errorId"])
	})
}
