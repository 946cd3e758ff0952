package service

import (
	"context"
	"log/slog"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// observe makes the service's registration point: the report counts and
// the migration notes, kept in cfg.Observed (or st, or memory), then
// cfg.Observers; the tracing of cfg.Tracer, then cfg.Interceptors, which
// decorate the processor and the writes of the use cases.
func (s *Service) observe(st simulator.Store, log *slog.Logger, cfg Config) {
	kept := cfg.Observed
	if kept == nil {
		if os, ok := st.(observe.Store); ok {
			kept = os
		} else {
			kept = &observe.Memory{}
		}
	}
	ledger := observe.NewLedger(kept, cfg.MigrationFlush, log)
	s.report = observe.NewReport(ledger)
	s.migration = observe.NewMigration(ledger)
	var intercept []observe.Interceptor
	if cfg.Tracer != nil {
		intercept = append(intercept, tracing{cfg.Tracer})
	}
	intercept = append(intercept, cfg.Interceptors...)
	s.observers = observe.NewPoint(observe.Registry{
		Observers:    append([]observe.Observer{s.report, s.migration}, cfg.Observers...),
		Keepers:      []observe.Keeper{ledger},
		Interceptors: intercept,
	})
	s.processor = s.observers.Processor(s.processor)
	if len(intercept) > 0 {
		// Only the writes made for a step go through the decorated store:
		// everyone else keeps the store's own capabilities (its memories).
		s.commits, _ = s.observers.Store(s.store).(observe.ContextStore)
	}
}

// update is Store.Update made for ctx's step: through the interceptors'
// store (a store.commit span, events keeping ctx's trace context) when
// there are any.
func (s *Service) update(ctx context.Context, fn func(tx simulator.Tx) error) error {
	if s.commits == nil || ctx == nil {
		return s.store.Update(fn)
	}
	return s.commits.UpdateContext(ctx, fn)
}

// Publish tells the observers what happened (after it committed): the
// HTTP adapter publishes the requests it answered (observe.RequestAnswered),
// the version differences they hit (observe.DifferenceHit) and the hints
// deliveries raised (observe.DeliveryHint).
func (s *Service) Publish(h observe.Happening) { s.observers.Publish(h) }

// FlushCounts stores what the observers keep in memory (shutdown calls it
// before the store closes).
func (s *Service) FlushCounts() error { return s.observers.Close() }

// attemptOutcome is what the observers see of attempt a.
func attemptOutcome(a simulator.DeliveryAttempt) observe.AttemptOutcome {
	return observe.AttemptOutcome{OK: a.OK(), Error: a.Error, Replay: a.Replay, Chaos: a.Chaos}
}

// lastAttempt is what the observers see of ev's latest attempt (none: the
// zero outcome); an event is made with one when it is exhausted at once
// (no endpoint).
func lastAttempt(ev *simulator.Event) observe.AttemptOutcome {
	if n := len(ev.Attempts); n > 0 {
		return attemptOutcome(ev.Attempts[n-1])
	}
	return observe.AttemptOutcome{}
}
