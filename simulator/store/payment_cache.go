package store

import (
	"sync"

	"github.com/paysandbox/paysandbox/simulator"
)

// paymentCache keeps recently read payments of one tenant file decoded,
// each with the stored string it was decoded from, so that Tx.Payment,
// having read the record under its transaction's lock, hands out a copy
// instead of decoding the record again when the record is that string.
// What it holds is checked against the store on every read, never trusted:
// a write, a rollback or a delete only makes an entry miss, so there is no
// protocol to keep it coherent, and it goes with its file (a closed or
// failed file's tenant opens with a new one). Its values are never handed
// out, only copies of them (Payment.Clone), so callers own what they get.
//
// It pays for itself: on the shared benchmark (alternating runs, 2-core
// VM), GET /payments/{id} took 87-108 µs of server CPU per request with it
// and 106-120 µs when every read decoded (a payment's decode is about 40 µs
// in process, a hit's copy about 7 µs).
//
// Bound: two generations of at most paymentCacheGen entries; when the
// current one is full it becomes the old one and the old one is dropped; a
// hit in the old generation moves the entry back. It is emptied when the
// store has been idle (DB.loop).
type paymentCache struct {
	mu       sync.Mutex
	cur, old map[string]cachedPayment
}

const paymentCacheGen = 2048

type cachedPayment struct {
	raw string // the stored record (buntdb's own string: no copy)
	p   *simulator.Payment
}

// get returns a copy of the payment at key when the cache holds it decoded
// from raw, the record as stored now; else nil.
func (c *paymentCache) get(key, raw string) *simulator.Payment {
	c.mu.Lock()
	e, ok := c.cur[key]
	if !ok {
		if e, ok = c.old[key]; ok {
			c.insert(key, e)
		}
	}
	c.mu.Unlock()
	if !ok || e.raw != raw {
		return nil
	}
	return e.p.Clone()
}

// put keeps p, decoded from raw; nobody changes p afterwards.
func (c *paymentCache) put(key, raw string, p *simulator.Payment) {
	c.mu.Lock()
	c.insert(key, cachedPayment{raw: raw, p: p})
	c.mu.Unlock()
}

// insert puts e in the current generation, turning generations over when it
// is full. The caller holds c.mu.
func (c *paymentCache) insert(key string, e cachedPayment) {
	if _, there := c.cur[key]; !there && len(c.cur) >= paymentCacheGen {
		c.old, c.cur = c.cur, nil
	}
	if c.cur == nil {
		c.cur = make(map[string]cachedPayment)
	}
	c.cur[key] = e
}

// clear drops every entry.
func (c *paymentCache) clear() {
	c.mu.Lock()
	c.cur, c.old = nil, nil
	c.mu.Unlock()
}
