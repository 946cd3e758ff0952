package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/paysandbox/paysandbox/simulator"
)

// Webhook outbox and disputes. Besides the event itself (evt, evi in keys.go):
//
//	t:<tenant>:whp:<payment>:<created>:<id>   PENDING events by payment, in creation order -> nextAt
//	t:<tenant>:dsp:<id>                       dispute
//
// A payment's events are listed through the in-memory buntdb index
// event_index.go keeps over the evt: keys (no key of its own). An event's
// value is described at evStore.
func pPending(tid string) string { return tenantPrefix(tid) + "whp:" }
func kPending(e *simulator.Event) string {
	return pPending(e.TenantID) + e.PaymentID + ":" + stamp(e.CreatedAt) + ":" + e.ID
}
func pDispute(tid string) string     { return tenantPrefix(tid) + "dsp:" }
func kDispute(tid, id string) string { return pDispute(tid) + id }

// indexPending keeps e's entry in the pending queue in step with its status.
func (t *Tx) indexPending(e *simulator.Event) error {
	if e.Status != simulator.DeliveryPending {
		return t.del(kPending(e))
	}
	next := ""
	if !e.NextAt.IsZero() {
		next = e.NextAt.UTC().Format(time.RFC3339Nano)
	}
	return t.setRaw(kPending(e), next)
}

// An event is one key. Its value is the record format's version byte, the
// event's payment id (a uvarint length, then the id: the events-by-payment
// index reads it there, event_index.go), then an evStore: the record and
// what its webhook body is rendered from, the payment as it was and the
// dispute of a DISPUTE.* event, or, for an event of an earlier release, its
// rendered body (older still, that body is apart at evb). Listing decodes
// the record only; recording an attempt rewrites the rest unchanged.
type evStore struct {
	R evRec           `json:"r"`
	P cbor.RawMessage `json:"p,omitempty"` // a payRec
	D cbor.RawMessage `json:"d,omitempty"` // a simulator.Dispute (Then left out)
	B []byte          `json:"b,omitempty"` // a rendered body (events of earlier releases)
	// V is the webhook version the body is rendered in; events stored
	// without one render in the current version (2.4).
	V string `json:"v,omitempty"`
}

// evHead is the part of an evStore a listing reads.
type evHead struct {
	R evRec `json:"r"`
}

// evRec is an event record as stored: the tenant id is the key's and
// attempts leave out their zero values.
type evRec struct {
	ID        string          `json:"id"`
	TenantID  string          `json:"tenantId,omitempty"` // read only (earlier JSON records)
	Type      string          `json:"eventType"`
	PaymentID string          `json:"paymentId"`
	DisputeID string          `json:"disputeId,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
	Body      json.RawMessage `json:"body,omitempty"` // what the record of an earlier release held ("null"), kept by the migration
	Status    string          `json:"status"`
	NextAt    time.Time       `json:"nextAt,omitzero"`
	Attempts  []attRec        `json:"attempts,omitempty"`
	// TraceParent is simulator.Event.TraceParent.
	TraceParent string `json:"traceParent,omitempty" cbor:"tp,omitempty"`
	// PaymentStatus is simulator.Event.PaymentStatus.
	PaymentStatus string `json:"paymentStatus,omitempty" cbor:"ps,omitempty"`
}

// attRec is simulator.DeliveryAttempt without its zero values.
type attRec struct {
	At               time.Time         `json:"at"`
	StatusCode       int               `json:"statusCode,omitempty"`
	LatencyMs        int64             `json:"latencyMs,omitempty"`
	Error            string            `json:"error,omitempty"`
	ResponseBodyHead string            `json:"responseBodyHead,omitempty"`
	SignedAt         string            `json:"signedAt,omitempty"`
	Headers          map[string]string `json:"headers,omitempty"`
	Replay           bool              `json:"replay,omitempty"`
	Chaos            string            `json:"chaos,omitempty"`
}

func evRecOf(e *simulator.Event) evRec {
	rec := evRec{ID: e.ID, Type: e.Type, PaymentID: e.PaymentID, DisputeID: e.DisputeID, CreatedAt: e.CreatedAt,
		Status: e.Status, NextAt: e.NextAt, TraceParent: e.TraceParent, PaymentStatus: string(e.PaymentStatus)}
	if rec.PaymentStatus == "" && e.Payment != nil {
		rec.PaymentStatus = string(e.Payment.Status)
	}
	if len(e.Attempts) > 0 {
		rec.Attempts = make([]attRec, len(e.Attempts))
		for i, a := range e.Attempts {
			rec.Attempts[i] = attRec(a)
		}
	}
	return rec
}

// event is the record as the domain has it, of tenant tid. Its Body is what
// decoding "body":null gave JSON records: the literal null.
func (rec *evRec) event(tid string) *simulator.Event {
	e := &simulator.Event{ID: rec.ID, TenantID: tid, Type: rec.Type, PaymentID: rec.PaymentID, DisputeID: rec.DisputeID,
		CreatedAt: rec.CreatedAt, Body: rec.Body, Status: rec.Status, NextAt: rec.NextAt, TraceParent: rec.TraceParent,
		PaymentStatus: simulator.PaymentStatus(rec.PaymentStatus)}
	if e.Body == nil {
		e.Body = json.RawMessage("null")
	}
	if len(rec.Attempts) > 0 {
		e.Attempts = make([]simulator.DeliveryAttempt, len(rec.Attempts))
		for i, a := range rec.Attempts {
			e.Attempts[i] = simulator.DeliveryAttempt(a)
		}
	}
	return e
}

// eventInputs is the evStore of a new event: its payment and dispute, or
// the rendered body an event of an earlier release carries.
func eventInputs(e *simulator.Event) (*evStore, error) {
	st := &evStore{R: evRecOf(e), V: string(e.Version)}
	if e.Payment == nil && e.Dispute == nil {
		st.B = e.Body
		return st, nil
	}
	if e.Payment != nil {
		b, err := encMode.Marshal(payRecOf(e.Payment))
		if err != nil {
			return nil, err
		}
		st.P = b
	}
	if e.Dispute != nil {
		d := *e.Dispute
		d.Then = nil // scripted steps yet to run: not part of any body
		b, err := encMode.Marshal(&d)
		if err != nil {
			return nil, err
		}
		st.D = b
	}
	return st, nil
}

// eventValue is st as stored (see evStore).
func eventValue(st *evStore) (string, error) {
	pid := st.R.PaymentID
	b := make([]byte, 0, 256+len(st.P)+len(st.D)+len(st.B))
	b = append(b, recV1)
	b = binary.AppendUvarint(b, uint64(len(pid)))
	b = append(b, pid...)
	enc, err := encMode.Marshal(st)
	if err != nil {
		return "", err
	}
	return string(append(b, enc...)), nil
}

var errEventValue = errors.New("store: malformed event value")

// splitEvent splits a stored event into its payment id and its evStore's
// encoding.
func splitEvent(v string) (pid, rest string, err error) {
	if len(v) < 2 || v[0] != recV1 {
		return "", "", errNotRecord
	}
	n, k := binary.Uvarint([]byte(v[1:min(len(v), 11)]))
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
	if err := decMode.Unmarshal([]byte(rest), &h); err != nil {
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
	if err := decMode.Unmarshal([]byte(rest), &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// eventKey resolves an event id to its record's key through its evi entry,
// which holds the key's creation stamp; "" when there is no such event.
func (t *Tx) eventKey(tid, id string) (string, error) {
	v, err := t.raw(kEventID(tid, id))
	if err != nil || v == "" {
		return v, err
	}
	return pEvent(tid) + v + ":" + id, nil
}

// putEvent writes st at k.
func (t *Tx) putEvent(k string, st *evStore) error {
	v, err := eventValue(st)
	if err != nil {
		return err
	}
	return t.setRaw(k, v)
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
			var rec payRec
			if err := decMode.Unmarshal(st.P, &rec); err != nil {
				return nil, unreadable(k, err)
			}
			if e.Payment, err = rec.payment(tid); err != nil {
				return nil, unreadable(k, err)
			}
		}
		if len(st.D) > 0 {
			var d simulator.Dispute
			if err := decMode.Unmarshal(st.D, &d); err != nil {
				return nil, unreadable(k, err)
			}
			e.Dispute = &d
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
	v, err := t.raw(k)
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
	v, err := t.raw(k)
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
	v, err := t.raw(k)
	if err != nil {
		return err
	}
	st, err := decodeEventStore(v)
	if err != nil {
		return unreadable(k, err)
	}
	body := st.R.Body
	st.R = evRecOf(e)
	st.R.Body = body
	return t.putEvent(k, st)
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
	p := pEvent(tid)
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
	p := pPending(tid)
	err := t.prefix(p, func(k, v string) bool {
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
	p := pEvent(tid)
	btx, events, err := t.events(tid)
	if err != nil {
		return 0, from, err
	}
	var doomed []string
	var freed int64
	var ferr error
	finished := func(v string) bool {
		st, err := eventStatus(v)
		if err != nil {
			ferr = err
		}
		return err == nil && st != simulator.DeliveryPending
	}
	cut := ""
	if !before.IsZero() {
		cut = p + stamp(before)
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
		id := k[strings.LastIndexByte(k, ':')+1:]
		if err := errors.Join(t.del(k), t.del(kEventID(tid, id))); err != nil {
			return 0, from, err
		}
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
	var st struct {
		R struct {
			Status string `json:"status"`
		} `json:"r"`
	}
	err = decMode.Unmarshal([]byte(rest), &st)
	return st.R.Status, err
}

func (t *Tx) Dispute(tid, id string) (*simulator.Dispute, error) {
	if id == "" || strings.ContainsAny(id, ":/") {
		return nil, nil
	}
	return getTyped[simulator.Dispute](t, kDispute(tid, id))
}

func (t *Tx) PutDispute(d *simulator.Dispute) error { return t.put(kDispute(d.TenantID, d.ID), d) }

func (t *Tx) Disputes(tid, pid string) ([]*simulator.Dispute, error) {
	var out []*simulator.Dispute
	var ferr error
	err := t.prefix(pDispute(tid), func(k, v string) bool {
		var d simulator.Dispute
		if ferr = unreadable(k, decode(v, &d)); ferr != nil {
			if t.skip(ferr) {
				ferr = nil
				return true
			}
			return false
		}
		if pid == "" || d.PaymentID == pid {
			out = append(out, &d)
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
