package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/internal/forwarded"
	"github.com/paysandbox/paysandbox/simulator"
)

// requestLog gives every request its id (X-Request-Id, the diagnosticsId of
// its errors) and writes one log line when it ends.
func (s *Server) requestLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		rid := uuid.NewString()
		c.Set(ctxRequestID, rid)
		c.Set(ctxTrust, s.opt.Trust)
		c.Response().Header().Set("X-Request-Id", rid)
		cw := s.journalStart(c)
		err := recovered(next, c)
		if err != nil {
			s.e.HTTPErrorHandler(err, c)
		}
		s.journalEnd(c, cw, start)
		s.logRequest(c, start, rid)
		return nil
	}
}

// logRequest writes a request's line: nothing is formatted or boxed when
// the logger drops Info, and its attributes stay on the stack otherwise.
func (s *Server) logRequest(c echo.Context, start time.Time, rid string) {
	ctx := context.Background()
	if !s.log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	r := c.Request()
	var buf [8]slog.Attr
	attrs := append(buf[:0],
		slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", c.Response().Status), slog.String("latency", time.Since(start).Round(time.Microsecond).String()),
		slog.Any("client", clientAddr{r, s.opt.Trust}),
	)
	if t := tenantOf(c); t != nil {
		attrs = append(attrs, slog.String("tenant", t.ID))
	}
	if code, _ := c.Get(ctxErrorCode).(string); code != "" {
		attrs = append(attrs, slog.String("errorId", code), slog.String("diagnosticsId", rid))
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
}

// clientAddr logs the client's address (forwarded.Trust.ClientIP), worked
// out only when the line is written.
type clientAddr struct {
	r     *http.Request
	trust *forwarded.Trust
}

func (a clientAddr) LogValue() slog.Value { return slog.StringValue(a.trust.ClientIP(a.r)) }

// recovered runs next and turns a panic into an internal error (500
// InternalError, logged with its diagnosticsId) instead of a dropped connection.
func recovered(next echo.HandlerFunc, c echo.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return next(c)
}

// auth resolves X-API-KEY to the tenant and checks the scope ("" = any key).
func (s *Server) auth(scope simulator.Scope) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			t, key, err := s.svc.Authenticate(c.Request().Header.Get("X-Api-Key")) // X-API-KEY in canonical form: looked up without a copy of the name
			if err != nil {
				return err
			}
			c.Set(ctxTenant, t)
			if scope != "" && !key.Has(scope) {
				return simulator.Errorf(simulator.CodeForbidden, "The API key lacks the scope %s", scope).
					WithRecovery("Use a key with the " + string(scope) + " scope.")
			}
			return next(c)
		}
	}
}

// version requires X-API-VERSION: 2.4.
func version(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if v := c.Request().Header.Get("X-Api-Version"); v != "2.4" {
			e := simulator.Errorf(simulator.CodeUnsupportedAPIVersion, "The X-API-VERSION header must be 2.4")
			if v == "" {
				e.Message = "The X-API-VERSION header is missing; it must be 2.4"
			}
			return e.WithRecovery("Send the header X-API-VERSION: 2.4.")
		}
		return next(c)
	}
}

// readBody reads the whole body (at most MaxBody, else 413) for the handler.
func readBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.ContentLength > MaxBody {
			return errTooLarge()
		}
		if r.Body == nil || r.Body == http.NoBody {
			c.Set(ctxBody, []byte{}) // what reading it would give, without the read's buffer
			return next(c)
		}
		if rb, ok := r.Body.(*receivedBody); ok {
			if b, whole := rb.whole(); whole && len(b) <= MaxBody {
				c.Set(ctxBody, b)
				return next(c)
			}
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
		if err != nil {
			return simulator.Errorf(simulator.CodeBadRequest, "The request body could not be read")
		}
		if len(b) > MaxBody {
			return errTooLarge()
		}
		c.Set(ctxBody, b)
		return next(c)
	}
}

// cors lets a browser checkout call /client/*.
func cors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "X-Request-Id")
		return next(c)
	}
}

func preflight(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type, X-Client-Token, X-Idempotency-Key, X-API-VERSION")
	h.Set("Access-Control-Max-Age", "600")
	return c.NoContent(http.StatusNoContent)
}

func jsonBytes(v any) ([]byte, error) {
	var buf bytes.Buffer
	c := newJSONEncoder(&buf)
	err := c.Encode(v)
	return bytes.TrimRight(buf.Bytes(), "\n"), err
}
