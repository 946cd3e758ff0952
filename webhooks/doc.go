// Package webhooks delivers the outbox. It renders webhook bodies with
// encoding/json (payload DTOs mapped field by field from what an event
// carries, in the webhook's own field names) whenever one is sent or
// shown, in the webhook version the event fixed when it was made (2.1-2.4;
// Differences in versions.go lists how the older ones differ from 2.4),
// and is the only one to set their signedAt; it signs them
// (X-Signature-Primary/Secondary), and runs the Dispatcher that POSTs them
// with retries on the tenant clock and records every attempt. Its Guard
// decides where deliveries may go (serve's --webhook-allow): the service
// asks it when an endpoint is set, and the dispatcher dials through it,
// never through an environment proxy. With Options.Tracer each attempt is a
// span of the trace that caused its event and the request carries its W3C
// traceparent (tracer.go; the tracing package implements the port); without
// one no header is added.
//
// It depends on simulator, simulator/service and internal/redact only
// (never on httpapi, store or echo), and reads and writes the outbox through
// the service's methods (Outbox, TenantOutbox, Event, RecordAttempt,
// PruneEvents), never a store transaction of its own; the composition root injects it into the
// service through the simulator.EventRenderer and service.WebhookRunner
// ports, both given to service.NewService in its Config: the service and its
// dispatcher need each other, so Config.Webhooks is a function (Attach) that
// NewService calls with the service it builds. Nothing is attached afterwards.
package webhooks
