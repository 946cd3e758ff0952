package store

import (
	"encoding/binary"
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
// event's payment id (the head of the stored value, before the encoded
// record: a slice, no decoding, see evStore), then by key: one payment's
// events of one tenant are therefore a contiguous range, in creation order.
// buntdb maintains it inside the transaction that sets or deletes an event
// key (append, attempt, prune, tenant reset or delete; a rollback undoes it
// too) and builds it in memory over every stored event: nothing else is
// stored for it. Its cost is a B-tree of pointers
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

// eventKeyPattern matches the evt: keys only.
const eventKeyPattern = pEvent + "*"

// createEventIndex adds idxEventPayment to db.
func createEventIndex(db *buntdb.DB) error {
	return db.Update(func(tx *buntdb.Tx) error {
		return tx.CreateIndex(idxEventPayment, eventKeyPattern, lessEventPayment)
	})
}

// eventPaymentID returns the payment id at the head of a stored event
// (evStore), or "" when it has none.
func eventPaymentID(v string) string {
	pid, _, _ := splitEvent(v)
	return pid
}

func lessEventPayment(a, b string) bool { return eventPaymentID(a) < eventPaymentID(b) }

// eventPivot is a value whose payment id is pid (for index walks).
func eventPivot(pid string) string {
	b := binary.AppendUvarint([]byte{recV2}, uint64(len(pid)))
	return string(append(b, pid...))
}

// eventsOfPayment lists tenant tid's events of payment pid, newest first,
// with q's type and status filters and limit, reading only that payment's
// range of idxEventPayment (all of the tenant's events until it is built).
func (t *Tx) eventsOfPayment(tid string, q simulator.EventQuery) ([]*simulator.Event, error) {
	btx, events, err := t.events(tid)
	if err != nil {
		return nil, err
	}
	if !events.use() {
		return t.scanEvents(tid, q)
	}
	want := q.PaymentID
	pivot := eventPivot(want)
	p := pEvent
	var out []*simulator.Event
	var ferr error
	// The pivot sorts after every event of the payment (buntdb puts a keyless
	// pivot after the items whose values compare equal), so descending from it
	// walks the payment's events from the greatest key down.
	err = btx.DescendLessOrEqual(idxEventPayment, pivot, func(k, v string) bool {
		if eventPaymentID(v) != want {
			return false
		}
		if !strings.HasPrefix(k, p) { // not an event key of the tenant (its file holds no other's)
			return true
		}
		var e *simulator.Event
		if e, ferr = decodeEvent(v, tid); ferr != nil {
			if ferr = unreadable(k, ferr); t.skip(ferr) {
				ferr = nil
				return true
			}
			return false
		}
		if (q.Type == "" || e.Type == q.Type) && (q.Status == "" || e.Status == q.Status) {
			out = append(out, e)
		}
		return q.Limit <= 0 || len(out) < q.Limit
	})
	return out, errors.Join(err, ferr)
}
