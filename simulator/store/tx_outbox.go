package store

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Webhook outbox and disputes. Besides the event itself (evt, evi in keys.go):
//
//	whp:<payment>:<created>:<id>   PENDING events by payment, in creation order -> nextAt
//	dsp:<id>                       dispute
//
// A payment's events are listed through the in-memory buntdb index
// event_index.go keeps over the evt: keys (no key of its own). An event's
// value is described at evStore.
const pPending = "whp:"

func kPending(e *simulator.Event) string {
	d := stampDigits(e.CreatedAt.UnixMicro())
	return pPending + e.PaymentID + ":" + string(d[:]) + ":" + e.ID
}

const pDispute = "dsp:"

func kDispute(id string) string { return pDispute + id }

// indexPending keeps e's entry in the pending queue in step with its status.
func (t *Tx) indexPending(e *simulator.Event) error {
	if e.Status != simulator.DeliveryPending {
		return t.del(e.TenantID, kPending(e))
	}
	next := ""
	if !e.NextAt.IsZero() {
		next = e.NextAt.UTC().Format(time.RFC3339Nano)
	}
	return t.set(e.TenantID, kPending(e), next)
}

// An event is one key. Its value is the record format's version byte, the
// event's payment id (a uvarint length, then the id: the events-by-payment
// index reads it there, event_index.go), then an evStore (records.go).
// Listing decodes the record only; recording an attempt rewrites the rest
// unchanged.

// eventInputs is the evStore of a new event: its payment and dispute, or
// the rendered body an event in the body form carries. payEnc, when not
// nil, is e.Payment's record already encoded (Tx.appendEvent); the evStore
// refers to it.
func eventInputs(e *simulator.Event, payEnc []byte) (evStore, error) {
	st := evStore{R: evRecordOf(e), V: string(e.Version)}
	if e.Payment == nil && e.Dispute == nil {
		st.B = e.Body
		return st, nil
	}
	var err error
	if payEnc != nil {
		st.P = payEnc
	} else if e.Payment != nil {
		pr := payRecordOf(e.Payment)
		if st.P, err = pr.MarshalMsg(make([]byte, 0, pr.Msgsize())); err != nil {
			return st, err
		}
	}
	if e.Dispute != nil {
		d := disputeRecordOf(e.Dispute)
		d.Then = nil // scripted steps yet to run: not part of any body
		if st.D, err = d.MarshalMsg(make([]byte, 0, d.Msgsize())); err != nil {
			return st, err
		}
	}
	return st, nil
}

// eventValue is st as stored (see evStore).
func eventValue(st *evStore) (string, error) {
	pid := st.R.PaymentID
	bp := scratch.Get().(*[]byte)
	defer putScratch(bp)
	b := append((*bp)[:0], recV2)
	b = binary.AppendUvarint(b, uint64(len(pid)))
	b = append(b, pid...)
	b, err := st.MarshalMsg(b)
	*bp = b
	if err != nil {
		return "", err
	}
	return string(b), nil
}

var errEventValue = errors.New("store: malformed event value")

// splitEvent splits a stored event into its payment id and its evStore's
// encoding.
func splitEvent(v string) (pid, rest string, err error) {
	if len(v) < 2 || v[0] != recV2 {
		return "", "", errNotRecord
	}
	n, k := binary.Uvarint(view(v[1:min(len(v), 11)]))
	if k <= 0 || uint64(len(v)-1-k) < n {
		return "", "", errEventValue
	}
	return v[1+k : 1+k+int(n)], v[1+k+int(n):], nil
}

// decodeEvent reads the record of a stored event (not its inputs).
func decodeEvent(v, tid string) (*simulator.Event, error) {
	_, rest, err := splitEvent(v)
	if err != nil {
		return nil, err
	}
	var h evHead
	if _, err := h.UnmarshalMsg(view(rest)); err != nil {
		return nil, err
	}
	return h.R.event(tid), nil
}

func decodeEventStore(v string) (*evStore, error) {
	_, rest, err := splitEvent(v)
	if err != nil {
		return nil, err
	}
	var st evStore
	if _, err := st.UnmarshalMsg(view(rest)); err != nil {
		return nil, err
	}
	return &st, nil
}

// eventKey resolves an event id to its record's key; "" when there is no
// such event. An id that carries a time (simulator.UUIDMicros: the ids
// simulator.NewEventID makes) names the key's creation stamp, so the key
// at that stamp is read first; any other event (imported by a snapshot,
// made by an earlier build or with a test's fixed ids) has an evi entry
// holding its key's stamp, read when the first read finds nothing.
func (t *Tx) eventKey(tid, id string) (string, error) {
	if us, ok := simulator.UUIDMicros(id); ok {
		k := kEventAt(us, id)
		if v, err := t.get(tid, k); err != nil || v != "" {
			return k, err
		}
	}
	v, err := t.get(tid, kEventID(id))
	if err != nil || v == "" {
		return v, err
	}
	return pEvent + v + ":" + id, nil
}

// idCarriesKey reports whether an event of id whose key's stamp is
// created (microseconds, as stamp clamps them) needs no evi entry: its id
// carries that stamp (eventKey).
func idCarriesKey(id string, created int64) bool {
	us, ok := simulator.UUIDMicros(id)
	return ok && us == max(created, 0)
}

// putEvent writes st at tenant tid's k.
func (t *Tx) putEvent(tid, k string, st *evStore) error {
	v, err := eventValue(st)
	if err != nil {
		return err
	}
	return t.set(tid, k, v)
}

func (t *Tx) Event(tid, id string) (*simulator.Event, error) {
	st, k, err := t.eventStore(tid, id)
	if err != nil || st == nil {
		return nil, err
	}
	e := st.R.event(tid)
	e.Version = simulator.APIVersion(st.V)
	switch {
	case len(st.P) > 0 || len(st.D) > 0:
		e.Body = nil // "null": the record's, not a body
		if len(st.P) > 0 {
			var rec payRecord
			if _, err := rec.UnmarshalMsg(st.P); err != nil {
				return nil, unreadable(k, err)
			}
			if e.Payment, err = rec.payment(tid); err != nil {
				return nil, unreadable(k, err)
			}
		}
		if len(st.D) > 0 {
			var d disputeRecord
			if _, err := d.UnmarshalMsg(st.D); err != nil {
				return nil, unreadable(k, err)
			}
			e.Dispute = d.dispute(tid)
		}
	case len(st.B) > 0:
		e.Body = st.B
	}
	return e, nil
}

func (t *Tx) EventRecord(tid, id string) (*simulator.Event, error) {
	k, err := t.eventKeyOf(tid, id)
	if err != nil || k == "" {
		return nil, err
	}
	v, err := t.get(tid, k)
	if err != nil || v == "" {
		return nil, err
	}
	e, err := decodeEvent(v, tid)
	return e, unreadable(k, err)
}

// eventKeyOf is eventKey for an id given by a caller ("" for one that
// cannot be an event's).
func (t *Tx) eventKeyOf(tid, id string) (string, error) {
	if id == "" || strings.ContainsAny(id, ":/") {
		return "", nil
	}
	return t.eventKey(tid, id)
}

// eventStore reads event id whole, and its key; nil when there is no such
// event.
func (t *Tx) eventStore(tid, id string) (*evStore, string, error) {
	k, err := t.eventKeyOf(tid, id)
	if err != nil || k == "" {
		return nil, k, err
	}
	v, err := t.get(tid, k)
	if err != nil || v == "" {
		return nil, k, err
	}
	st, err := decodeEventStore(v)
	return st, k, unreadable(k, err)
}

func (t *Tx) PutEvent(e *simulator.Event) error {
	k, err := t.eventKey(e.TenantID, e.ID)
	if err != nil {
		return err
	}
	if k == "" {
		return errors.New("store: PutEvent of an event that was never appended")
	}
	if err := t.indexPending(e); err != nil {
		return err
	}
	if e.Status == simulator.DeliveryPending {
		t.moveHint(e.TenantID, hint{Pending: true})
	}
	v, err := t.get(e.TenantID, k)
	if err != nil {
		return err
	}
	st, err := decodeEventStore(v)
	if err != nil {
		return unreadable(k, err)
	}
	st.R = evRecordOf(e)
	return t.putEvent(e.TenantID, k, st)
}

// Events lists the tenant's events newest first; with a payment id it reads
// only that payment's events (event_index.go).
func (t *Tx) Events(tid string, q simulator.EventQuery) ([]*simulator.Event, error) {
	if q.PaymentID != "" {
		return t.eventsOfPayment(tid, q)
	}
	return t.scanEvents(tid, q)
}

// scanEvents lists the tenant's events that pass q, newest first, reading
// all of them.
func (t *Tx) scanEvents(tid string, q simulator.EventQuery) ([]*simulator.Event, error) {
	var out []*simulator.Event
	var ferr error
	p := pEvent
	btx, err := t.tenantTx(tid, false)
	if err != nil {
		return nil, err
	}
	err = btx.DescendLessOrEqual("", p+"~", func(k, v string) bool {
		if !strings.HasPrefix(k, p) {
			return false
		}
		var e *simulator.Event
		if e, ferr = decodeEvent(v, tid); ferr != nil {
			if ferr = unreadable(k, ferr); t.skip(ferr) {
				ferr = nil
				return true
			}
			return false
		}
		if (q.PaymentID == "" || e.PaymentID == q.PaymentID) && (q.Type == "" || e.Type == q.Type) && (q.Status == "" || e.Status == q.Status) {
			out = append(out, e)
		}
		return q.Limit <= 0 || len(out) < q.Limit
	})
	return out, errors.Join(err, ferr)
}

func (t *Tx) PendingEvents(tid string) ([]simulator.PendingRef, error) {
	var out []simulator.PendingRef
	var ferr error
	p := pPending
	err := t.prefix(tid, p, func(k, v string) bool {
		parts := strings.Split(strings.TrimPrefix(k, p), ":")
		if len(parts) != 3 {
			ferr = errors.New("store: malformed pending key " + k)
			return false
		}
		ref := simulator.PendingRef{TenantID: tid, PaymentID: parts[0], EventID: parts[2]}
		if us, err := strconv.ParseInt(parts[1], 10, 64); err == nil {
			ref.CreatedAt = time.UnixMicro(us).UTC()
		}
		if v != "" {
			if ref.NextAt, ferr = time.Parse(time.RFC3339Nano, v); ferr != nil {
				return false
			}
		}
		out = append(out, ref)
		return true
	})
	return out, errors.Join(err, ferr)
}

// PruneEvents deletes at most simulator.PruneBatch finished events: first
// those created before before (oldest first, walking up to the age cut),
// then, past the newest keep finished events, older ones (walking down from
// the newest). Each walk reads only the events it passes (keep, the pending
// ones among them and one batch), and an event's status is read from its
// record without decoding it (eventStatus), so one call stays short under
// the write lock however many events the tenant has. A call given the
// boundary an earlier one answered (from) starts the second walk below it,
// reading no kept event again: the prune of a busy tenant without an
// endpoint (every event finished at once) deletes thousands of events in
// one pass, and re-reading the kept ones for every batch cost 11% of a
// POST's server CPU (docs/performance.md).
func (t *Tx) PruneEvents(tid string, keep int, before time.Time, from simulator.PruneFrom) (int, simulator.PruneFrom, error) {
	p := pEvent
	btx, events, err := t.events(tid)
	if err != nil {
		return 0, from, err
	}
	cut := ""
	if !before.IsZero() {
		cut = p + stamp(before)
	}
	if r, ok := t.retentionOf(btx, tid); ok && from == "" &&
		(keep <= 0 || r.finished <= keep) && (cut == "" || r.oldest == "" || r.oldest >= cut) {
		return 0, from, nil // nothing over the bound
	}
	var doomed []string
	var freed int64
	var ferr error
	finished := func(v string) bool {
		t.d.pruneReads.Add(1)
		st, err := eventStatus(v)
		if err != nil {
			ferr = err
		}
		return err == nil && st != simulator.DeliveryPending
	}
	if cut != "" {
		err := btx.AscendRange("", p, cut, func(k, v string) bool {
			if finished(v) {
				doomed = append(doomed, k)
				freed += int64(len(k) + len(v))
			}
			return ferr == nil && len(doomed) < simulator.PruneBatch
		})
		if err := errors.Join(err, ferr); err != nil {
			return 0, from, err
		}
	}
	next := from
	if keep > 0 && len(doomed) < simulator.PruneBatch {
		kept, top := 0, p+"~"
		if from != "" { // the newest keep are above it, counted by an earlier call
			kept, top = keep, string(from)
		}
		err := btx.DescendLessOrEqual("", top, func(k, v string) bool {
			if !strings.HasPrefix(k, p) || k < cut { // older than the cut: the first walk's
				return false
			}
			if k == string(from) {
				return true
			}
			if !finished(v) {
				return ferr == nil
			}
			if kept < keep {
				kept++
				next = simulator.PruneFrom(k)
				return true
			}
			doomed = append(doomed, k)
			freed += int64(len(k) + len(v))
			return len(doomed) < simulator.PruneBatch
		})
		if err := errors.Join(err, ferr); err != nil {
			return 0, from, err
		}
	}
	for _, k := range doomed {
		i := strings.LastIndexByte(k, ':')
		id := k[i+1:]
		if err := t.del(tid, k); err != nil {
			return 0, from, err
		}
		if st, err := strconv.ParseInt(k[len(p):i], 10, 64); err != nil || !idCarriesKey(id, st) {
			if err := t.del(tid, kEventID(id)); err != nil {
				return 0, from, err
			}
		}
	}
	if len(doomed) > 0 {
		t.findOldestFinished(btx, tid)
	}
	events.notePruned(freed)
	return len(doomed), next, nil
}

// eventStatus reads the delivery status of a stored event, decoding only
// that member of its record.
func eventStatus(v string) (string, error) {
	_, rest, err := splitEvent(v)
	if err != nil {
		return "", err
	}
	var st evStatus
	_, err = st.UnmarshalMsg(view(rest))
	return st.R.Status, err
}

func (t *Tx) Dispute(tid, id string) (*simulator.Dispute, error) {
	if id == "" || strings.ContainsAny(id, ":/") {
		return nil, nil
	}
	return readTyped(t, id, kDispute(id), tid, decodeDispute)
}

func (t *Tx) PutDispute(d *simulator.Dispute) error {
	return t.put(d.TenantID, kDispute(d.ID), disputeRecordOf(d))
}

func (t *Tx) Disputes(tid, pid string) ([]*simulator.Dispute, error) {
	var out []*simulator.Dispute
	var ferr error
	err := t.prefix(tid, pDispute, func(k, v string) bool {
		var d *simulator.Dispute
		if d, ferr = decodeDispute(v, tid); ferr != nil {
			if ferr = unreadable(k, ferr); t.skip(ferr) {
				ferr = nil
				return true
			}
			return false
		}
		if pid == "" || d.PaymentID == pid {
			out = append(out, d)
		}
		return true
	})
	slices.SortFunc(out, func(a, b *simulator.Dispute) int { // newest first (uuids carry no order)
		if c := b.OpenedAt.Compare(a.OpenedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, errors.Join(err, ferr)
}
