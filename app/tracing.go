package app

import (
	"context"

	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/tracing"
	"github.com/paysandbox/paysandbox/webhooks"
)

// appTracing is the tracer of --otel-endpoint (or the standard OTLP
// variables) as each of its users takes it: nil ports when tracing is off,
// so that none of them does any tracing work.
type appTracing struct {
	tracer *tracing.Tracer // nil: off
	// shutdown flushes and stops the exporter (the tracer's Shutdown).
	shutdown func(context.Context) error
	service  service.Tracer
	http     httpapi.Tracer
	webhooks webhooks.Tracer
}

// openTracing makes the tracer when an endpoint is configured or the
// environment names one; the zero appTracing otherwise.
func openTracing(cfg Config, env func(string) (string, bool), opt tracing.Options) (appTracing, error) {
	if !tracing.On(cfg.OtelEndpoint, env) {
		return appTracing{}, nil
	}
	opt.Endpoint = cfg.OtelEndpoint
	t, err := tracing.New(opt)
	if err != nil {
		return appTracing{}, err
	}
	return appTracing{tracer: t, shutdown: t.Shutdown, service: t, http: t, webhooks: t}, nil
}

// close exports the spans still queued and stops the exporter, giving up
// when ctx is done (a collector that does not answer holds the stop no
// longer than its budget).
func (t appTracing) close(ctx context.Context) error {
	if t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}
