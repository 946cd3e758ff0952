package store

import (
	"encoding/json"
	"errors"

	"github.com/tidwall/buntdb"
)

// Test hooks (compiled into this package's tests only).

// SetHotGenSize sets the size of a generation of each shard of the hot
// cache, so that tests turn generations over often. Call it before use.
func (d *DB) SetHotGenSize(n int) { d.hot.genSize = n }

// HotLen counts the records the hot cache holds.
func (d *DB) HotLen() int { return d.hot.len() }

// HotMaxEntries is the cache's bound at its default generation size.
const HotMaxEntries = hotMaxEntries

// SetHotMissHook makes every lock-free read that missed call f between its
// read of the store and its publish.
func (d *DB) SetHotMissHook(f func(key string)) { d.hot.afterMiss = f }

// DropHotCache empties the hot cache (memory measurements).
func (d *DB) DropHotCache() { d.hot = newHotCache() }

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
