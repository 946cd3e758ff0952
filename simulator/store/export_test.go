package store

import (
	"bytes"
	"errors"
	"iter"
	"time"

	"github.com/tidwall/buntdb"
	"github.com/tinylib/msgp/msgp"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

// Test hooks (compiled into this package's tests only).

// ReadTenant reads tenant id in a read transaction (nil when there is none).
func (d *DB) ReadTenant(id string) (tn *simulator.Tenant, err error) {
	err = d.View(func(tx simulator.Tx) (err error) { tn, err = tx.Tenant(id); return })
	return tn, err
}

// ReadTenantByAPIKey reads the tenant of an API key in a read transaction.
func (d *DB) ReadTenantByAPIKey(key string) (tn *simulator.Tenant, err error) {
	err = d.View(func(tx simulator.Tx) (err error) { tn, err = tx.TenantByAPIKey(key); return })
	return tn, err
}

// RecordJSON renders a stored record as JSON, member names as stored, for
// tests of what a record holds.
func RecordJSON(v string) string {
	if len(v) == 0 || v[0] != recV2 {
		return "undecodable: " + errNotRecord.Error()
	}
	var b bytes.Buffer
	if _, err := msgp.UnmarshalAsJSON(&b, []byte(v[1:])); err != nil {
		return "unrenderable: " + err.Error()
	}
	return b.String()
}

// EventJSON renders a stored event's record as JSON (RecordJSON), its
// payment's record after it when it has one.
func EventJSON(v string) string {
	st, err := decodeEventStore(v)
	if err != nil {
		return "undecodable: " + err.Error()
	}
	rec, err := marshal(&st.R)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	out := RecordJSON(string(rec))
	if len(st.P) > 0 {
		out += "\n" + RecordJSON(string(rune(recV2))+string(st.P))
	}
	if len(st.B) > 0 {
		out += "\n" + string(st.B)
	}
	return out
}

// Migrate converts the records of older formats in d's open tenant files
// (records put with PutRaw) as Open converts an older store's
// (simulator/storeconv).
func (d *DB) Migrate() error {
	for _, f := range d.reg.openFiles() {
		if _, err := storeconv.ConvertFile(f.db, ":memory:", target{path: d.path}); err != nil { // ":memory:": no copy of the file kept
			return err
		}
	}
	return nil
}

// FileFormat is the catalog's format number.
func (d *DB) FileFormat() string {
	var v string
	_ = d.catalog.View(func(tx *buntdb.Tx) (err error) { v, err = tx.Get(storeconv.KeyFormat); return })
	return v
}

// PutRaw stores key/value pairs as they are, one transaction per file
// (each tenant's, the catalog's). It is for tests that store records
// of older formats.
func (d *DB) PutRaw(pairs [][2]string) error {
	return d.rawWrite(len(pairs), func(i int) string { return pairs[i][0] }, func(tx *buntdb.Tx, i int) error {
		_, _, err := tx.Set(pairs[i][0], pairs[i][1], nil)
		return err
	})
}

// DeleteRaw deletes keys (missing ones are skipped), one transaction per
// file.
func (d *DB) DeleteRaw(keys []string) error {
	return d.rawWrite(len(keys), func(i int) string { return keys[i] }, func(tx *buntdb.Tx, i int) error {
		if _, err := tx.Delete(keys[i]); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
			return err
		}
		return nil
	})
}

// rawWrite runs op on the n keys (key(i)), grouped by file.
func (d *DB) rawWrite(n int, key func(int) string, op func(*buntdb.Tx, int) error) error {
	groups := map[string][]int{} // tenant id ("" with catalog set: the catalog)
	const catalog = "\x00catalog"
	var order []string
	for i := range n {
		g := catalog
		if k := key(i); isTenantKey(k) {
			g = keyTid(k)
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], i)
	}
	for _, g := range order {
		idx := groups[g]
		apply := func(tx *buntdb.Tx) error {
			for _, i := range idx {
				if err := op(tx, i); err != nil {
					return err
				}
			}
			return nil
		}
		var err error
		if g == catalog {
			if err = d.catalog.Update(apply); err == nil {
				d.disk.committed()
			}
			err = writeFailed(d.log, d.path, err)
		} else {
			var f *tenantFile
			if f, err = d.reg.acquire(g, true); err == nil {
				if err = f.db.Update(apply); err == nil {
					f.disk.committed()
				}
				err = writeFailed(d.log, f.path, err)
				d.reg.release(f)
			}
		}
		if err != nil {
			return err
		}
		d.lastWrite.Store(time.Now().UnixNano())
		d.notifyKeys(func(yield func(string) bool) {
			for _, i := range idx {
				if !yield(key(i)) {
					return
				}
			}
		})
	}
	return nil
}

// notifyKeys is notifyChanges for PutRaw and DeleteRaw.
func (d *DB) notifyKeys(keys iter.Seq[string]) {
	tx := &Tx{}
	for k := range keys {
		tx.noteTenant(k)
	}
	d.notifyChanges(tx.wrote)
}

// PruneReads counts the events PruneEvents has read in d.
func (d *DB) PruneReads() int64 { return d.pruneReads.Load() }
