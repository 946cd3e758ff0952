package store

import (
	"errors"
	"slices"
	"strings"

	"github.com/tidwall/buntdb"
)

// The catalog's part of a transaction. Reads are short catalog View calls
// of their own (never while the catalog's lock is held by this transaction:
// it holds none); writes are buffered in cat and applied in one catalog
// Update at commit (Tx.commit). Reads see the buffered writes: point reads
// and prefix scans alike (the overlay).

// catWrite is one buffered catalog write: a value, or a delete.
type catWrite struct {
	val     string
	deleted bool
}

func (t *Tx) catSet(key, val string) {
	if t.cat == nil {
		t.cat = make(map[string]catWrite, 4)
	}
	t.cat[key] = catWrite{val: val}
}

func (t *Tx) catDel(key string) {
	if t.cat == nil {
		t.cat = make(map[string]catWrite, 4)
	}
	t.cat[key] = catWrite{deleted: true}
}

// catGet reads key from the catalog ("" when absent), this transaction's
// writes first.
func (t *Tx) catGet(key string) (string, error) {
	if w, ok := t.cat[key]; ok {
		return w.val, nil
	}
	return t.d.catalogGet(key)
}

// catalogGet reads key from the committed catalog ("" when absent).
func (d *DB) catalogGet(key string) (v string, err error) {
	err = d.catalog.View(func(tx *buntdb.Tx) error {
		v, err = tx.Get(key)
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		return err
	})
	return v, err
}

// catPrefix calls fn with the catalog's keys under prefix in key order,
// this transaction's writes merged in. The committed ones are read first
// (one View), so fn runs outside the catalog's lock.
func (t *Tx) catPrefix(prefix string, fn func(k, v string) bool) error {
	type kv struct{ k, v string }
	var items []kv
	err := t.d.catalog.View(func(tx *buntdb.Tx) error {
		return tx.AscendGreaterOrEqual("", prefix, func(k, v string) bool {
			if !strings.HasPrefix(k, prefix) {
				return false
			}
			if _, mine := t.cat[k]; !mine {
				items = append(items, kv{k, v})
			}
			return true
		})
	})
	if err != nil {
		return err
	}
	merged := false
	for k, w := range t.cat {
		if strings.HasPrefix(k, prefix) && !w.deleted {
			items = append(items, kv{k, w.val})
			merged = true
		}
	}
	if merged {
		slices.SortFunc(items, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	}
	for _, it := range items {
		if !fn(it.k, it.v) {
			break
		}
	}
	return nil
}

// applyCatalog writes the buffered catalog writes in ctx (the commit's
// catalog Update). A value the catalog already holds is not written again:
// the configured tenants are put at every start, and a start on a full disk
// must not need space for them.
func (t *Tx) applyCatalog(ctx *buntdb.Tx) error {
	for k, w := range t.cat {
		if w.deleted {
			if _, err := ctx.Delete(k); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
				return err
			}
			continue
		}
		if cur, err := ctx.Get(k); err == nil && cur == w.val {
			continue
		}
		if _, _, err := ctx.Set(k, w.val, nil); err != nil {
			return err
		}
	}
	return nil
}
