package store

import (
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/paysandbox/paysandbox/simulator"
)

// CloneID is an id the records of a cloned checkout hold, with its kind: each
// clone holds a fresh id of that kind in its place.
type CloneID struct {
	ID   string
	Kind simulator.IDKind
}

// CloneOptions say how CloneCheckouts copies a tenant's checkout.
type CloneOptions struct {
	// IDs are the checkout's ids that every clone replaces (session, token,
	// payment, attempt, event ids...), NewID makes the fresh ones.
	IDs   []CloneID
	NewID func(simulator.IDKind) string
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
// checkout), each with fresh ids in place of o.IDs, and returns the
// checkout's size and how many events were kept. The checkout is read as
// the domain's values (its sessions, instruments, payments, attempts,
// events, jobs, disputes, challenge tokens and idempotency claims); each
// copy is those values with every string holding an id of o.IDs changed
// (cloner), written through the typed Tx methods, o.Batch checkouts a
// transaction: what the service stores for such a checkout, so what is
// measured on the result (memory, file size, start-up) is that of real
// data. It is for tools that fill a file (bench seed), not request paths.
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
	// the template's strings that hold an id, cut at each id: a clone
	// assembles them from its fresh ids (a strings.Replacer per clone over
	// every string was most of a clone's cost)
	scan := &cloner{old: make([]string, len(o.IDs)), segs: map[string][]segment{}}
	for i, id := range o.IDs {
		scan.old[i] = id.ID
	}
	for _, c := range puts {
		if err := c.put(nil, scan.value); err != nil {
			return size, 0, err
		}
	}
	for first := 1; first < n; first += batch {
		err := d.Update(func(tx simulator.Tx) error {
			for i := first; i < min(n, first+batch); i++ {
				cl := &cloner{segs: scan.segs, fresh: make([]string, len(o.IDs))}
				for j, id := range o.IDs {
					cl.fresh[j] = o.NewID(id.Kind)
				}
				for _, c := range puts {
					if c.event && i < withEvents {
						continue
					}
					if err := c.put(tx, cl.value); err != nil {
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
					if err := tx.del(k); err != nil {
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

// cloneRecord writes a copy of one record of a checkout: put stores
// clone(v) for each value v of the record (with a nil tx it only calls
// clone).
type cloneRecord struct {
	event bool
	put   func(tx simulator.Tx, clone func(any) any) error
}

// checkout reads the records at keys (a tenant's file) as the domain's
// values, each with the typed write that stores a copy of it. Index
// entries that those writes make (token entries, the payment list, event
// ids and queues, customers' instruments, job due times) are skipped; an
// observer's record (one per tenant, not per checkout) too.
func (t *Tx) checkout(tid string, keys []string) ([]cloneRecord, error) {
	var out []cloneRecord
	p := tenantPrefix(tid)
	for _, k := range keys {
		kind, rest, ok := strings.Cut(strings.TrimPrefix(k, p), ":")
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
			pid, e := t.raw(k)
			c.put, err = func(tx simulator.Tx, cl func(any) any) error {
				tok, id := cl(rest).(string), cl(pid).(string)
				if tx == nil {
					return nil
				}
				return tx.PutChallenge(tok, tid, id)
			}, e
		case "idem":
			pid, e := t.raw(k)
			key, herr := hex.DecodeString(rest)
			c.put, err = func(tx simulator.Tx, cl func(any) any) error {
				k, id := cl(string(key)).(string), cl(pid).(string)
				if tx == nil {
					return nil
				}
				return tx.ClaimIdempotency(tid, k, id)
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
	return func(tx simulator.Tx, cl func(any) any) error {
		c := cl(v).(*T)
		if tx == nil {
			return nil
		}
		return put(tx, c)
	}
}

// cloner makes a checkout's copies. Reading the template (old set: its
// ids) it cuts each string holding an id into segs; making a clone (fresh
// set: the clone's ids, in old's order) it assembles those strings from
// their segments.
type cloner struct {
	old, fresh []string
	segs       map[string][]segment
}

// segment is a part of a string: literal text, or the id of index id.
type segment struct {
	lit string
	id  int // -1: lit
}

func (c *cloner) value(v any) any {
	out, _ := c.clone(reflect.ValueOf(v))
	return out.Interface()
}

// replace is s with the clone's ids in place of the template's.
func (c *cloner) replace(s string) (string, bool) {
	if c.fresh == nil {
		if segs := cut(s, c.old); segs != nil {
			c.segs[s] = segs
		}
		return s, false
	}
	segs, ok := c.segs[s]
	if !ok {
		return s, false
	}
	var b strings.Builder
	for _, sg := range segs {
		if sg.id < 0 {
			b.WriteString(sg.lit)
		} else {
			b.WriteString(c.fresh[sg.id])
		}
	}
	return b.String(), true
}

// cut splits s at each occurrence of an id of ids (leftmost first, the
// earlier id of ids where two start at once); nil when s holds none.
func cut(s string, ids []string) []segment {
	var out []segment
	lit := 0
	for i := 0; i < len(s); {
		found := -1
		for j, id := range ids {
			if id != "" && strings.HasPrefix(s[i:], id) {
				found = j
				break
			}
		}
		if found < 0 {
			i++
			continue
		}
		if lit < i {
			out = append(out, segment{lit: s[lit:i], id: -1})
		}
		out = append(out, segment{id: found})
		i += len(ids[found])
		lit = i
	}
	if out == nil {
		return nil
	}
	if lit < len(s) {
		out = append(out, segment{lit: s[lit:], id: -1})
	}
	return out
}

// clone is v with r's replacements made in every string (and byte
// slice) it holds: a copy of a checkout's value with fresh ids, whatever
// members hold them. What holds no replaced string is shared with v, not
// copied (the typed writes only read their values); unexported fields are
// copied as they are. changed reports whether anything was replaced.
func (c *cloner) clone(v reflect.Value) (out reflect.Value, changed bool) {
	switch v.Kind() {
	case reflect.String:
		ns, ok := c.replace(v.String())
		if !ok {
			return v, false
		}
		out = reflect.New(v.Type()).Elem()
		out.SetString(ns)
		return out, true
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, ok := c.clone(v.Elem())
		if !ok {
			return v, false
		}
		if v.Kind() == reflect.Pointer {
			out = reflect.New(v.Type().Elem())
			out.Elem().Set(e)
			return out, true
		}
		out = reflect.New(v.Type()).Elem()
		out.Set(e)
		return out, true
	case reflect.Struct:
		for _, i := range exportedFields(v.Type()) {
			f, ok := c.clone(v.Field(i))
			if !ok {
				continue
			}
			if !changed {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
				changed = true
			}
			out.Field(i).Set(f)
		}
		if !changed {
			return v, false
		}
		return out, true
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return v, false
		}
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			nb, ok := c.replace(string(v.Bytes()))
			if !ok {
				return v, false
			}
			return reflect.ValueOf([]byte(nb)).Convert(v.Type()), true
		}
		for i := range v.Len() {
			e, ok := c.clone(v.Index(i))
			if !ok {
				continue
			}
			if !changed {
				if v.Kind() == reflect.Slice {
					out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				} else {
					out = reflect.New(v.Type()).Elem()
				}
				reflect.Copy(out, v)
				changed = true
			}
			out.Index(i).Set(e)
		}
		if !changed {
			return v, false
		}
		return out, true
	case reflect.Map:
		if v.IsNil() {
			return v, false
		}
		for it := v.MapRange(); it.Next(); {
			k, kc := c.clone(it.Key())
			e, ec := c.clone(it.Value())
			if !kc && !ec {
				continue
			}
			if !changed {
				out = reflect.MakeMapWithSize(v.Type(), v.Len())
				for it2 := v.MapRange(); it2.Next(); {
					out.SetMapIndex(it2.Key(), it2.Value())
				}
				changed = true
			}
			out.SetMapIndex(it.Key(), reflect.Value{})
			out.SetMapIndex(k, e)
		}
		if !changed {
			return v, false
		}
		return out, true
	}
	return v, false
}

// exportedFields are the indexes of t's exported fields (clone walks
// them for every record of every clone).
func exportedFields(t reflect.Type) []int {
	if f, ok := fieldsOf.Load(t); ok {
		return f.([]int)
	}
	var f []int
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			f = append(f, i)
		}
	}
	fieldsOf.Store(t, f)
	return f
}

var fieldsOf sync.Map // reflect.Type -> []int

// sizeOf measures a checkout's records.
func sizeOf(tmpl [][2]string) CheckoutSize {
	s := CheckoutSize{Keys: len(tmpl)}
	for _, kv := range tmpl {
		s.Bytes += len(kv[0]) + len(kv[1])
		if isEventKey(kv[0]) {
			s.EventKeys++
			s.EventBytes += len(kv[0]) + len(kv[1])
			if strings.HasPrefix(kv[0], pEvent(keyTid(kv[0]))) {
				s.Events++
			}
		}
	}
	return s
}

// isEventKey reports whether a tenant key is an outbox event's: its record,
// id index or pending entry.
func isEventKey(k string) bool {
	if !isTenantKey(k) {
		return false
	}
	tid := keyTid(k)
	for _, p := range []string{pEvent(tid), kEventID(tid, ""), pPending(tid)} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
