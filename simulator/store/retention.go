package store

import (
	"strings"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// retention answers, for one open tenant file, whether a prune pass has
// anything to do (PruneEvents) without walking the events: how many
// finished (delivered or exhausted) events the file holds and the key of
// the oldest one (event keys sort by creation time). It is computed on the
// first pass that needs it, kept right by every write of an event record
// (Tx.set and Tx.del see the value before and after: append, attempt,
// prune, reset, tenant delete, import, clone), applied at the tenant's
// commit under its file's write lock, and dropped with the file (a new
// tenantFile starts unknown). Only write transactions read or change it,
// each holding that lock from its first touch of the file.
type retention struct {
	known    bool
	finished int
	oldest   string // "" when finished == 0
}

// retentionDelta is what one write transaction changed of its tenant's
// retention: kept on the file (the transaction holding its write lock owns
// it, reset when one begins), applied at commit, so a rollback changes
// nothing.
type retentionDelta struct {
	finished int
	added    string // the oldest finished event key written
	lost     bool   // a finished event at or below the oldest known went: the oldest is unknown
	oldest   string // set by a prune that found the oldest finished event left
	found    bool   // oldest is set
	broken   bool   // an event written does not decode: what is known is dropped
}

// isEventRecordKey reports whether a tenant file's key is an event's record.
func isEventRecordKey(k string) bool { return strings.HasPrefix(k, pEvent) }

// finishedEvent reports whether v is a stored event whose delivery ended;
// ok is false for a value that does not decode.
func finishedEvent(v string) (finished, ok bool) {
	st, err := eventStatus(v)
	return err == nil && st != simulator.DeliveryPending, err == nil
}

// noteEventWrite keeps the transaction's retention delta in step with a
// write of event record k from prev ("": none) to val ("": deleted).
func (t *Tx) noteEventWrite(k, prev, val string) {
	if t.tf == nil || !t.tf.ret.known || !isEventRecordKey(k) {
		return
	}
	was, is, ok1, ok2 := false, false, true, true
	if prev != "" {
		was, ok1 = finishedEvent(prev)
	}
	if val != "" {
		is, ok2 = finishedEvent(val)
	}
	d := &t.tf.retTx
	switch {
	case !ok1 || !ok2:
		d.broken = true
	case is && !was:
		d.finished++
		if d.added == "" || k < d.added {
			d.added = k
		}
		if d.found && (d.oldest == "" || k < d.oldest) {
			d.oldest = k
		}
	case was && !is:
		d.finished--
		if k <= t.tf.ret.oldest || k <= d.added || (d.found && k <= d.oldest) {
			d.lost, d.found = true, false
		}
	}
}

// applyRetention applies the transaction's delta to its tenant's
// retention, before the commit that makes it true (still under the file's
// write lock; a failed commit drops what is known).
func (t *Tx) applyRetention() {
	r, d := &t.tf.ret, t.tf.retTx
	switch {
	case !r.known:
		return
	case d.broken || (d.lost && !d.found):
		*r = retention{} // computed again when next needed
		return
	}
	r.finished += d.finished
	switch {
	case d.found:
		r.oldest = d.oldest
	case d.added != "" && (r.oldest == "" || d.added < r.oldest):
		r.oldest = d.added
	}
	if r.finished <= 0 {
		r.finished, r.oldest = 0, ""
	}
}

// retentionOf is tenant tid's retention as committed, computed (one walk
// of its events) when the file has none yet; ok is false when it cannot
// answer: no file, a transaction that already wrote it, or an event that
// does not decode (the prune's own walk reports it).
func (t *Tx) retentionOf(btx *buntdb.Tx, tid string) (retention, bool) {
	if t.tf == nil || t.tenantWrote {
		return retention{}, false
	}
	if t.tf.ret.known {
		return t.tf.ret, true
	}
	p := pEvent
	r := retention{known: true}
	ok := true
	_ = btx.AscendGreaterOrEqual("", p, func(k, v string) bool {
		if !strings.HasPrefix(k, p) {
			return false
		}
		t.d.pruneReads.Add(1)
		fin, dec := finishedEvent(v)
		if fin {
			if r.finished == 0 {
				r.oldest = k
			}
			r.finished++
		}
		ok = dec
		return dec
	})
	if !ok {
		return retention{}, false
	}
	t.tf.ret = r
	return r, true
}

// findOldestFinished records in the transaction's delta the oldest
// finished event of tid left after its prune deleted some (a walk up to
// it: the pending events before it are few).
func (t *Tx) findOldestFinished(btx *buntdb.Tx, tid string) {
	if t.tf == nil || !t.tf.ret.known || t.tf.retTx.broken {
		return
	}
	p := pEvent
	oldest, ok := "", true
	_ = btx.AscendGreaterOrEqual("", p, func(k, v string) bool {
		if !strings.HasPrefix(k, p) {
			return false
		}
		t.d.pruneReads.Add(1)
		fin, dec := finishedEvent(v)
		if fin {
			oldest = k
		}
		ok = dec
		return dec && !fin
	})
	if ok {
		t.tf.retTx.oldest, t.tf.retTx.found, t.tf.retTx.lost = oldest, true, false
	} else {
		t.tf.retTx.broken = true
	}
}
