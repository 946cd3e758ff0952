package service

import (
	"sync"

	"github.com/paysandbox/paysandbox/simulator"
)

// DefaultMaxHeldPerTenant is how many requests one tenant may hold open at
// once (long-polls, event streams) unless configured otherwise.
const DefaultMaxHeldPerTenant = 64

// Held bounds the requests a tenant holds open (long-polls such as
// /_sandbox/wait and /_sandbox/webhooks/wait, event streams) and ends them
// at shutdown. It is the one reusable piece for every held resource:
//
//	// answer at once when the wait is already satisfied, then:
//	release, err := svc.Held().Acquire(t.ID)
//	if err != nil { return err } // 429 TooManyRequests
//	defer release()
//	select { case <-changed: ...; case <-timeout: ...; case <-svc.Held().Stopping(): answer the current state }
//
// The cap is per tenant, so one tenant's long-polls never refuse another's;
// the connection cap of the HTTP server bounds the total. Check whether the
// request is already satisfied before Acquire: a satisfied wait must answer
// even when the tenant is at its cap.
type Held struct {
	max int
	// keep keeps the tenant's data open while a request is held (the
	// store's Hold; nil: nothing to keep).
	keep func(tenantID string) (release func())

	mu      sync.Mutex
	open    map[string]int
	stop    chan struct{}
	stopped bool
}

// NewHeld makes a per-tenant cap of max (<= 0: DefaultMaxHeldPerTenant).
func NewHeld(max int) *Held {
	if max <= 0 {
		max = DefaultMaxHeldPerTenant
	}
	return &Held{max: max, open: map[string]int{}, stop: make(chan struct{})}
}

// Max is the per-tenant cap.
func (h *Held) Max() int { return h.max }

// Acquire takes one of tenantID's slots; call release (once is enough; more
// calls do nothing) when the request ends. Errors: TooManyRequests when the
// tenant already holds Max requests.
func (h *Held) Acquire(tenantID string) (release func(), err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open[tenantID] >= h.max {
		return nil, simulator.Errorf(simulator.CodeTooManyRequests, "This tenant already holds %d open long-polls or streams", h.max).
			WithRecovery("Retry shortly, or end some of the tenant's open waits.")
	}
	h.open[tenantID]++
	unkeep := func() {}
	if h.keep != nil {
		unkeep = h.keep(tenantID)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			unkeep()
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.open[tenantID]--; h.open[tenantID] <= 0 {
				delete(h.open, tenantID)
			}
		})
	}, nil
}

// Open is how many requests tenantID holds now.
func (h *Held) Open(tenantID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.open[tenantID]
}

// Stopping is closed when shutdown begins: a held request then answers its
// current state at once instead of waiting.
func (h *Held) Stopping() <-chan struct{} { return h.stop }

// Stop begins the shutdown of held requests (idempotent).
func (h *Held) Stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.stopped {
		h.stopped = true
		close(h.stop)
	}
}
