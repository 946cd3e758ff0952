package service

import (
	"context"

	"github.com/paysandbox/paysandbox/simulator"
)

// Tracer is the tracing port of the use cases (the tracing package implements
// it over OpenTelemetry). Without one (Config.Tracer nil) nothing is traced
// and no span is allocated: every helper below checks for nil first.
type Tracer interface {
	// Start starts a span named name, a child of ctx's span (the root of a
	// new trace when ctx carries none); the returned context carries it.
	Start(ctx context.Context, name string) (context.Context, Span)
	// Traced reports whether ctx carries a span.
	Traced(ctx context.Context) bool
	// TraceParent is ctx's span as a W3C traceparent ("" when none): what
	// an event keeps of the request or job that caused it.
	TraceParent(ctx context.Context) string
}

// Span is one span of a Tracer.
type Span interface {
	SetAttr(key, value string)
	SetInt(key string, value int64)
	// End ends the span; err (nil: none) is what the step answered.
	End(err error)
}

// Span names (attributes are set where the spans start).
const (
	spanRuleMatch = "scenario.match"
	spanProcessor = "processor."
	spanCommit    = "store.commit"
	spanJob       = "job "
)

// span starts span name under ctx; (ctx, nil) without a tracer.
func (s *Service) span(ctx context.Context, name string) (context.Context, Span) {
	if s.tracer == nil {
		return ctx, nil
	}
	return s.tracer.Start(ctx, name)
}

// endSpan ends sp (nil: nothing) with err.
func endSpan(sp Span, err error) {
	if sp != nil {
		sp.End(err)
	}
}

// update is Store.Update as one store.commit span of ctx's trace (none
// outside a trace or without a tracer). The events fn appends keep ctx's
// span as their trace context (Event.TraceParent), so that their webhook
// deliveries join the trace of the request or job that caused them.
func (s *Service) update(ctx context.Context, fn func(tx simulator.Tx) error) error {
	if s.tracer == nil || ctx == nil || !s.tracer.Traced(ctx) {
		return s.Store.Update(fn)
	}
	cause := s.tracer.TraceParent(ctx)
	_, sp := s.tracer.Start(ctx, spanCommit)
	err := s.Store.Update(func(tx simulator.Tx) error { return fn(tracedTx{Tx: tx, cause: cause}) })
	sp.End(err)
	return err
}

// tracedTx is a Tx whose appended events keep the trace context cause.
type tracedTx struct {
	simulator.Tx
	cause string
}

func (t tracedTx) AppendEvent(e *simulator.Event) error {
	if e.TraceParent == "" {
		e.TraceParent = t.cause
	}
	return t.Tx.AppendEvent(e)
}

// decide asks the processor for an authorize decision (the scenario rule
// that matches p) under a scenario.match span.
func (s *Service) decide(ctx context.Context, tenantID string, p *simulator.Payment) simulator.AuthorizeDecision {
	if s.tracer == nil {
		return s.Processor.Authorize(ctx, tenantID, p)
	}
	ctx, sp := s.tracer.Start(ctx, spanRuleMatch)
	d := s.Processor.Authorize(ctx, tenantID, p)
	sp.SetAttr("paysandbox.payment.id", p.ID)
	sp.SetAttr("paysandbox.scenario.rule", d.Rule)
	if d.Why != "" {
		sp.SetAttr("paysandbox.scenario.why", d.Why)
	}
	sp.SetInt("paysandbox.scenario.steps", int64(len(d.Steps)))
	sp.End(nil)
	return d
}

// processorSpan starts the span of one processor call (authorize, capture,
// refund) for payment p at account acct; nil without a tracer.
func (s *Service) processorSpan(ctx context.Context, op string, p *simulator.Payment, acct string) Span {
	if s.tracer == nil || ctx == nil {
		return nil
	}
	_, sp := s.tracer.Start(ctx, spanProcessor+op)
	sp.SetAttr("paysandbox.payment.id", p.ID)
	if acct != "" {
		sp.SetAttr("paysandbox.processor.name", acct)
	}
	return sp
}

// endProcessorSpan ends a processor call's span with its outcome.
func endProcessorSpan(sp Span, status simulator.PaymentStatus, r *simulator.StatusReason) {
	if sp == nil {
		return
	}
	sp.SetAttr("paysandbox.processor.status", string(status))
	if r != nil {
		sp.SetAttr("paysandbox.processor.reason", r.Code)
		if r.DeclineType != "" {
			sp.SetAttr("paysandbox.processor.decline_type", r.DeclineType)
		}
	}
	sp.End(nil)
}
