package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// The one-time migration of JSON records (every build before the binary
// format) to the binary format (codec.go). It runs in Open, before the
// store serves anything, in batches of one transaction each: a record is
// either old (its value starts with '{') or new, so a migration cut by
// kill -9 finds the records it had not reached at the next start. When a
// whole pass found nothing old, kFormat is written and later starts skip
// the scan. This file is the only reader of JSON records.

// kFormat holds the record format of the whole file once it is migrated.
const (
	kFormat     = "format"
	formatValue = "cbor1"
)

// Migration batch bounds: records converted, and keys looked at, per
// transaction (each holds buntdb's write lock while it runs).
var (
	migrateBatch = 1000
	migrateScan  = 20000
	// migrateCut, when set, is called after each committed batch; an error
	// stops the migration there (tests of a cut migration).
	migrateCut func(batches int) error
)

// migrate converts every JSON record of db and marks the file migrated; it
// answers how many records it converted.
func migrate(db *buntdb.DB, path string) (int, error) {
	done := false
	if err := db.View(func(tx *buntdb.Tx) error {
		v, err := tx.Get(kFormat)
		done = err == nil && v == formatValue
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		return err
	}); err != nil || done {
		return 0, err
	}
	if err := keepOriginal(db, path); err != nil {
		return 0, err
	}
	from, total, batches := "", 0, 0
	for {
		var next string
		n := 0
		err := db.Update(func(tx *buntdb.Tx) (err error) {
			n, next, err = migrateBatchFrom(tx, from, path)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		batches++
		if next == "" {
			break
		}
		from = next
		if migrateCut != nil {
			if err := migrateCut(batches); err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// migrateBatchFrom converts, in tx, the JSON records after key from (from
// itself included when it is ""), at most migrateBatch of them within
// migrateScan keys; it answers how many it converted and the key to go on
// after ("" once the file is done, which it then marks converted).
func migrateBatchFrom(tx *buntdb.Tx, from, path string) (n int, next string, err error) {
	type kv struct{ k, v string }
	var old []kv
	scanned := 0
	err = tx.AscendGreaterOrEqual("", from, func(k, v string) bool {
		if k == from && from != "" {
			return true
		}
		scanned++
		if len(v) > 0 && v[0] == '{' && recordKind(k) != "" {
			old = append(old, kv{k, v})
		}
		if len(old) >= migrateBatch || scanned >= migrateScan {
			next = k
			return false
		}
		return true
	})
	if err != nil {
		return 0, "", err
	}
	for _, r := range old {
		pairs, err := convertJSON(r.k, r.v)
		if err != nil {
			return 0, "", fmt.Errorf("store: migrating %s in %s: %w", r.k, path, err)
		}
		for _, p := range pairs {
			if _, _, err := tx.Set(p[0], p[1], nil); err != nil {
				return 0, "", err
			}
		}
	}
	if next == "" {
		_, _, err = tx.Set(kFormat, formatValue, nil)
	}
	return len(old), next, err
}

// recordKind names the kind of record a key holds ("" for keys whose values
// are not records: references, index entries, counters, raw bodies).
func recordKind(k string) string {
	switch {
	case strings.HasPrefix(k, pTenant):
		return "tenant"
	case strings.HasPrefix(k, pXTen):
		return "xten"
	case !strings.HasPrefix(k, "t:"):
		return ""
	}
	rest := k[2:]
	i := strings.IndexByte(rest, ':')
	if i < 0 {
		return ""
	}
	kind, _, ok := strings.Cut(rest[i+1:], ":")
	if !ok {
		return ""
	}
	switch kind {
	case "cs", "pi", "pay", "att", "evt", "job", "dsp":
		return kind
	}
	return ""
}

// decodeJSON reads a JSON record; free-form values (metadata) keep their
// exact numbers.
func decodeJSON(raw string, v any) error {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// convertJSON returns the binary form of the JSON record v at k, with any
// index entry the binary format keeps beside it (a payment's payx value).
func convertJSON(k, v string) ([][2]string, error) {
	var rec any
	switch recordKind(k) {
	case "tenant":
		rec = new(simulator.Tenant)
	case "xten":
		rec = new(simulator.ExpiredTenant)
	case "cs":
		rec = new(simulator.ClientSession)
	case "att":
		rec = new(simulator.Attempt)
	case "job":
		rec = new(simulator.Job)
	case "dsp":
		rec = new(simulator.Dispute)
	case "pi":
		var r instRec
		if err := decodeJSON(v, &r); err != nil {
			return nil, err
		}
		in, err := r.instrument(keyTenant(k))
		if err != nil {
			return nil, err
		}
		b, err := encodeInstrument(in)
		return [][2]string{{k, string(b)}}, err
	case "pay":
		p, err := paymentFromJSON(v, keyTenant(k))
		if err != nil {
			return nil, err
		}
		b, err := encodePayment(p)
		return [][2]string{{k, string(b)}, {kPayIdx(p.TenantID, p.Date, p.ID), listIndexValue(p)}}, err
	case "evt":
		s, err := eventFromJSON(v, keyTenant(k))
		if err != nil {
			return nil, err
		}
		ev, err := eventValue(s)
		return [][2]string{{k, ev}}, err
	default:
		return nil, errors.New("not a record")
	}
	if err := decodeJSON(v, rec); err != nil {
		return nil, err
	}
	b, err := marshal(rec)
	return [][2]string{{k, string(b)}}, err
}

func paymentFromJSON(v, tid string) (*simulator.Payment, error) {
	var r payRec
	if err := decodeJSON(v, &r); err != nil {
		return nil, err
	}
	return r.payment(tid)
}

// eventFromJSON reads an event of the JSON format: its record, then what
// its webhook body is rendered from, each part after a newline and tagged
// by its first byte ('p' a payment record, 'd' a dispute), or an earlier
// release's rendered body (a JSON object).
func eventFromJSON(v, tid string) (*evStore, error) {
	rec, rest, _ := strings.Cut(v, "\n")
	var st evStore
	if err := json.Unmarshal([]byte(rec), &st.R); err != nil {
		return nil, err
	}
	st.R.TenantID = "" // the key's
	if bytes.Equal(st.R.Body, []byte("null")) {
		st.R.Body = nil // what an absent body reads as
	}
	if rest != "" && rest[0] == '{' {
		st.B = []byte(rest)
		return &st, nil
	}
	for part := range strings.SplitSeq(rest, "\n") {
		if part == "" {
			continue
		}
		switch part[0] {
		case 'p':
			p, err := paymentFromJSON(part[1:], tid)
			if err != nil {
				return nil, err
			}
			if st.P, err = encMode.Marshal(payRecOf(p)); err != nil {
				return nil, err
			}
		case 'd':
			var d simulator.Dispute
			if err := decodeJSON(part[1:], &d); err != nil {
				return nil, err
			}
			var err error
			if st.D, err = encMode.Marshal(&d); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unknown part %q", part[:1])
		}
	}
	return &st, nil
}

// BackupSuffix names the copy of a data file that Open keeps before it
// converts the file's JSON records: PATH+BackupSuffix holds the file as it
// was before the conversion, until the user removes it.
const BackupSuffix = ".before-cbor"

// keepOriginal copies the data file at path to path+BackupSuffix before the
// migration writes to it, when the file holds a JSON record and no copy
// exists yet (a migration cut short and resumed keeps the first copy, the
// one taken before anything was converted).
func keepOriginal(db *buntdb.DB, path string) error {
	if path == ":memory:" {
		return nil
	}
	old := false
	if err := db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			old = len(v) > 0 && v[0] == '{' && recordKind(k) != ""
			return !old
		})
	}); err != nil || !old {
		return err
	}
	backup := path + BackupSuffix
	if _, err := os.Stat(backup); err == nil {
		return nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("store: keeping a copy of %s before converting it: %w", path, err)
	}
	tmp := backup + ".tmp"
	if err := os.WriteFile(tmp, src, 0o600); err != nil {
		return fmt.Errorf("store: keeping a copy of %s before converting it: %w", path, err)
	}
	if f, err := os.Open(tmp); err == nil {
		_ = f.Sync()
		f.Close()
	}
	if err := os.Rename(tmp, backup); err != nil {
		return fmt.Errorf("store: keeping a copy of %s before converting it: %w", path, err)
	}
	return nil
}
