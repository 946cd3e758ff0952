package store

import (
	"bytes"
	"errors"

	"github.com/tidwall/buntdb"
	"github.com/tinylib/msgp/msgp"

	"github.com/paysandbox/paysandbox/simulator"
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

// Migrate runs the JSON record migration over d's open tenant files
// (records put with PutRaw).
func (d *DB) Migrate() error {
	for _, f := range d.reg.openFiles() {
		if _, err := migrate(f.db, ":memory:"); err != nil { // ":memory:": no copy of the file kept
			return err
		}
	}
	return nil
}

// SetMigrateBatch makes each migration transaction convert at most n
// records, and cut the migration (Open fails) after stop batches when stop
// is positive; the returned func restores the defaults.
func SetMigrateBatch(n, stop int) (restore func()) {
	batch, cut := migrateBatch, migrateCut
	migrateBatch = n
	if stop > 0 {
		migrateCut = func(batches int) error {
			if batches >= stop {
				return errMigrateCut
			}
			return nil
		}
	}
	return func() { migrateBatch, migrateCut = batch, cut }
}

var errMigrateCut = errors.New("migration cut")

// FileFormat is the file's format marker ("" before the migration ends).
func (d *DB) FileFormat() string {
	var v string
	_ = d.catalog.View(func(tx *buntdb.Tx) (err error) { v, err = tx.Get(kFormat); return })
	return v
}
