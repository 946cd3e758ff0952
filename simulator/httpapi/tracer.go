package httpapi

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
)

// Tracer makes the span of each request (the tracing package implements it
// over OpenTelemetry). Options.Tracer nil: no span, no middleware.
type Tracer interface {
	// Request starts the span of r, named after its method and route
	// template, continuing the W3C traceparent r carries; the returned
	// context carries it to the handler and the service.
	Request(r *http.Request, route string) (context.Context, RequestSpan)
}

// RequestSpan is the span of one request.
type RequestSpan interface {
	// End ends it with the answer's status, the tenant (when the request
	// authenticated) and the API version it was made with ("" when none).
	End(status int, tenantID, apiVersion string)
}

// trace is the outermost middleware when Options.Tracer is set: one span
// per request, its context handed down in the request. The probes
// (/healthz, /readyz: a container's health check every few seconds) make
// none.
func (s *Server) trace(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if p := c.Path(); p == "/healthz" || p == "/readyz" {
			return next(c)
		}
		ctx, sp := s.opt.Tracer.Request(c.Request(), c.Path())
		c.SetRequest(c.Request().WithContext(ctx))
		err := next(c)
		tenantID := ""
		if t := tenantOf(c); t != nil {
			tenantID = t.ID
		}
		sp.End(c.Response().Status, tenantID, string(notesOf(c).version))
		return err
	}
}
