package store

import (
	"strings"

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
// (a tenant made for it: every record of its file and its catalog entries
// is part of the checkout), each with fresh ids in place of o.IDs, and
// returns the checkout's size and how many events were kept. The copies are
// byte for byte what the service stores for such a checkout, so what is
// measured on the result (memory, file size, start-up) is that of real
// data. It is for tools that fill a file (bench seed), not request paths.
func (d *DB) CloneCheckouts(tid string, o CloneOptions) (size CheckoutSize, kept int, err error) {
	var tmpl [][2]string
	if err := d.TenantRecords(tid, func(k, v string) bool { tmpl = append(tmpl, [2]string{k, v}); return true }); err != nil {
		return size, 0, err
	}
	size = sizeOf(tmpl)
	n := o.Clones + 1 // the checkouts in all, the original first
	// withEvents: checkouts from this index on keep their events (whole
	// checkouts: every clone has the original's event times).
	withEvents := 0
	if o.KeepEvents > 0 && size.Events > 0 {
		withEvents = max(0, n-o.KeepEvents/size.Events)
	}
	batch := max(1, o.Batch)
	pairs := make([]string, 2*len(o.IDs))
	buf := make([][2]string, 0, min(n, batch)*len(tmpl))
	for i := 1; i < n; i++ {
		for j, id := range o.IDs {
			pairs[2*j], pairs[2*j+1] = id.ID, o.NewID(id.Kind)
		}
		r := strings.NewReplacer(pairs...)
		for _, kv := range tmpl {
			if i < withEvents && isEventKey(kv[0]) {
				continue
			}
			buf = append(buf, [2]string{r.Replace(kv[0]), r.Replace(kv[1])})
		}
		if len(buf) >= batch*len(tmpl) || i == n-1 {
			if err := d.PutRaw(buf); err != nil {
				return size, 0, err
			}
			buf = buf[:0]
		}
	}
	if withEvents > 0 { // the original is not among the newest
		var doomed []string
		for _, kv := range tmpl {
			if isEventKey(kv[0]) {
				doomed = append(doomed, kv[0])
			}
		}
		if err := d.DeleteRaw(doomed); err != nil {
			return size, 0, err
		}
	}
	return size, (n - withEvents) * size.Events, nil
}

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
