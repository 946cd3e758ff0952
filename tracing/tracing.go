package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/webhooks"
)

// ServiceName is the service.name of every span the sandbox exports
// (OTEL_SERVICE_NAME overrides it, as the SDK's resource detection does).
const ServiceName = "paysandbox"

// The standard variables that turn tracing on when the flag is not set.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// tracesPath is where an OTLP/HTTP receiver takes traces under its base URL.
const tracesPath = "/v1/traces"

// On reports whether tracing is on: an endpoint is configured (the flag,
// its config key or PAYSANDBOX_OTEL_ENDPOINT), or one of the standard OTLP
// endpoint variables is set and not empty.
func On(endpoint string, env func(string) (string, bool)) bool {
	if endpoint != "" {
		return true
	}
	if env == nil {
		return false
	}
	for _, k := range []string{EnvTracesEndpoint, EnvEndpoint} {
		if v, ok := env(k); ok && v != "" {
			return true
		}
	}
	return false
}

// CheckEndpoint reports what is wrong with an --otel-endpoint value: it
// must be an http or https URL with a host ("": nothing, tracing follows
// the environment).
func CheckEndpoint(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// URL with a host, such as http://localhost:4318")
	}
	return nil
}

// Options configure New.
type Options struct {
	// Endpoint is the OTLP/HTTP receiver: a base URL (no path, as
	// OTEL_EXPORTER_OTLP_ENDPOINT) sends to its /v1/traces; a URL with a
	// path sends to that path (as OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
	// Empty: the exporter reads the standard OTEL_EXPORTER_OTLP_* variables.
	Endpoint string
	// Version is the service.version of the spans.
	Version string
	// Log receives the SDK's errors (an export that failed); nil: discarded.
	Log *slog.Logger
}

// Tracer makes the sandbox's spans and exports them in batches (the SDK's
// batch span processor) over OTLP/HTTP. Shutdown flushes what is queued.
type Tracer struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
}

var (
	_ service.Tracer  = (*Tracer)(nil)
	_ httpapi.Tracer  = (*Tracer)(nil)
	_ webhooks.Tracer = (*Tracer)(nil)
)

// traceContext reads and writes W3C traceparent headers.
var traceContext = propagation.TraceContext{}

// New makes a Tracer exporting to opt.Endpoint (or where the environment
// says). Nothing is sent until a span ends.
func New(opt Options) (*Tracer, error) {
	if err := CheckEndpoint(opt.Endpoint); err != nil {
		return nil, fmt.Errorf("otel_endpoint: %q %w", opt.Endpoint, err)
	}
	var eopts []otlptracehttp.Option
	if opt.Endpoint != "" {
		eopts = append(eopts, otlptracehttp.WithEndpointURL(opt.Endpoint))
		if u, _ := url.Parse(opt.Endpoint); u.Path == "" || u.Path == "/" {
			eopts = append(eopts, otlptracehttp.WithURLPath(tracesPath))
		}
	}
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, eopts...)
	if err != nil {
		return nil, fmt.Errorf("otel: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", ServiceName), attribute.String("service.version", opt.Version)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
	)
	if err != nil && res == nil {
		return nil, fmt.Errorf("otel: %w", err)
	}
	if opt.Log != nil {
		log := opt.Log
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing: exporting spans failed", "err", err) }))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracer{provider: tp, tracer: tp.Tracer("github.com/paysandbox/paysandbox")}, nil
}

// Flush exports every span ended so far.
func (t *Tracer) Flush(ctx context.Context) error { return t.provider.ForceFlush(ctx) }

// Shutdown exports what is queued and stops the exporter.
func (t *Tracer) Shutdown(ctx context.Context) error { return t.provider.Shutdown(ctx) }

// Start implements service.Tracer: a span named name, child of ctx's span
// (the root of a new trace when ctx carries none).
func (t *Tracer) Start(ctx context.Context, name string) (context.Context, service.Span) {
	ctx, sp := t.tracer.Start(ctx, name)
	return ctx, span{sp}
}

// Traced implements service.Tracer: whether ctx carries a span.
func (t *Tracer) Traced(ctx context.Context) bool {
	return trace.SpanContextFromContext(ctx).IsValid()
}

// TraceParent implements service.Tracer: ctx's span as a W3C traceparent
// ("" when ctx carries none).
func (t *Tracer) TraceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	traceContext.Inject(ctx, c)
	return c.Get("traceparent")
}

// Request implements httpapi.Tracer: the server span of r, named after its
// method and route template, continuing the traceparent r carries.
func (t *Tracer) Request(r *http.Request, route string) (context.Context, httpapi.RequestSpan) {
	ctx := traceContext.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	name := r.Method
	if route != "" {
		name += " " + route
	}
	ctx, sp := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("http.request.method", r.Method),
		attribute.String("http.route", route),
	))
	return ctx, requestSpan{sp}
}

// Delivery implements webhooks.Tracer: the client span of one attempt at
// ev, a child of the trace context the event keeps (the request or job
// that caused it) and linked to it, and linked to ctx's span too when the
// attempt runs inside another trace (a clock advance, a replay).
func (t *Tracer) Delivery(ctx context.Context, ev *simulator.Event, endpoint string) (context.Context, webhooks.DeliverySpan) {
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("http.request.method", http.MethodPost),
		attribute.String("paysandbox.tenant.id", ev.TenantID),
		attribute.String("paysandbox.event.id", ev.ID),
		attribute.String("paysandbox.event.type", ev.Type),
		attribute.String("paysandbox.payment.id", ev.PaymentID),
	)}
	if u, err := url.Parse(endpoint); err == nil {
		opts = append(opts, trace.WithAttributes(attribute.String("server.address", u.Hostname())))
	}
	parent := ctx
	cur := trace.SpanContextFromContext(ctx)
	if ev.TraceParent != "" {
		cause := trace.SpanContextFromContext(traceContext.Extract(context.Background(), propagation.MapCarrier{"traceparent": ev.TraceParent}))
		if cause.IsValid() {
			parent = trace.ContextWithRemoteSpanContext(ctx, cause)
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: cause, Attributes: []attribute.KeyValue{attribute.String("paysandbox.link", "cause")}}))
		}
	}
	if cur.IsValid() && trace.SpanContextFromContext(parent).TraceID() != cur.TraceID() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: cur, Attributes: []attribute.KeyValue{attribute.String("paysandbox.link", "attempted by")}}))
	}
	ctx, sp := t.tracer.Start(parent, "webhook "+ev.Type, opts...)
	return ctx, deliverySpan{sp, ctx}
}

// span is a service.Span.
type span struct{ sp trace.Span }

func (s span) SetAttr(key, value string)      { s.sp.SetAttributes(attribute.String(key, value)) }
func (s span) SetInt(key string, value int64) { s.sp.SetAttributes(attribute.Int64(key, value)) }

// End ends the span; an error of the catalogue (an answer the API gives)
// is an attribute, any other error marks the span failed.
func (s span) End(err error) {
	endWith(s.sp, err)
}

func endWith(sp trace.Span, err error) {
	if err != nil {
		if code := simulator.ErrorCode(err); code != "" {
			sp.SetAttributes(attribute.String("paysandbox.error.id", string(code)))
		} else {
			sp.SetStatus(codes.Error, err.Error())
		}
	}
	sp.End()
}

// requestSpan is an httpapi.RequestSpan.
type requestSpan struct{ sp trace.Span }

func (s requestSpan) End(status int, tenantID, apiVersion string) {
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, attribute.Int("http.response.status_code", status))
	if tenantID != "" {
		attrs = append(attrs, attribute.String("paysandbox.tenant.id", tenantID))
	}
	if apiVersion != "" {
		attrs = append(attrs, attribute.String("paysandbox.api.version", apiVersion))
	}
	s.sp.SetAttributes(attrs...)
	if status >= 500 {
		s.sp.SetStatus(codes.Error, http.StatusText(status))
	}
	s.sp.End()
}

// deliverySpan is a webhooks.DeliverySpan.
type deliverySpan struct {
	sp  trace.Span
	ctx context.Context
}

func (s deliverySpan) TraceParent() string {
	c := propagation.MapCarrier{}
	traceContext.Inject(s.ctx, c)
	return c.Get("traceparent")
}

func (s deliverySpan) End(a simulator.DeliveryAttempt) {
	if a.StatusCode != 0 {
		s.sp.SetAttributes(attribute.Int("http.response.status_code", a.StatusCode))
	}
	if a.Replay {
		s.sp.SetAttributes(attribute.Bool("paysandbox.webhook.replay", true))
	}
	if a.Chaos != "" {
		s.sp.SetAttributes(attribute.String("paysandbox.webhook.chaos", a.Chaos))
	}
	if !a.OK() {
		s.sp.SetStatus(codes.Error, a.Error)
	}
	s.sp.End()
}
