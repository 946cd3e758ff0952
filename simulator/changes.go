package simulator

import "sync"

// Changes signals, per tenant, that something the tenant can see changed: a
// committed write of its records (the store signals those, Store.Changes) or
// a change kept outside the store (the request journal, Service.NoteChange).
// A watcher takes Next before it reads what it compares, so a change that
// lands during or after the read closes the channel it holds:
//
//	changed := svc.Changed(t.ID)
//	last := read()
//	<-changed // then take the next channel, read again, compare
//
// A tenant nobody watches costs nothing but a map lookup per change.
type Changes struct {
	mu   sync.Mutex
	next map[string]chan struct{}
}

// NewChanges makes an empty hub.
func NewChanges() *Changes { return &Changes{next: map[string]chan struct{}{}} }

// Next returns a channel closed at the tenant's next Notify after this call
// (every watcher of the tenant shares it).
func (c *Changes) Next(tenantID string) <-chan struct{} {
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
func (c *Changes) Notify(tenantID string) {
	c.mu.Lock()
	ch := c.next[tenantID]
	delete(c.next, tenantID)
	c.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// Changed returns a channel closed at the tenant's next change (see Changes).
func (s *Service) Changed(tenantID string) <-chan struct{} { return s.Store.Changes().Next(tenantID) }

// NoteChange signals a change of what the tenant sees that the store does not
// hold (the request journal), so that live views refresh.
func (s *Service) NoteChange(tenantID string) { s.Store.Changes().Notify(tenantID) }
