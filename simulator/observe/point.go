package observe

import "errors"

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
// to, in the order given, and the keepers of their state.
type Point struct {
	observers []Observer
	keepers   []Keeper
}

// NewPoint registers observers and the keepers of their state (an
// observer that is a Keeper itself is one of them).
func NewPoint(observers []Observer, keepers ...Keeper) *Point {
	p := &Point{keepers: keepers}
	for _, o := range observers {
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
