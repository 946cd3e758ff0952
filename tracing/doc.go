// Package tracing exports the sandbox's traces over OTLP/HTTP with the
// OpenTelemetry Go SDK (serve's --otel-endpoint, or the standard
// OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
//
// It is the only package that imports OpenTelemetry. Tracer implements the
// small tracing ports the adapters and the use cases declare where they use
// them: service.Tracer (rule matching, processor steps, store commits,
// scheduled jobs), httpapi.Tracer (a span per request, continuing an
// incoming W3C traceparent) and webhooks.Tracer (a span per delivery
// attempt, child of the trace context the event keeps, whose traceparent
// the webhook request carries). Without an endpoint the composition root
// makes no Tracer and hands the ports nil: nothing is traced and nothing is
// allocated for it.
//
// It is an adapter on the top floor, beside webhooks and dashboard: it
// imports the standard library, OpenTelemetry, simulator and the packages
// whose ports it implements (simulator/service, simulator/httpapi,
// webhooks); none of them imports it, only the composition root does.
package tracing
