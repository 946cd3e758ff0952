// Package clock provides the base clocks of simulator.Clock: the real clock
// and a manual clock for tests. Each tenant's clock is the base clock plus
// the tenant's offset (simulator.Tenant.Now). Imports only the standard library.
package clock

import (
	"sync"
	"time"
)

// Real is the wall clock.
type Real struct{}

// Now returns the current UTC time.
func (Real) Now() time.Time { return time.Now().UTC() }

// Manual is a clock that moves only when told; safe for concurrent use.
type Manual struct {
	mu sync.Mutex
	t  time.Time
}

// NewManual starts a manual clock at t.
func NewManual(t time.Time) *Manual { return &Manual{t: t.UTC()} }

// Now returns the clock's time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t
}

// Advance moves the clock forward by d.
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	m.t = m.t.Add(d)
	m.mu.Unlock()
}

// Set moves the clock to t.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	m.t = t.UTC()
	m.mu.Unlock()
}
