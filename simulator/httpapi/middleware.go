package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// requestLog gives every request its id (X-Request-Id, the diagnosticsId of
// its errors) and writes one log line when it ends.
func (s *Server) requestLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		rid := uuid.NewString()
		c.Set(ctxRequestID, rid)
		c.Response().Header().Set("X-Request-Id", rid)
		journalEnd := s.journalStart(c)
		err := recovered(next, c)
		if err != nil {
			s.e.HTTPErrorHandler(err, c)
		}
		journalEnd(start)
		attrs := []any{
			"method", c.Request().Method, "path", c.Request().URL.Path,
			"status", c.Response().Status, "latency", time.Since(start).Round(time.Microsecond).String(),
		}
		if t := tenantOf(c); t != nil {
			attrs = append(attrs, "tenant", t.ID)
		}
		if code, _ := c.Get(ctxErrorCode).(string); code != "" {
			attrs = append(attrs, "errorId", code, "diagnosticsId", rid)
		}
		s.log.Info("request", attrs...)
		return nil
	}
}

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
			t, key, err := s.svc.Authenticate(c.Request().Header.Get("X-API-KEY"))
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
		if v := c.Request().Header.Get("X-API-VERSION"); v != "2.4" {
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

// timeout answers 504 RequestTimeout when the handler runs past the request
// timeout. The handler's context carries the deadline; its work is not
// cancelled but goes on, and its late answer is dropped. The middleware waits
// for the handler before returning, so echo never reuses a context in use.
func (s *Server) timeout(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		d := s.opt.RequestTimeout
		if d <= 0 {
			return next(c)
		}
		ctx, cancel := context.WithTimeout(c.Request().Context(), d)
		defer cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		orig := c.Response().Writer
		bw := &bufferedWriter{header: http.Header{}}
		c.Response().Writer = bw
		done := make(chan error, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- fmt.Errorf("panic in handler: %v\n%s", r, debug.Stack())
				}
			}()
			done <- next(c)
		}()
		select {
		case err := <-done:
			c.Response().Writer = orig
			if err != nil && !c.Response().Committed {
				return err
			}
			bw.flushTo(orig)
			return nil
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) { // client went away
				err := <-done
				c.Response().Writer = orig
				if err != nil && !c.Response().Committed {
					return err
				}
				bw.flushTo(orig)
				return nil
			}
			bw.abandon()
			rid := requestID(c)
			body, _ := jsonBytes(errorBody{Error: errorObject{
				ErrorID:            string(simulator.CodeRequestTimeout),
				Description:        "The request exceeded the timeout of " + d.String() + "; the work it started goes on",
				RecoverySuggestion: "Use GET /payments/:paymentId (or /_sandbox/wait) to get the state of the payment",
				DiagnosticsID:      rid,
			}})
			h := orig.Header()
			h.Set("Content-Type", echo.MIMEApplicationJSON)
			h.Set("Content-Length", strconv.Itoa(len(body)))
			h.Set("Connection", "close")
			orig.WriteHeader(http.StatusGatewayTimeout)
			_, _ = orig.Write(body)
			if f, ok := orig.(http.Flusher); ok {
				f.Flush()
			}
			err := <-done // let the work finish before echo reuses c
			if err != nil {
				s.log.Debug("late handler error after timeout", "err", err, "diagnosticsId", rid)
			}
			c.Response().Writer = orig
			c.Response().Status, c.Response().Committed = http.StatusGatewayTimeout, true
			c.Set(ctxErrorCode, string(simulator.CodeRequestTimeout))
			return nil
		}
	}
}

func jsonBytes(v any) ([]byte, error) {
	var buf bytes.Buffer
	c := newJSONEncoder(&buf)
	err := c.Encode(v)
	return bytes.TrimRight(buf.Bytes(), "\n"), err
}

// bufferedWriter holds a handler's answer until it is known to be in time.
type bufferedWriter struct {
	mu        sync.Mutex
	header    http.Header
	status    int
	buf       bytes.Buffer
	abandoned bool
}

func (w *bufferedWriter) Header() http.Header { return w.header }

func (w *bufferedWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		w.status = code
	}
}

func (w *bufferedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.abandoned {
		return len(b), nil
	}
	return w.buf.Write(b)
}

func (w *bufferedWriter) abandon() {
	w.mu.Lock()
	w.abandoned = true
	w.mu.Unlock()
}

func (w *bufferedWriter) flushTo(dst http.ResponseWriter) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, v := range w.header {
		dst.Header()[k] = v
	}
	if w.status == 0 {
		return
	}
	dst.WriteHeader(w.status)
	_, _ = dst.Write(w.buf.Bytes())
}
