package observe

import (
	"context"
	"errors"

	"github.com/paysandbox/paysandbox/simulator"
)

// Observer is told what happened, after it committed. Observe runs on the
// publisher's goroutine (a request's, a job's, a delivery's): it must be
// quick and must not call back into the use cases.
type Observer interface {
	Observe(h Happening)
}

// Keeper keeps observers' state per tenant (a Ledger): the tenant's
// lifecycle reaches it through the Point.
type Keeper interface {
	// Close stores what is still in memory (shutdown).
	Close() error
	// Drop forgets the tenant's state in memory and holds back its writes
	// until release is called, after the tenant's reset or deletion
	// committed (which drops the stored state with the tenant's data).
	Drop(tenantID string) (release func())
}

// Point is the registration point: the observers every happening is told
// to, in the order given, the keepers of their state, and the
// interceptors that decorate the ports.
type Point struct {
	observers    []Observer
	keepers      []Keeper
	interceptors []Interceptor
}

// Registry is what a Point is made of.
type Registry struct {
	// Observers are told every happening, in this order.
	Observers []Observer
	// Keepers keep observers' state (an observer that is a Keeper itself
	// is one of them).
	Keepers []Keeper
	// Interceptors decorate the ports, the first outermost.
	Interceptors []Interceptor
}

// NewPoint makes the registration point of r.
func NewPoint(r Registry) *Point {
	p := &Point{keepers: r.Keepers}
	for _, i := range r.Interceptors {
		if i != nil {
			p.interceptors = append(p.interceptors, i)
		}
	}
	for _, o := range r.Observers {
		if o == nil {
			continue
		}
		p.observers = append(p.observers, o)
		if k, ok := o.(Keeper); ok {
			p.keepers = append(p.keepers, k)
		}
	}
	return p
}

// Publish tells every observer h.
func (p *Point) Publish(h Happening) {
	for _, o := range p.observers {
		o.Observe(h)
	}
}

// Close closes every keeper: what is in memory is stored.
func (p *Point) Close() error {
	var errs []error
	for _, k := range p.keepers {
		errs = append(errs, k.Close())
	}
	return errors.Join(errs...)
}

// Drop drops tenant tid's state in every keeper; release
// (after the reset or deletion committed) lets their writes go on.
func (p *Point) Drop(tid string) (release func()) {
	releases := make([]func(), 0, len(p.keepers))
	for _, k := range p.keepers {
		releases = append(releases, k.Drop(tid))
	}
	return func() {
		for _, r := range releases {
			r()
		}
	}
}

// Processor is proc decorated by every interceptor (proc itself without
// any).
func (p *Point) Processor(proc simulator.Processor) simulator.Processor {
	for i := len(p.interceptors) - 1; i >= 0; i-- {
		proc = p.interceptors[i].Processor(proc)
	}
	return proc
}

// Store is st decorated by every interceptor (st itself without any).
func (p *Point) Store(st simulator.Store) simulator.Store {
	for i := len(p.interceptors) - 1; i >= 0; i-- {
		st = p.interceptors[i].Store(st)
	}
	return st
}

// Intercepted reports whether any interceptor is registered (without one,
// a caller may skip the decoration of a step altogether).
func (p *Point) Intercepted() bool { return len(p.interceptors) > 0 }

// Job runs job j (run) inside every interceptor's Job.
func (p *Point) Job(ctx context.Context, j *simulator.Job, run func(ctx context.Context) error) error {
	for i := len(p.interceptors) - 1; i >= 0; i-- {
		in, next := p.interceptors[i], run
		run = func(ctx context.Context) error { return in.Job(ctx, j, next) }
	}
	return run(ctx)
}

// Stepped tells every interceptor of step st of payment p.
func (p *Point) Stepped(ctx context.Context, pay *simulator.Payment, st simulator.AuthStep) {
	for _, in := range p.interceptors {
		in.Stepped(ctx, pay, st)
	}
}
