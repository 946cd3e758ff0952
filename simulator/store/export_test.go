package store

import (
	"bytes"
	"errors"
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

// PutRaw stores key/value pairs as they are in tenant tid's file (the
// catalog's for ""), in one transaction. It is for tests that store
// records of older formats.
func (d *DB) PutRaw(tid string, pairs [][2]string) error {
	return d.rawWrite(tid, func(tx *buntdb.Tx) error {
		for _, p := range pairs {
			if _, _, err := tx.Set(p[0], p[1], nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteRaw deletes keys (missing ones are skipped) from tenant tid's
// file (the catalog's for ""), in one transaction.
func (d *DB) DeleteRaw(tid string, keys []string) error {
	return d.rawWrite(tid, func(tx *buntdb.Tx) error {
		for _, k := range keys {
			if _, err := tx.Delete(k); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
				return err
			}
		}
		return nil
	})
}

// rawWrite runs apply in a write transaction of tenant tid's file (the
// catalog's for "").
func (d *DB) rawWrite(tid string, apply func(*buntdb.Tx) error) error {
	var err error
	if tid == "" {
		if err = d.catalog.Update(apply); err == nil {
			d.disk.committed()
		}
		err = writeFailed(d.log, d.path, err)
	} else {
		var f *tenantFile
		if f, err = d.reg.acquire(tid, true); err == nil {
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
	if tid != "" {
		d.notifyChanges([]string{tid})
	}
	return nil
}

// PruneReads counts the events PruneEvents has read in d.
func (d *DB) PruneReads() int64 { return d.pruneReads.Load() }
