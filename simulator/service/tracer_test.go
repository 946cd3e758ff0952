package service_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// recTracer is a service.Tracer that records the spans started; a
// context's span is its name (the traceparent is "tp:" and the name).
type recTracer struct {
	mu    sync.Mutex
	spans []string
}

type spanKey struct{}

func (r *recTracer) Start(ctx context.Context, name string) (context.Context, service.Span) {
	r.mu.Lock()
	r.spans = append(r.spans, name)
	r.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, name), recSpan{}
}

func (r *recTracer) Traced(ctx context.Context) bool { return ctx.Value(spanKey{}) != nil }

func (r *recTracer) TraceParent(ctx context.Context) string {
	if name, ok := ctx.Value(spanKey{}).(string); ok {
		return "tp:" + name
	}
	return ""
}

func (r *recTracer) started() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.spans...)
}

type recSpan struct{}

func (recSpan) SetAttr(string, string) {}
func (recSpan) SetInt(string, int64)   {}
func (recSpan) End(error)              {}
func traced(name string) context.Context {
	return context.WithValue(context.Background(), spanKey{}, name)
}

// Inside a trace, a payment's events keep the trace context of the request
// that caused them, through every way the store reads and rewrites an
// event; the steps are spans. Outside a trace nothing is kept.
func TestEventsKeepTheirCause(t *testing.T) {
	tr := &recTracer{}
	e := newSvcEnvConfig(t, nil, service.Config{Tracer: tr})
	tk := e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
	p, err := e.svc.CreatePayment(traced("request"), e.t, service.PaymentRequest{Token: tk.Instrument.Token})
	require.NoError(t, err)
	assert.Equal(t, []string{"scenario.match", "store.commit", "processor.authorize"}, tr.started())

	listed, err := e.svc.Events(e.t, simulator.EventQuery{PaymentID: p.ID})
	require.NoError(t, err)
	require.Len(t, listed, 2, "PENDING, then AUTHORIZED")
	for _, ev := range listed {
		assert.Equal(t, "tp:request", ev.TraceParent, "listed")
		whole, err := e.svc.Event(e.t, ev.ID)
		require.NoError(t, err)
		assert.Equal(t, "tp:request", whole.TraceParent, "read whole")
		rec, err := e.svc.RecordAttempt(e.t.ID, ev.ID, simulator.DeliveryAttempt{At: svcEpoch, StatusCode: 200})
		require.NoError(t, err)
		assert.Equal(t, "tp:request", rec.TraceParent, "rewritten with an attempt")
		again, err := e.svc.Event(e.t, ev.ID)
		require.NoError(t, err)
		assert.Equal(t, "tp:request", again.TraceParent, "read after the attempt")
	}

	tk = e.tokenize(t, simulator.ApprovalAuto, 1000, cardOK)
	before := len(tr.started())
	p, err = e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tk.Instrument.Token})
	require.NoError(t, err)
	assert.NotContains(t, tr.started()[before:], "store.commit", "no commit span outside a trace")
	listed, err = e.svc.Events(e.t, simulator.EventQuery{PaymentID: p.ID})
	require.NoError(t, err)
	for _, ev := range listed {
		assert.Empty(t, ev.TraceParent)
	}
}
