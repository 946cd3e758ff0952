package store

import (
	"github.com/tidwall/buntdb"
)

// TenantRecords calls fn for every stored key/value pair that belongs to the
// tenant tid: its records in its file (not the tenant record, its API keys
// or its hint, which are the catalog's; not a file's shrink marker). It is
// for tools (CloneCheckouts measures a checkout with it), not request
// paths.
func (d *DB) TenantRecords(tid string, fn func(k, v string) bool) error {
	return d.viewTenant(tid, func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			return k == kShrinkDue || fn(k, v)
		})
	})
}

// viewTenant runs fn in a read view of tenant tid's file (an empty one when
// the tenant has no file), the file held meanwhile.
func (d *DB) viewTenant(tid string, fn func(*buntdb.Tx) error) error {
	f, err := d.reg.acquire(tid, false)
	if err != nil {
		return err
	}
	if f == nil {
		return d.empty.View(fn)
	}
	defer d.reg.release(f)
	return f.db.View(fn)
}
