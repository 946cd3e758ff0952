package store

import (
	"errors"
	"strings"
	"sync"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// tenantCache keeps decoded tenants and the API key -> tenant index in
// memory, so authenticating a request decodes no JSON and takes no store
// lock, and transactions read tenants without decoding them. buntdb stays
// the source of truth: entries are filled from it on first use, and the
// whole cache is dropped by every transaction that writes a tenant or API
// key record, at the end of its function while it still holds the write
// lock (so no reader can refill it with the old value before the commit)
// and again after it, committed or not. A generation counter keeps a reader
// that read the store before such a write from publishing what it read.
// Unknown keys are not remembered (no growth from bad credentials).
//
// Cached tenants are immutable: callers receive a deep copy (Tenant.Clone)
// each time, so changing a caller's keys in place cannot reach the cache.
type tenantCache struct {
	mu    sync.RWMutex
	gen   uint64
	byID  map[string]*simulator.Tenant
	byKey map[string]*simulator.Tenant
	// all is every tenant in key order (Tx.Tenants), when allOK.
	all   []*simulator.Tenant
	allOK bool
}

// get returns a copy of the cached tenant for id (byKey false) or API key.
func (c *tenantCache) get(s string, byKey bool) (*simulator.Tenant, uint64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	m := c.byID
	if byKey {
		m = c.byKey
	}
	t, ok := m[s]
	if !ok {
		return nil, c.gen, false
	}
	return t.Clone(), c.gen, true
}

// put publishes t (read from the store at generation gen) unless a tenant
// write happened since.
func (c *tenantCache) put(t *simulator.Tenant, gen uint64) {
	cp := t.Clone()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.byID == nil {
		c.byID, c.byKey = map[string]*simulator.Tenant{}, map[string]*simulator.Tenant{}
	}
	c.byID[t.ID] = cp
	for _, k := range t.APIKeys {
		c.byKey[k.Key] = cp
	}
}

// generation is the current generation (see put).
func (c *tenantCache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

// invalidate drops every entry (after a tenant write).
func (c *tenantCache) invalidate() {
	c.mu.Lock()
	c.gen++
	c.byID, c.byKey = nil, nil
	c.all, c.allOK = nil, false
	c.mu.Unlock()
}

// getAll returns copies of every tenant, if the list is cached.
func (c *tenantCache) getAll() ([]*simulator.Tenant, uint64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.allOK {
		return nil, c.gen, false
	}
	out := make([]*simulator.Tenant, len(c.all))
	for i, t := range c.all {
		out[i] = t.Clone()
	}
	return out, c.gen, true
}

// putAll publishes the list of every tenant (read from the store at
// generation gen) unless a tenant write happened since.
func (c *tenantCache) putAll(list []*simulator.Tenant, gen uint64) {
	cp := make([]*simulator.Tenant, len(list))
	for i, t := range list {
		cp[i] = t.Clone()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.all, c.allOK = cp, true
	}
}

// cachedTenants serves Tx.Tenants from memory, like cachedTenant: the webhook
// dispatcher lists every tenant on each pass.
func (t *Tx) cachedTenants(read func() ([]*simulator.Tenant, error)) ([]*simulator.Tenant, error) {
	if t.tenants == nil || t.tenantsWritten {
		return read()
	}
	if list, _, ok := t.tenants.getAll(); ok {
		return list, nil
	}
	gen := t.tenants.generation()
	list, err := read()
	if err == nil {
		t.tenants.putAll(list, gen)
	}
	return list, err
}

// CachedTenant resolves a tenant by id from memory, reading the store (one
// read transaction) only on a miss. nil when there is no such tenant.
func (d *DB) CachedTenant(id string) (*simulator.Tenant, error) {
	t, gen, ok := d.tenants.get(id, false)
	if ok {
		return t, nil
	}
	var raw string
	raw, err := d.catalogGet(kTenant(id))
	if err == nil && raw != "" {
		t = new(simulator.Tenant)
		if err = decode(raw, t); err != nil {
			t = nil
		}
	}
	if err == nil && t != nil {
		d.tenants.put(t, gen)
	}
	return t, err
}

// CachedTenantByAPIKey resolves an API key to its tenant from memory,
// reading the store only on a miss. nil when no tenant has the key.
func (d *DB) CachedTenantByAPIKey(key string) (*simulator.Tenant, error) {
	t, gen, ok := d.tenants.get(key, true)
	if ok {
		return t, nil
	}
	err := d.catalog.View(func(btx *buntdb.Tx) error {
		id, err := btx.Get(kAPIKey(key))
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		raw, err := btx.Get(kTenant(id))
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		t = new(simulator.Tenant)
		if err := decode(raw, t); err != nil {
			t = nil
			return err
		}
		return nil
	})
	if err == nil && t != nil {
		d.tenants.put(t, gen)
	}
	return t, err
}

// cachedTenant serves Tx.Tenant from the tenant cache, reading the store
// (read) on a miss. A transaction that wrote a tenant reads the store: its
// own writes are not in the cache (they are in its catalog buffer). The
// generation taken before the read keeps a value read before another
// transaction's tenant write committed from being published.
func (t *Tx) cachedTenant(id string, read func() (*simulator.Tenant, error)) (*simulator.Tenant, error) {
	if t.tenants == nil || t.tenantsWritten {
		return read()
	}
	if tn, _, ok := t.tenants.get(id, false); ok {
		return tn, nil
	}
	gen := t.tenants.generation()
	tn, err := read()
	if err == nil && tn != nil {
		t.tenants.put(tn, gen)
	}
	return tn, err
}

// touch notes a write of key: its tenant's watchers are notified after the
// commit, and a tenant or API key record drops the tenant cache when the
// transaction ends.
func (t *Tx) touch(key string) {
	t.noteTenant(key)
	if !t.tenantsWritten && (strings.HasPrefix(key, pTenant) || strings.HasPrefix(key, pAPIKey)) {
		t.tenantsWritten = true
	}
}
