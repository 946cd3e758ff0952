package store

import (
	"encoding/json"

	"github.com/tidwall/buntdb"

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
	var x any
	if err := decode(v, &x); err != nil {
		return "undecodable: " + err.Error()
	}
	b, err := json.Marshal(x)
	if err != nil {
		return "unrenderable: " + err.Error()
	}
	return string(b)
}

// EventJSON renders a stored event's record as JSON (RecordJSON), its
// payment's record after it when it has one.
func EventJSON(v string) string {
	st, err := decodeEventStore(v)
	if err != nil {
		return "undecodable: " + err.Error()
	}
	rec, err := appendRecord(nil, st.R)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	out := RecordJSON(string(rec))
	if len(st.P) > 0 {
		out += "\n" + RecordJSON(string(rune(recV1))+string(st.P))
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
