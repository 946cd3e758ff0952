package observe

import (
	"context"

	"github.com/paysandbox/paysandbox/simulator"
)

// Interceptor carries context around the steps the use cases take, as
// decorators of the ports they call and of the jobs the scheduler runs:
// the use cases call their ports and never the interceptor. Tracing is
// one (a span per decision, per store write, per job). The HTTP chain has
// its own decorator in its adapter (httpapi.Options.Tracer, the outermost
// middleware).
type Interceptor interface {
	// Processor decorates the processor port.
	Processor(p simulator.Processor) simulator.Processor
	// Store decorates the store port. Writes made for a step go through
	// the result's ContextStore.UpdateContext when it is one.
	Store(st simulator.Store) simulator.Store
	// Job runs one job of the scheduler (run) around its step.
	Job(ctx context.Context, j *simulator.Job, run func(ctx context.Context) error) error
	// Stepped is told, inside the write that records it, of each
	// processor answer an authorization records for payment p (the
	// decision's steps are data the processor gave at once, so no port
	// call marks them).
	Stepped(ctx context.Context, p *simulator.Payment, st simulator.AuthStep)
}

// ContextStore is a store port whose writes can carry the context of the
// step that makes them (an Interceptor's Store answers one).
type ContextStore interface {
	simulator.Store
	// UpdateContext is Update made for ctx's step.
	UpdateContext(ctx context.Context, fn func(tx simulator.Tx) error) error
}

// UpdateContext is st.UpdateContext when st is a ContextStore, else
// st.Update: how a decorator passes a write on to the store it decorates.
func UpdateContext(ctx context.Context, st simulator.Store, fn func(tx simulator.Tx) error) error {
	if cs, ok := st.(ContextStore); ok {
		return cs.UpdateContext(ctx, fn)
	}
	return st.Update(fn)
}
