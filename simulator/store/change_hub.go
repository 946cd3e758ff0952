package store

import "sync"

// changeHub is the store's simulator.ChangeFeed: one channel per watched
// tenant, closed and forgotten at the tenant's next Notify. A tenant nobody
// watches costs nothing but a map lookup per change.
type changeHub struct {
	mu   sync.Mutex
	next map[string]chan struct{}
}

// newChangeHub makes an empty hub.
func newChangeHub() *changeHub { return &changeHub{next: map[string]chan struct{}{}} }

// Next returns a channel closed at the tenant's next Notify after this call
// (every watcher of the tenant shares it).
func (c *changeHub) Next(tenantID string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.next[tenantID]
	if ch == nil {
		ch = make(chan struct{})
		c.next[tenantID] = ch
	}
	return ch
}

// Notify closes the tenant's current channel: its watchers wake once each.
func (c *changeHub) Notify(tenantID string) {
	c.mu.Lock()
	ch := c.next[tenantID]
	delete(c.next, tenantID)
	c.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}
