package store

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// CloneOptions say how CloneCheckouts copies a tenant's checkout.
type CloneOptions struct {
	// NewCopy is called once per clone; the func it returns makes that
	// clone's copy of each value of the checkout (*simulator.Payment,
	// *simulator.Event, ..., and the strings of a challenge token's entry
	// and of an idempotency claim): the value with fresh ids in place of
	// the checkout's. A copy may share with the value what it does not
	// change: the writes only read it.
	NewCopy func() func(v any) any
	// Clones is how many copies are stored, Batch how many per transaction.
	Clones, Batch int
	// KeepEvents is the webhook retention bound the clones are stored under:
	// only the newest checkouts (the original counts as the oldest) whose
	// outbox events fit within it keep them, as a server applying the bound
	// would. 0 keeps every checkout's events.
	KeepEvents int
}

// CheckoutSize measures one checkout's records: keys, and bytes of keys and
// values; of them its outbox events' (event records, id index, bodies,
// pending entries): EventKeys keys, EventBytes bytes, Events events.
type CheckoutSize struct {
	Keys, Bytes, EventKeys, EventBytes, Events int
}

// CloneCheckouts stores o.Clones copies of the one checkout tenant tid holds
// (a tenant made for it: every record of its file is part of the
// checkout), each made by o.NewCopy, and returns the checkout's size and
// how many events were kept. The checkout is read as the domain's values
// (its sessions, instruments, payments, attempts, events, jobs, disputes,
// challenge tokens and idempotency claims), and each copy is written
// through the typed Tx methods, o.Batch checkouts a transaction: what the
// service stores for such a checkout, so what is measured on the result
// (memory, file size, start-up) is that of real data. It is for tools that
// fill a file (bench seed), not request paths.
func (d *DB) CloneCheckouts(tid string, o CloneOptions) (size CheckoutSize, kept int, err error) {
	var keys []string
	var tmpl [][2]string
	if err := d.TenantRecords(tid, func(k, v string) bool {
		keys, tmpl = append(keys, k), append(tmpl, [2]string{k, v})
		return true
	}); err != nil {
		return size, 0, err
	}
	size = sizeOf(tmpl)
	var puts []cloneRecord
	if err := d.View(func(tx simulator.Tx) (err error) { puts, err = tx.(*Tx).checkout(tid, keys); return }); err != nil {
		return size, 0, err
	}
	n := o.Clones + 1 // the checkouts in all, the original first
	// withEvents: checkouts from this index on keep their events (whole
	// checkouts: every clone has the original's event times).
	withEvents := 0
	if o.KeepEvents > 0 && size.Events > 0 {
		withEvents = max(0, n-o.KeepEvents/size.Events)
	}
	batch := max(1, o.Batch)
	for first := 1; first < n; first += batch {
		err := d.Update(func(tx simulator.Tx) error {
			for i := first; i < min(n, first+batch); i++ {
				cp := o.NewCopy()
				for _, c := range puts {
					if c.event && i < withEvents {
						continue
					}
					if err := c.put(tx, cp); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return size, 0, err
		}
	}
	if withEvents > 0 { // the original is not among the newest
		err := d.Update(func(stx simulator.Tx) error {
			tx := stx.(*Tx)
			for _, k := range keys {
				if isEventKey(k) {
					if err := tx.del(tid, k); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return size, 0, err
		}
	}
	return size, (n - withEvents) * size.Events, nil
}

// cloneRecord writes a copy of one record of a checkout: put stores cp(v)
// for each value v of the record.
type cloneRecord struct {
	event bool
	put   func(tx simulator.Tx, cp func(any) any) error
}

// checkout reads the records at keys (a tenant's file) as the domain's
// values, each with the typed write that stores a copy of it. Index
// entries that those writes make (token entries, the payment list, event
// ids and queues, customers' instruments, job due times) are skipped; an
// observer's record (one per tenant, not per checkout) too.
func (t *Tx) checkout(tid string, keys []string) ([]cloneRecord, error) {
	var out []cloneRecord
	for _, k := range keys {
		kind, rest, ok := strings.Cut(k, ":")
		if !ok {
			continue // an observer's record
		}
		id := rest[strings.LastIndexByte(rest, ':')+1:]
		var c cloneRecord
		var err error
		switch kind {
		case "ctok", "payx", "evi", "whp", "cust", "jobd":
			continue
		case "cs":
			v, e := t.Session(tid, id)
			c.put, err = typedPut(v, simulator.Tx.PutSession), e
		case "pi":
			v, e := t.Instrument(tid, id)
			c.put, err = typedPut(v, simulator.Tx.PutInstrument), e
		case "pay":
			v, e := t.Payment(tid, id)
			c.put, err = typedPut(v, simulator.Tx.PutPayment), e
		case "att":
			v, e := t.Attempt(tid, id)
			c.put, err = typedPut(v, simulator.Tx.PutAttempt), e
		case "evt":
			v, e := t.Event(tid, id)
			c.event = true
			c.put, err = typedPut(v, simulator.Tx.AppendEvent), e
		case "job":
			v, e := t.Job(tid, id)
			c.put, err = typedPut(v, simulator.Tx.PutJob), e
		case "dsp":
			v, e := t.Dispute(tid, id)
			c.put, err = typedPut(v, simulator.Tx.PutDispute), e
		case "ch3ds":
			pid, e := t.get(tid, k)
			c.put, err = func(tx simulator.Tx, cp func(any) any) error {
				return tx.PutChallenge(cp(rest).(string), tid, cp(pid).(string))
			}, e
		case "idem":
			pid, e := t.get(tid, k)
			key, herr := hex.DecodeString(rest)
			c.put, err = func(tx simulator.Tx, cp func(any) any) error {
				return tx.ClaimIdempotency(tid, cp(string(key)).(string), cp(pid).(string))
			}, errors.Join(e, herr)
		default:
			return nil, fmt.Errorf("store: the checkout to clone holds %s, which the clone does not copy", k)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// typedPut is the put of a record read as v, written by put.
func typedPut[T any](v *T, put func(simulator.Tx, *T) error) func(simulator.Tx, func(any) any) error {
	return func(tx simulator.Tx, cp func(any) any) error { return put(tx, cp(v).(*T)) }
}

// sizeOf measures a checkout's records.
func sizeOf(tmpl [][2]string) CheckoutSize {
	s := CheckoutSize{Keys: len(tmpl)}
	for _, kv := range tmpl {
		s.Bytes += len(kv[0]) + len(kv[1])
		if isEventKey(kv[0]) {
			s.EventKeys++
			s.EventBytes += len(kv[0]) + len(kv[1])
			if strings.HasPrefix(kv[0], pEvent) {
				s.Events++
			}
		}
	}
	return s
}

// isEventKey reports whether a tenant file's key is an outbox event's: its
// record, id index or pending entry.
func isEventKey(k string) bool {
	for _, p := range []string{pEvent, kEventID(""), pPending} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
