package store

import (
	"errors"
	"strings"
	"time"

	"github.com/tidwall/buntdb"
)

// TenantRecords calls fn for every stored key/value pair that belongs to the
// tenant tid: its records under "t:<tid>:" (its file; not the tenant
// record, its API keys or its hint, which are the catalog's). It is for tools (CloneCheckouts),
// not request paths.
func (d *DB) TenantRecords(tid string, fn func(k, v string) bool) error {
	own := tenantPrefix(tid)
	return d.viewTenant(tid, func(tx *buntdb.Tx) error {
		return tx.AscendGreaterOrEqual("", own, func(k, v string) bool {
			return strings.HasPrefix(k, own) && fn(k, v)
		})
	})
}

// PutRaw stores key/value pairs as they are, one transaction per file
// (each tenant's, the catalog's). It is for tools that replicate records
// read with TenantRecords (CloneCheckouts).
func (d *DB) PutRaw(pairs [][2]string) error {
	return d.rawWrite(len(pairs), func(i int) string { return pairs[i][0] }, func(tx *buntdb.Tx, i int) error {
		_, _, err := tx.Set(pairs[i][0], pairs[i][1], nil)
		return err
	})
}

// DeleteRaw deletes keys (missing ones are skipped), one transaction per
// file. It is for tools that shape a file written with PutRaw (CloneCheckouts).
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
