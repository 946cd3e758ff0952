package httpapi

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// requestLog gives every request its id (X-Request-Id, the diagnosticsId of
// its errors) and writes one log line when it ends.
func (s *Server) requestLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		rid := simulator.RandomIDs{}.NewID(simulator.IDUUID)
		notesOf(c).requestID = rid
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
		slog.String("client", s.opt.Trust.ClientIP(r)),
	)
	if t := tenantOf(c); t != nil {
		attrs = append(attrs, slog.String("tenant", t.ID))
	}
	if code, _ := c.Get(ctxErrorCode).(string); code != "" {
		attrs = append(attrs, slog.String("errorId", code), slog.String("diagnosticsId", rid))
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
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
			key, err := s.authenticate(c)
			if err != nil {
				return err
			}
			if scope != "" && !key.Has(scope) {
				return simulator.Errorf(simulator.CodeForbidden, "The API key lacks the scope %s", scope).
					WithRecovery("Use a key with the " + string(scope) + " scope.")
			}
			return next(c)
		}
	}
}

// authenticate resolves X-API-KEY to the request's tenant (kept for the
// handler) and returns the key's record.
func (s *Server) authenticate(c echo.Context) (simulator.APIKey, error) {
	t, key, err := s.svc.Authenticate(c.Request().Header.Get("X-Api-Key")) // X-API-KEY in canonical form: looked up without a copy of the name
	if err != nil {
		return key, err
	}
	setTenant(c, t)
	return key, nil
}

// authEveryScope is auth for what reveals or changes credentials or destroys
// data: the key must hold every scope, or come with the sandbox's admin key
// in X-Admin-Key (an operator acting with a team's key); any other key gets
// 403 Forbidden naming the scopes it lacks. action names what is refused
// ("Resetting the tenant"); when, if not nil, says whether this request is
// such an action (a snapshot is one only with its secrets).
func (s *Server) authEveryScope(action string, when func(echo.Context) bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			key, err := s.authenticate(c)
			if err != nil {
				return err
			}
			if when != nil && !when(c) {
				return next(c)
			}
			if missing := key.MissingScopes(); len(missing) > 0 && !s.adminKeyOK(c) {
				e := simulator.ErrLacksScopes(missing, action)
				if c.Request().Header.Get("X-Admin-Key") != "" {
					e.Message += " (the X-Admin-Key sent is not this sandbox's admin key)"
				}
				return e.WithRecovery("Use a key of this tenant that holds every scope, or send the sandbox's admin key in the X-Admin-Key header.")
			}
			return next(c)
		}
	}
}

// adminKeyOK reports whether X-Admin-Key carries the sandbox's admin key
// (never when it has none).
func (s *Server) adminKeyOK(c echo.Context) bool {
	return s.opt.AdminKey != "" && subtle.ConstantTimeCompare([]byte(c.Request().Header.Get("X-Admin-Key")), []byte(s.opt.AdminKey)) == 1
}

// versionOf is the version the request was made with; the current version
// on routes without a version header.
func versionOf(c echo.Context) simulator.APIVersion {
	return notesOf(c).version.Or()
}

// VersionNotesPath is the page the Link of a deprecated version's answer
// names (served by the binary, no key needed).
const VersionNotesPath = simulator.VersionNotesPath

// Deprecation headers of the versions before 2.4: RFC 9745 (a structured
// date), RFC 8594 (an HTTP-date) and the link to the version notes.
var (
	deprecationValue = "@" + strconv.FormatInt(simulator.APIVersionDeprecated.Unix(), 10)
	sunsetValue      = simulator.APIVersionSunset.Format(http.TimeFormat)
	deprecationLink  = "<" + VersionNotesPath + `>; rel="deprecation"; type="application/json"`
)

// setDeprecation sets the Deprecation, Sunset and Link headers of an answer
// to an older version.
func setDeprecation(h http.Header) {
	h.Set("Deprecation", deprecationValue)
	h.Set("Sunset", sunsetValue)
	h.Set("Link", deprecationLink)
}

// version requires X-API-VERSION (either spelling: header names are
// case-insensitive) to be one of the versions served and keeps it for the
// handler, the timeout and the journal. Older versions answer with
// Deprecation, Sunset and Link headers; op's Gate versions answer 404 as
// unknown routes do, and on an Idempotent op a reused key answers as each
// version does.
func version(op simulator.Operation) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Request().Header.Get("X-Api-Version")
			v, ok := simulator.ParseAPIVersion(h)
			if !ok {
				e := simulator.Errorf(simulator.CodeUnsupportedAPIVersion, "The X-API-VERSION header must be %s", simulator.AcceptedAPIVersions())
				if h == "" {
					e.Message = "The X-API-VERSION header is missing; it must be " + simulator.AcceptedAPIVersions()
					addHint(c, HintMissingAPIVersion, c.Request().Method+" "+c.Request().URL.Path+" was sent without X-API-VERSION; production would serve it with the earliest version ("+string(simulator.EarliestAPIVersion)+")")
				}
				return e.WithRecovery("Send the header X-API-VERSION: " + string(simulator.CurrentAPIVersion) + " (or an older version you are pinned to).")
			}
			notesOf(c).version = v
			if v.Deprecated() {
				setDeprecation(c.Response().Header())
				if op.Gate != "" && v.Has(op.Gate) {
					addMigration(c, op.Gate, c.Request().Method+" "+c.Path()+" answers 404 on "+string(v)+"; 2.4 serves it")
					return echo.ErrNotFound
				}
			}
			err := next(c)
			if err != nil && op.Idempotent && v.Has(simulator.DiffIdempotency400) {
				if legacy := legacyIdempotencyError(err, c.Request().Header.Get("X-Idempotency-Key")); legacy != err {
					addMigration(c, simulator.DiffIdempotency400, "This reused idempotency key answers 409 IdempotencyKeyAlreadyExists on 2.4, 400 TransactionRequestIdempotencyKeyAlreadyExists on "+string(v))
					err = legacy
				}
			}
			return err
		}
	}
}

// legacyIdempotencyError is a reused key's error as versions before 2.3
// answer it (400 TransactionRequestIdempotencyKeyAlreadyExists, as the
// vendor OpenAPI shows it, keeping paymentId and paymentStatus); any other
// error is returned as it is.
func legacyIdempotencyError(err error, key string) error {
	var e *simulator.Error
	if !errors.As(err, &e) || e.Code != simulator.CodeIdempotencyKeyAlreadyExists {
		return err
	}
	out := simulator.Errorf(simulator.CodeTransactionRequestIdempotencyKeyAlreadyExists, "Transaction request already exists with idempotency key '%s'.", key)
	out.PaymentID, out.PaymentStatus = e.PaymentID, e.PaymentStatus
	return out
}

// readBody reads the whole body (at most MaxBody, else 413) for the handler.
var readBody = readBodyUpTo(MaxBody, errTooLarge)

// readBodyUpTo reads the whole body (at most max, else tooLarge's 413) for
// the handler.
func readBodyUpTo(max int64, tooLarge func() *simulator.Error) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc { return bodyReader(next, max, tooLarge) }
}

func bodyReader(next echo.HandlerFunc, max int64, tooLarge func() *simulator.Error) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.ContentLength > max {
			return tooLarge()
		}
		if r.Body == nil || r.Body == http.NoBody {
			setBody(c, []byte{}) // what reading it would give, without the read's buffer
			return next(c)
		}
		if rb, ok := r.Body.(*receivedBody); ok {
			if b, whole := rb.whole(); whole && int64(len(b)) <= max {
				setBody(c, b)
				return next(c)
			}
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
		if err != nil {
			return simulator.Errorf(simulator.CodeBadRequest, "The request body could not be read")
		}
		if int64(len(b)) > max {
			return tooLarge()
		}
		setBody(c, b)
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
