package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Webhook outbox and disputes. Besides the event itself (evt, evi in keys.go):
//
//	t:<tenant>:whp:<payment>:<created>:<id>   PENDING events by payment, in creation order -> nextAt
//	t:<tenant>:evb:<id>                       an event's webhook body (raw JSON)
//	t:<tenant>:dsp:<id>                       dispute
//
// A payment's events are listed through the in-memory buntdb index
// event_index.go keeps over the evt: keys (no key of its own).
//
// An event is one key: its record (JSON, which holds no raw newline), then
// what its webhook body is rendered from, each part after a newline and
// tagged by its first byte: 'p' and the payment as it was (the payment
// record's encoding), 'd' and the dispute of a DISPUTE.* event (JSON).
// An event in the body form has its rendered body there instead (a JSON
// object, '{'), or apart at evb; those are read as Event.Body (and evb is deleted with the event). The parts are never
// parsed when events are listed; recording an attempt rewrites them
// unchanged.
func pPending(tid string) string { return tenantPrefix(tid) + "whp:" }
func kPending(e *simulator.Event) string {
	return pPending(e.TenantID) + e.PaymentID + ":" + stamp(e.CreatedAt) + ":" + e.ID
}
func kEventBody(tid, id string) string { return tenantPrefix(tid) + "evb:" + id }
func pDispute(tid string) string       { return tenantPrefix(tid) + "dsp:" }
func kDispute(tid, id string) string   { return pDispute(tid) + id }

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

// evRec is an event record as stored: the tenant id is the key's, the body
// follows the record in the same value (putEvent), and attempts leave out
// their zero values. Records in the long form (tenantId, "body":null, zero
// status codes and latencies) read the same.
type evRec struct {
	ID        string          `json:"id"`
	TenantID  string          `json:"tenantId,omitempty"` // read only (earlier records)
	Type      string          `json:"eventType"`
	PaymentID string          `json:"paymentId"`
	DisputeID string          `json:"disputeId,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
	Body      json.RawMessage `json:"body,omitempty"` // read only: "body":null in earlier records
	Status    string          `json:"status"`
	NextAt    time.Time       `json:"nextAt,omitzero"`
	Attempts  []attRec        `json:"attempts,omitempty"`
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

func encodeEvent(e *simulator.Event) ([]byte, error) {
	rec := evRec{ID: e.ID, Type: e.Type, PaymentID: e.PaymentID, DisputeID: e.DisputeID, CreatedAt: e.CreatedAt,
		Status: e.Status, NextAt: e.NextAt}
	if len(e.Attempts) > 0 {
		rec.Attempts = make([]attRec, len(e.Attempts))
		for i, a := range e.Attempts {
			rec.Attempts[i] = attRec(a)
		}
	}
	return appendEvRec(make([]byte, 0, 256+512*len(rec.Attempts)), &rec)
}

// decodeEvent reads an event record (the value's first line) of tenant tid.
// Its Body is what decoding "body":null gave before: the literal null.
func decodeEvent(raw, tid string) (*simulator.Event, error) {
	var rec evRec
	if err := json.Unmarshal([]byte(raw), &rec); err != nil {
		return nil, err
	}
	e := &simulator.Event{ID: rec.ID, TenantID: tid, Type: rec.Type, PaymentID: rec.PaymentID, DisputeID: rec.DisputeID,
		CreatedAt: rec.CreatedAt, Body: rec.Body, Status: rec.Status, NextAt: rec.NextAt}
	if e.Body == nil {
		e.Body = json.RawMessage("null")
	}
	if len(rec.Attempts) > 0 {
		e.Attempts = make([]simulator.DeliveryAttempt, len(rec.Attempts))
		for i, a := range rec.Attempts {
			e.Attempts[i] = simulator.DeliveryAttempt(a)
		}
	}
	return e, nil
}

// eventKey resolves an event id to its record's key through its evi entry,
// which holds the key's creation stamp (or, in the long form, the whole key); ""
// when there is no such event.
func (t *Tx) eventKey(tid, id string) (string, error) {
	v, err := t.raw(kEventID(tid, id))
	if err != nil || v == "" || strings.HasPrefix(v, "t:") {
		return v, err
	}
	return pEvent(tid) + v + ":" + id, nil
}

// putEvent writes the event record at k with body (what follows the
// record's newline: encodeEventInputs), or when body is nil with the body
// the stored event has (an update).
func (t *Tx) putEvent(k string, e *simulator.Event, body []byte) error {
	b, err := encodeEvent(e)
	if err != nil {
		return err
	}
	if body == nil {
		old, err := t.raw(k)
		if err != nil {
			return err
		}
		_, oldBody := splitEvent(old)
		if oldBody != "" {
			return t.setRaw(k, string(b)+"\n"+oldBody)
		}
		return t.setRaw(k, string(b))
	}
	if len(body) == 0 {
		return t.setRaw(k, string(b))
	}
	v := make([]byte, 0, len(b)+1+len(body))
	v = append(append(append(v, b...), '\n'), body...)
	return t.setRaw(k, string(v))
}

// splitEvent splits a stored event into its record and what follows it
// ("" when the body is kept apart, at evb).
func splitEvent(v string) (rec, body string) {
	if i := strings.IndexByte(v, '\n'); i >= 0 {
		return v[:i], v[i+1:]
	}
	return v, ""
}

func (t *Tx) Event(tid, id string) (*simulator.Event, error) {
	e, body, err := t.event(tid, id)
	if err != nil || e == nil {
		return nil, err
	}
	if body == "" {
		if body, err = t.raw(kEventBody(tid, id)); err != nil {
			return nil, err
		}
	}
	if err := decodeEventInputs(e, body); err != nil {
		return nil, fmt.Errorf("store: event %s: %w", id, err)
	}
	return e, nil
}

func (t *Tx) EventRecord(tid, id string) (*simulator.Event, error) {
	e, _, err := t.event(tid, id)
	return e, err
}

// event reads the record of event id and answers it with what follows it
// in the stored value (splitEvent); nil when there is no such event.
func (t *Tx) event(tid, id string) (*simulator.Event, string, error) {
	if id == "" || strings.ContainsAny(id, ":/") {
		return nil, "", nil
	}
	k, err := t.eventKey(tid, id)
	if err != nil || k == "" {
		return nil, "", err
	}
	v, err := t.raw(k)
	if err != nil || v == "" {
		return nil, "", err
	}
	recRaw, body := splitEvent(v)
	e, err := decodeEvent(recRaw, tid)
	if err != nil {
		return nil, "", err
	}
	return e, body, nil
}

// Tags of the parts that follow an event's record (see the keys above).
const (
	tagPayment = 'p'
	tagDispute = 'd'
)

// encodeEventInputs is what follows e's record: its payment and dispute,
// each tagged, or the rendered body of an event in the body form.
func encodeEventInputs(e *simulator.Event) ([]byte, error) {
	if e.Payment == nil && e.Dispute == nil {
		return append([]byte{}, e.Body...), nil
	}
	var out []byte
	if e.Payment != nil {
		b, err := encodePayment(e.Payment)
		if err != nil {
			return nil, err
		}
		out = append(append(out, tagPayment), b...)
	}
	if e.Dispute != nil {
		d := *e.Dispute
		d.Then = nil // scripted steps yet to run: not part of any body
		b, err := json.Marshal(&d)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(append(out, tagDispute), b...)
	}
	return out, nil
}

// decodeEventInputs reads what follows e's record into e: its payment and
// dispute, or the rendered body of the body form (Event.Body).
func decodeEventInputs(e *simulator.Event, v string) error {
	if v == "" || v[0] == '{' {
		if v != "" {
			e.Body = []byte(v)
		}
		return nil
	}
	for part := range strings.SplitSeq(v, "\n") {
		if part == "" {
			continue
		}
		switch part[0] {
		case tagPayment:
			p, err := decodePayment(part[1:], e.TenantID)
			if err != nil {
				return err
			}
			e.Payment = p
		case tagDispute:
			var d simulator.Dispute
			if err := decode(part[1:], &d); err != nil {
				return err
			}
			e.Dispute = &d
		default:
			return fmt.Errorf("unknown part %q", part[:1])
		}
	}
	e.Body = nil // "null": the record's, not a body
	return nil
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
	return t.putEvent(k, e, nil)
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
	err := t.tx.DescendLessOrEqual("", p+"~", func(k, v string) bool {
		if !strings.HasPrefix(k, p) {
			return false
		}
		rec, _ := splitEvent(v)
		var e *simulator.Event
		if e, ferr = decodeEvent(rec, tid); ferr != nil {
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
// the write lock however many events the tenant has.
func (t *Tx) PruneEvents(tid string, keep int, before time.Time) (int, error) {
	p := pEvent(tid)
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
		err := t.tx.AscendRange("", p, cut, func(k, v string) bool {
			if finished(v) {
				doomed = append(doomed, k)
				freed += int64(len(k) + len(v))
			}
			return ferr == nil && len(doomed) < simulator.PruneBatch
		})
		if err := errors.Join(err, ferr); err != nil {
			return 0, err
		}
	}
	if keep > 0 && len(doomed) < simulator.PruneBatch {
		kept := 0
		err := t.tx.DescendLessOrEqual("", p+"~", func(k, v string) bool {
			if !strings.HasPrefix(k, p) || k < cut { // older than the cut: the first walk's
				return false
			}
			if !finished(v) {
				return ferr == nil
			}
			if kept < keep {
				kept++
				return true
			}
			doomed = append(doomed, k)
			freed += int64(len(k) + len(v))
			return len(doomed) < simulator.PruneBatch
		})
		if err := errors.Join(err, ferr); err != nil {
			return 0, err
		}
	}
	for _, k := range doomed {
		id := k[strings.LastIndexByte(k, ':')+1:]
		if err := errors.Join(t.del(k), t.del(kEventID(tid, id)), t.del(kEventBody(tid, id))); err != nil {
			return 0, err
		}
	}
	t.events.notePruned(freed)
	return len(doomed), nil
}

const statusField = `"status":"`

// eventStatus reads the delivery status of a stored event (record, newline,
// body). The record's top-level "status" is found without decoding it: the
// fields before it are strings (in which a quote is always escaped, so the
// text "status": cannot occur there) and never objects; a record where an
// object comes before the first "status": is decoded instead.
func eventStatus(v string) (string, error) {
	rec, _ := splitEvent(v)
	if i := strings.Index(rec, statusField); i > 0 && strings.IndexByte(rec[1:i], '{') < 0 {
		rest := rec[i+len(statusField):]
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			return rest[:j], nil
		}
	}
	var e struct {
		Status string `json:"status"`
	}
	err := json.Unmarshal([]byte(rec), &e)
	return e.Status, err
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
	err := t.prefix(pDispute(tid), func(_, v string) bool {
		var d simulator.Dispute
		if ferr = json.Unmarshal([]byte(v), &d); ferr != nil {
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
