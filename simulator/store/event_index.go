package store

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// Events by payment. The outbox keys events by creation time (evt:), so a
// payment's events were found by scanning all of the tenant's events, and
// every GET /_sandbox/webhooks/events?paymentId=, webhooks/wait, dashboard
// timeline and crash-test check cost grew with the tenant's traffic.
//
// idxEventPayment is a buntdb index over the evt: keys ordered by the
// event's payment id (read from its record), then by key: one payment's
// events of one tenant are therefore a contiguous range, in creation order.
// buntdb maintains it inside the transaction that sets or deletes an event
// key (append, attempt, prune, tenant reset or delete; a rollback undoes it
// too) and builds it in memory over every stored event, so records in any
// stored form (bodies apart at evb: too) are indexed alike: nothing is stored
// for it and no file needs a migration. Its cost is a B-tree of pointers
// (about 10 bytes per event) and, to build it, one pass matching every key
// of the store against eventKeyPattern: 9% of opening a file of a million
// checkouts. It is therefore built on first use, in the background (under
// buntdb's write lock, like any index build); until it is ready a query
// scans the tenant's events, which the retention bound keeps few by default.
const idxEventPayment = "evp"

// eventIndex is the state of idxEventPayment in one store.
type eventIndex struct {
	db    *buntdb.DB
	once  sync.Once
	ready atomic.Bool
	built chan struct{} // closed when the build ended (ready or failed)
	// pruned counts the bytes of the event records PruneEvents deleted, for
	// the file's shrink decision (disk.go); nil for ":memory:".
	pruned *atomic.Int64
}

func newEventIndex(db *buntdb.DB, pruned *atomic.Int64) *eventIndex {
	return &eventIndex{db: db, built: make(chan struct{}), pruned: pruned}
}

// notePruned adds n bytes of deleted records (a rolled-back prune counts
// too: the count only makes a shrink come sooner).
func (x *eventIndex) notePruned(n int64) {
	if x != nil && x.pruned != nil {
		x.pruned.Add(n)
	}
}

// use reports whether the index can be read; the first call starts building
// it. A transaction that sees it ready began after the build committed.
func (x *eventIndex) use() bool {
	if x == nil {
		return false
	}
	if x.ready.Load() {
		return true
	}
	x.once.Do(func() {
		go func() {
			defer close(x.built)
			if createEventIndex(x.db) == nil { // fails only on a closed store: queries keep scanning
				x.ready.Store(true)
			}
		}()
	})
	return false
}

// eventKeyPattern matches the evt: keys only: tenant ids are escaped (esc)
// and no other key of a tenant contains ":evt:".
const eventKeyPattern = "t:*:evt:*"

// createEventIndex adds idxEventPayment to db.
func createEventIndex(db *buntdb.DB) error {
	return db.Update(func(tx *buntdb.Tx) error {
		return tx.CreateIndex(idxEventPayment, eventKeyPattern, lessEventPayment)
	})
}

const paymentIDField = `"paymentId":`

// eventPaymentID returns the JSON-encoded payment id of a stored event
// record (`"p1"`), or "" when it has none. The record is the value's first
// line; paymentId is a top-level field and the first occurrence is the
// top-level one, since the fields before it are strings, in which a quote
// is always escaped.
func eventPaymentID(v string) string {
	i := strings.Index(v, paymentIDField)
	if i < 0 || strings.IndexByte(v[:i], '\n') >= 0 { // not in the record (the body's)
		return ""
	}
	v = v[i+len(paymentIDField):]
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	for j := 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return v[:j+1]
		}
	}
	return ""
}

func lessEventPayment(a, b string) bool { return eventPaymentID(a) < eventPaymentID(b) }

// eventsOfPayment lists tenant tid's events of payment pid, newest first,
// with q's type and status filters and limit, reading only that payment's
// range of idxEventPayment (all of the tenant's events until it is built).
func (t *Tx) eventsOfPayment(tid string, q simulator.EventQuery) ([]*simulator.Event, error) {
	if !t.events.use() {
		return t.scanEvents(tid, q)
	}
	// As the event encoder writes it (appendEvRec); payment ids are ours and
	// never hold the characters json.Marshal would write otherwise.
	want := string(jsonString(nil, q.PaymentID))
	pivot := paymentIDField + want
	p := pEvent(tid)
	var out []*simulator.Event
	var ferr error
	// The pivot sorts after every event of the payment (buntdb puts a keyless
	// pivot after the items whose values compare equal), so descending from it
	// walks the payment's events from the greatest key down.
	err := t.tx.DescendLessOrEqual(idxEventPayment, pivot, func(k, v string) bool {
		if eventPaymentID(v) != want {
			return false
		}
		if !strings.HasPrefix(k, p) { // the same payment id in another tenant
			return true
		}
		rec, _ := splitEvent(v)
		var e *simulator.Event
		if e, ferr = decodeEvent(rec, tid); ferr != nil {
			return false
		}
		if (q.Type == "" || e.Type == q.Type) && (q.Status == "" || e.Status == q.Status) {
			out = append(out, e)
		}
		return q.Limit <= 0 || len(out) < q.Limit
	})
	return out, errors.Join(err, ferr)
}
