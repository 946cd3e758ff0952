package store

import (
	"strings"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// The typed records the hot cache (hotcache.go) holds, how transactions use
// it, and the lock-free readers the service's hot paths call.

func decodeSession(raw, _ string) (*simulator.ClientSession, error) {
	var cs simulator.ClientSession
	if err := decode(raw, &cs); err != nil {
		return nil, err
	}
	return &cs, nil
}

func decodeAttempt(raw, _ string) (*simulator.Attempt, error) {
	var a simulator.Attempt
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// HotPayment returns payment id of tenant tid from memory, reading the store
// (one read transaction, the record decoded outside it) only on a miss. The
// payment is shared with every other reader: callers must not change it
// (service.RecordMemory). nil when there is no such payment.
func (d *DB) HotPayment(tid, id string) (*simulator.Payment, error) {
	if !validID(id) {
		return nil, nil
	}
	return hotGet(d, kPayment(tid, id), tid, decodePayment)
}

// HotSession returns client session id of tenant tid from memory (shared, see HotPayment).
func (d *DB) HotSession(tid, id string) (*simulator.ClientSession, error) {
	if !validID(id) {
		return nil, nil
	}
	return hotGet(d, kSession(tid, id), tid, decodeSession)
}

// HotSessionByToken resolves a client token of any tenant to its session
// from memory (shared, see HotPayment), whether it has expired or not.
func (d *DB) HotSessionByToken(tok string) (*simulator.ClientSession, error) {
	if tok == "" {
		return nil, nil
	}
	if tid, ok := simulator.TenantOfToken(tok); ok {
		key := kTokSession(tid, tok)
		var id string
		if e := d.hot.get(key); e != nil {
			id = e.raw
		} else {
			var seq uint64
			err := d.viewTenant(tid, func(btx *buntdb.Tx) error {
				id, _ = btx.Get(key)
				seq = d.hot.seq.Load()
				return nil
			})
			if err != nil || id == "" {
				return nil, err
			}
			d.hot.publish(key, &hotEntry{raw: id, seq: seq})
		}
		return d.HotSession(tid, id)
	}
	key := kCTok(tok)
	var ref string
	if e := d.hot.get(key); e != nil {
		ref = e.raw
	} else {
		var seq uint64
		err := d.catalog.View(func(btx *buntdb.Tx) error {
			ref, _ = btx.Get(key)
			seq = d.hot.seq.Load()
			return nil
		})
		if err != nil || ref == "" {
			return nil, err
		}
		d.hot.publish(key, &hotEntry{raw: ref, seq: seq})
	}
	tid, id, _ := strings.Cut(ref, "/")
	return d.HotSession(unesc(tid), id)
}

// viewTenant runs fn in a read view of tenant tid's file (an empty one when
// the tenant has no file), the file held meanwhile.
func (d *DB) viewTenant(tid string, fn func(*buntdb.Tx) error) error {
	f, err := d.reg.acquire(tid, false)
	if err != nil {
		return err
	}
	if f == nil {
		return d.empty.View(fn)
	}
	defer d.reg.release(f)
	return f.db.View(fn)
}

// HotInstrument returns payment instrument tok of tenant tid from memory (shared, see HotPayment).
func (d *DB) HotInstrument(tid, tok string) (*simulator.Instrument, error) {
	if !validID(tok) {
		return nil, nil
	}
	return hotGet(d, kInstrument(tid, tok), tid, decodeInstrument)
}

// HotAttempt returns payment attempt id of tenant tid from memory (shared, see HotPayment).
func (d *DB) HotAttempt(tid, id string) (*simulator.Attempt, error) {
	if !validID(id) {
		return nil, nil
	}
	return hotGet(d, kAttempt(tid, id), tid, decodeAttempt)
}

// validID rejects ids that could reach into another key's range (as
// Tx.Payment always did): ids made by the product never contain ':' or '/'.
func validID(id string) bool { return id != "" && !strings.ContainsAny(id, ":/") }

// hotGet is the lock-free read of a typed record: a hit takes only the
// shard's read lock; a miss reads the raw record and the commit sequence
// number in one read transaction, decodes after it, and publishes the value
// as of that number (hotCache.publish keeps it from replacing anything newer).
func hotGet[T any](d *DB, key, tid string, dec func(raw, tid string) (*T, error)) (*T, error) {
	if e := d.hot.get(key); e != nil {
		if v, ok := e.v.(*T); ok {
			return v, nil
		}
	}
	var raw string
	var seq uint64
	err := d.viewTenant(tid, func(btx *buntdb.Tx) error {
		raw, _ = btx.Get(key) // ErrNotFound: ""
		seq = d.hot.seq.Load()
		return nil
	})
	if err != nil || raw == "" {
		return nil, err
	}
	v, err := dec(raw, tid)
	if err != nil {
		return nil, unreadable(key, err)
	}
	if d.hot.afterMiss != nil {
		d.hot.afterMiss(key)
	}
	d.hot.publish(key, &hotEntry{raw: raw, v: v, seq: seq})
	return v, nil
}

// txGet is a transaction's read of a typed record: a private copy, taken
// from this transaction's own write or from the cache when either holds
// exactly the string stored (so no decode), else decoded. A record this
// transaction did not write is the committed one (no writer runs beside a
// transaction), so it is published as of the current sequence number.
func txGet[T any](t *Tx, key, tid string, dec func(raw, tid string) (*T, error), clone func(*T) *T) (*T, error) {
	raw, err := t.raw(key)
	if err != nil || raw == "" {
		return nil, err
	}
	if t.hot == nil {
		v, err := dec(raw, tid)
		return v, unreadable(key, err)
	}
	own, wrote := t.pending[key]
	if own != nil && own.raw == raw {
		if v, ok := own.v.(*T); ok {
			return clone(v), nil
		}
	}
	if !wrote {
		if e := t.hot.get(key); e != nil && e.raw == raw {
			if v, ok := e.v.(*T); ok {
				return clone(v), nil
			}
		}
	}
	v, err := dec(raw, tid)
	if err != nil || wrote {
		return v, unreadable(key, err)
	}
	t.hot.publish(key, &hotEntry{raw: raw, v: v, seq: t.hot.seq.Load()})
	return clone(v), nil
}

// putHot stores raw at key and notes v, the writer's own copy that nobody
// changes afterwards, for publishing once the transaction has committed.
func (t *Tx) putHot(key, raw string, v any) error {
	if err := t.set(key, raw); err != nil {
		return err
	}
	t.noteHot(key, raw, v, false)
	return nil
}

// noteHot notes a write (or with deleted, a delete) of a cached kind of
// record, published after the commit (publishHot). A write noted without a
// typed value publishes the raw string only; readers then decode it.
func (t *Tx) noteHot(key, raw string, v any, deleted bool) {
	if t.hot == nil || hotKind(key) == hotNone {
		return
	}
	if t.pending == nil {
		t.pending = make(map[string]*hotEntry, 4)
	}
	if deleted {
		t.pending[key] = nil
		return
	}
	t.pending[key] = &hotEntry{raw: raw, v: v}
}

// sequence draws the commit sequence number of a writing transaction that
// changed cached records of its tenant; it runs under the tenant's write
// lock, after fn. (A reader of a tenant's record reads it and the sequence
// number under that tenant's read lock, so the order of the two is the
// order of the commits of that record; the catalog's cached entries, old
// client tokens, take catSeq, drawn under the catalog's lock.)
func (t *Tx) sequence() {
	for k := range t.pending {
		if isTenantKey(k) {
			t.seq = t.hot.seq.Add(1)
			return
		}
	}
}

// publishHot publishes what a committed transaction wrote (and drops what it
// deleted), as of its sequence number.
func (t *Tx) publishHot() {
	if t.seq == 0 && t.catSeq == 0 {
		return
	}
	for k, e := range t.pending {
		seq := t.seq
		if !isTenantKey(k) {
			seq = t.catSeq
		}
		if seq == 0 { // not committed (a tenant view that wrote nothing)
			continue
		}
		if e == nil {
			t.hot.drop(k, seq)
			continue
		}
		e.seq = seq
		t.hot.publish(k, e)
	}
}

// putTyped stores rec at key and notes v (see putHot).
func (t *Tx) putTyped(key string, rec, v any) error {
	b, err := marshal(rec)
	if err != nil {
		return err
	}
	return t.putHot(key, string(b), v)
}
