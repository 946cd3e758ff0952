package store

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
)

// hotCache is the bounded typed cache of recently used records: payments,
// client sessions, payment instruments, attempts (decoded, as typed values)
// and client tokens (the stored "<tenant>/<session id>" reference). buntdb
// stays the one source of truth; the cache only spares the hot read paths
// its lock and a record decode (see hot_records.go for the readers).
//
// Values are immutable once published: a change stores a new value (the
// writer's private copy), never an edit of the published one. Whoever gets a
// value from the lock-free readers shares it with every other reader and must
// not change it; transactions (Tx) hand out private copies.
//
// Coherence. Every writing transaction draws a commit sequence number under
// buntdb's write lock, so sequence order is commit order, and publishes what
// it wrote only after its commit succeeded (a rolled-back or failed commit
// publishes nothing). A reader that missed reads buntdb under its read lock
// together with the current sequence number: what it read is the state as of
// that number. An entry carries its number and is replaced only by a higher
// one, so a late publish can never put back an older value. A key that is
// absent (never cached, evicted or deleted) takes a value only when its number
// is not below the shard's floor: the sequence number at the last eviction or
// at the last delete in that shard. Anything older than that may be older than
// a value evicted or a delete done since, so it is not published (a miss next
// time, never a stale hit).
//
// Bound and eviction: hotShards shards, each with two generations of at most
// hotGenSize entries. New entries go to the current generation; when it is
// full it becomes the old one and the old one is dropped; a hit in the old
// generation moves the entry back to the current one. At most hotMaxEntries
// entries are held.
type hotCache struct {
	seq     atomic.Uint64 // last commit sequence number drawn
	seed    maphash.Seed
	genSize int // hotGenSize (tests make it small to turn generations over often)
	// afterMiss, when set (tests only), runs between a lock-free reader's
	// read of the store and its publish: the window the floor guards.
	afterMiss func(key string)
	shards    [hotShards]hotShard
}

const (
	hotShards     = 16
	hotGenSize    = 512
	hotMaxEntries = hotShards * 2 * hotGenSize // 16384
)

type hotShard struct {
	mu       sync.RWMutex
	cur, old map[string]*hotEntry
	floor    uint64
	_        [64]byte // keep shards' locks on separate cache lines
}

// hotEntry is one cached record. raw is the stored string it was decoded
// from (buntdb's own string, so it costs no copy while it is current); v is
// the decoded value (*simulator.Payment, *simulator.ClientSession,
// *simulator.Instrument, *simulator.Attempt), nil for client tokens, whose
// reference is raw itself, and for a write that stored a record without a
// typed value (then a reader decodes raw).
type hotEntry struct {
	raw string
	v   any
	seq uint64
}

func newHotCache() *hotCache { return &hotCache{seed: maphash.MakeSeed(), genSize: hotGenSize} }

func (h *hotCache) shard(key string) *hotShard {
	return &h.shards[maphash.String(h.seed, key)%hotShards]
}

// get returns the entry of key, or nil.
func (h *hotCache) get(key string) *hotEntry {
	s := h.shard(key)
	s.mu.RLock()
	e, cur := s.cur[key], true
	if e == nil {
		e, cur = s.old[key], false
	}
	s.mu.RUnlock()
	if e != nil && !cur {
		s.mu.Lock()
		if s.old[key] == e && s.cur[key] == nil { // still the newest: keep it in use
			s.insert(key, e, h)
		}
		s.mu.Unlock()
	}
	return e
}

// publish offers e as the value of key as of sequence number e.seq (see the
// type's comment for when it is taken).
func (h *hotCache) publish(key string, e *hotEntry) {
	s := h.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if have := s.lookup(key); have != nil {
		// The same number is the same state: taken only to add a decoded value.
		if have.seq > e.seq || have.seq == e.seq && (have.v != nil || e.v == nil) {
			return
		}
	} else if e.seq < s.floor {
		return
	}
	s.insert(key, e, h)
}

// drop removes key after a delete committed at seq, and keeps anything read or
// written before that delete from being published afterwards.
func (h *hotCache) drop(key string, seq uint64) {
	s := h.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if have := s.lookup(key); have == nil || have.seq < seq {
		delete(s.cur, key)
		delete(s.old, key)
	}
	s.floor = max(s.floor, seq)
}

// lookup is get under the shard's lock (held by the caller).
func (s *hotShard) lookup(key string) *hotEntry {
	if e := s.cur[key]; e != nil {
		return e
	}
	return s.old[key]
}

// insert puts e in the current generation, turning generations over when it
// is full. The caller holds the shard's write lock.
func (s *hotShard) insert(key string, e *hotEntry, h *hotCache) {
	if s.cur == nil {
		s.cur = make(map[string]*hotEntry, h.genSize)
	}
	if _, there := s.cur[key]; !there && len(s.cur) >= h.genSize {
		// Everything in the old generation was published at or below the
		// current sequence number.
		s.floor = max(s.floor, h.seq.Load())
		s.old, s.cur = s.cur, make(map[string]*hotEntry, h.genSize)
	}
	s.cur[key] = e
}

// clear drops every entry (the store went idle: see disk.idle). As with a
// generation turned over, nothing read before now is published afterwards.
func (h *hotCache) clear() {
	at := h.seq.Load()
	for i := range h.shards {
		s := &h.shards[i]
		s.mu.Lock()
		s.cur, s.old = nil, nil
		s.floor = max(s.floor, at)
		s.mu.Unlock()
	}
}

// len counts the entries held.
func (h *hotCache) len() int {
	n := 0
	for i := range h.shards {
		s := &h.shards[i]
		s.mu.RLock()
		n += len(s.cur)
		for k := range s.old {
			if s.cur[k] == nil {
				n++
			}
		}
		s.mu.RUnlock()
	}
	return n
}

// Kinds of records the cache holds, by key.
const (
	hotNone = iota
	hotPayment
	hotSession
	hotInstrument
	hotAttempt
	hotClientToken
)

// hotKind says which cached kind key is (hotNone: not cached). Tenant keys
// are "t:<escaped tenant>:<kind>:<id>", the escaped tenant having no ':'.
func hotKind(key string) int {
	if strings.HasPrefix(key, pCTok) {
		return hotClientToken
	}
	rest, ok := strings.CutPrefix(key, "t:")
	if !ok {
		return hotNone
	}
	i := strings.IndexByte(rest, ':')
	if i < 0 {
		return hotNone
	}
	rest = rest[i+1:]
	j := strings.IndexByte(rest, ':')
	if j < 0 {
		return hotNone
	}
	switch rest[:j] {
	case "pay":
		return hotPayment
	case "cs":
		return hotSession
	case "pi":
		return hotInstrument
	case "att":
		return hotAttempt
	case "ctok":
		return hotClientToken
	}
	return hotNone
}

// dropTenant drops every entry of tenant tid (its file is deleted), as a
// delete committed at seq.
func (h *hotCache) dropTenant(tid string, seq uint64) {
	p := tenantPrefix(tid)
	for i := range h.shards {
		s := &h.shards[i]
		s.mu.Lock()
		for _, m := range []map[string]*hotEntry{s.cur, s.old} {
			for k := range m {
				if strings.HasPrefix(k, p) {
					delete(m, k)
				}
			}
		}
		s.floor = max(s.floor, seq)
		s.mu.Unlock()
	}
}
