package service

import (
	"context"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// Tracer is the tracing port of the use cases (the tracing package
// implements it over OpenTelemetry). Config.Tracer makes it the first
// interceptor (tracing): the use cases start no span. Without one nothing
// is traced and nothing is allocated for it.
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

// tracing is the interceptor of a Tracer: a scenario.match span per
// authorize decision, a processor span per capture or refund decision and
// per processor step an authorization records, a store.commit span per
// write made for a traced step (whose events keep the step's trace
// context), a span per job.
type tracing struct{ tracer Tracer }

var _ observe.Interceptor = tracing{}

func (t tracing) Processor(p simulator.Processor) simulator.Processor {
	return tracedProcessor{Processor: p, tracer: t.tracer}
}

func (t tracing) Store(st simulator.Store) simulator.Store {
	return tracedStore{Store: st, tracer: t.tracer}
}

// Job makes job j a span: of the clock advance's trace when one runs it,
// else the root of its own trace.
func (t tracing) Job(ctx context.Context, j *simulator.Job, run func(ctx context.Context) error) (err error) {
	ctx, sp := t.tracer.Start(ctx, spanJob+string(j.Kind))
	sp.SetAttr("paysandbox.tenant.id", j.TenantID)
	sp.SetAttr("paysandbox.job.id", j.ID)
	if j.PaymentID != "" {
		sp.SetAttr("paysandbox.payment.id", j.PaymentID)
	}
	sp.SetAttr("paysandbox.job.due", j.Due.UTC().Format(time.RFC3339Nano))
	defer func() { sp.End(err) }()
	return run(ctx)
}

// Stepped makes one processor.authorize span of ctx's trace per step.
func (t tracing) Stepped(ctx context.Context, p *simulator.Payment, st simulator.AuthStep) {
	if ctx == nil {
		return
	}
	endProcessorSpan(t.processorSpan(ctx, "authorize", p, st.Account.Name), st.Status, st.Reason)
}

// processorSpan starts the span of one processor call (authorize, capture,
// refund) for payment p at account acct.
func (t tracing) processorSpan(ctx context.Context, op string, p *simulator.Payment, acct string) Span {
	_, sp := t.tracer.Start(ctx, spanProcessor+op)
	sp.SetAttr("paysandbox.payment.id", p.ID)
	if acct != "" {
		sp.SetAttr("paysandbox.processor.name", acct)
	}
	return sp
}

// endProcessorSpan ends a processor call's span with its outcome.
func endProcessorSpan(sp Span, status simulator.PaymentStatus, r *simulator.StatusReason) {
	sp.SetAttr("paysandbox.processor.status", string(status))
	if r != nil {
		sp.SetAttr("paysandbox.processor.reason", r.Code)
		if r.DeclineType != "" {
			sp.SetAttr("paysandbox.processor.decline_type", r.DeclineType)
		}
	}
	sp.End(nil)
}

// tracedProcessor is the processor port with a span per decision: a
// scenario.match span for an authorize decision (the rule that matched),
// a processor.capture or processor.refund span for the others.
type tracedProcessor struct {
	simulator.Processor
	tracer Tracer
}

func (t tracedProcessor) Authorize(ctx context.Context, tn *simulator.Tenant, p *simulator.Payment) simulator.AuthorizeDecision {
	ctx, sp := t.tracer.Start(ctx, spanRuleMatch)
	d := t.Processor.Authorize(ctx, tn, p)
	sp.SetAttr("paysandbox.payment.id", p.ID)
	sp.SetAttr("paysandbox.scenario.rule", d.Rule)
	if d.Why != "" {
		sp.SetAttr("paysandbox.scenario.why", d.Why)
	}
	sp.SetInt("paysandbox.scenario.steps", int64(len(d.Steps)))
	sp.End(nil)
	return d
}

func (t tracedProcessor) Capture(ctx context.Context, tn *simulator.Tenant, p *simulator.Payment, amount int64) simulator.CaptureDecision {
	if ctx == nil {
		return t.Processor.Capture(ctx, tn, p, amount)
	}
	sp := tracing{t.tracer}.processorSpan(ctx, "capture", p, processorName(p))
	d := t.Processor.Capture(ctx, tn, p, amount)
	endProcessorSpan(sp, d.Status, d.Reason)
	return d
}

func (t tracedProcessor) Refund(ctx context.Context, tn *simulator.Tenant, p *simulator.Payment, amount int64) simulator.RefundDecision {
	if ctx == nil {
		return t.Processor.Refund(ctx, tn, p, amount)
	}
	sp := tracing{t.tracer}.processorSpan(ctx, "refund", p, processorName(p))
	d := t.Processor.Refund(ctx, tn, p, amount)
	endProcessorSpan(sp, d.Status, d.Reason)
	return d
}

// tracedStore is the store port whose writes made for a traced step are
// one store.commit span of its trace, and whose events appended then keep
// the step's span as their trace context (Event.TraceParent), so that
// their webhook deliveries join the trace of the request or job that
// caused them.
type tracedStore struct {
	simulator.Store
	tracer Tracer
}

var _ observe.ContextStore = tracedStore{}

func (t tracedStore) UpdateContext(ctx context.Context, fn func(tx simulator.Tx) error) error {
	if !t.tracer.Traced(ctx) {
		return observe.UpdateContext(ctx, t.Store, fn)
	}
	cause := t.tracer.TraceParent(ctx)
	_, sp := t.tracer.Start(ctx, spanCommit)
	err := observe.UpdateContext(ctx, t.Store, func(tx simulator.Tx) error { return fn(tracedTx{Tx: tx, cause: cause}) })
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

func (t tracedTx) PutPaymentWithEvent(p *simulator.Payment, e *simulator.Event) error {
	if e.TraceParent == "" {
		e.TraceParent = t.cause
	}
	return t.Tx.PutPaymentWithEvent(p, e)
}
