package webhooks

import (
	"context"

	"github.com/paysandbox/paysandbox/simulator"
)

// Tracer makes the span of each delivery attempt (the tracing package
// implements it over OpenTelemetry; Options.Tracer nil: no span and no
// traceparent header, the webhook request unchanged).
type Tracer interface {
	// Delivery starts the span of an attempt at ev to endpoint: a child of
	// the trace context the event keeps (ev.TraceParent, the request or
	// job that caused it) and linked to it, linked to ctx's span when that
	// is another trace. The returned context carries the span.
	Delivery(ctx context.Context, ev *simulator.Event, endpoint string) (context.Context, DeliverySpan)
}

// DeliverySpan is the span of one attempt.
type DeliverySpan interface {
	// TraceParent is the span as a W3C traceparent header value, sent
	// with the attempt so that the receiver's trace joins it.
	TraceParent() string
	// End ends the span with the attempt made.
	End(a simulator.DeliveryAttempt)
}
