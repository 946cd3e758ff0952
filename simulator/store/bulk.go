package store

import (
	"errors"
	"slices"
	"strings"

	"github.com/tidwall/buntdb"
)

// TenantRecords calls fn for every stored key/value pair that belongs to the
// tenant tid: its records under "t:<tid>:", its client tokens and 3DS
// challenges, and its entries in the global job queue (not the tenant record
// or its API keys). It is for tools (bench seed), not request paths: it scans
// every key.
func (d *DB) TenantRecords(tid string, fn func(k, v string) bool) error {
	own := tenantPrefix(tid)
	return d.db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			switch {
			case strings.HasPrefix(k, own),
				(strings.HasPrefix(k, pCTok) || strings.HasPrefix(k, pCh3DS)) && strings.HasPrefix(v, esc(tid)+"/"),
				strings.HasPrefix(k, pJobQ) && strings.Contains(k, ":"+tid+":"):
				return fn(k, v)
			}
			return true
		})
	})
}

// PutRaw stores key/value pairs as they are, in one transaction. It is for
// tools that replicate records read with TenantRecords (bench seed).
// Cached records it overwrites leave the hot cache.
func (d *DB) PutRaw(pairs [][2]string) error {
	var seq uint64
	err := d.db.Update(func(tx *buntdb.Tx) error {
		for _, p := range pairs {
			if _, _, err := tx.Set(p[0], p[1], nil); err != nil {
				return err
			}
		}
		seq = d.hot.seq.Add(1)
		return nil
	})
	if err == nil {
		for _, p := range pairs {
			if hotKind(p[0]) != hotNone {
				d.hot.drop(p[0], seq)
			}
		}
		d.disk.committed()
		d.notifyKeys(func(yield func(string) bool) {
			for _, p := range pairs {
				if !yield(p[0]) {
					return
				}
			}
		})
	}
	return err
}

// DeleteRaw deletes keys (missing ones are skipped) in one transaction. It
// is for tools that shape a file written with PutRaw (bench seed).
func (d *DB) DeleteRaw(keys []string) error {
	var seq uint64
	err := d.db.Update(func(tx *buntdb.Tx) error {
		for _, k := range keys {
			if _, err := tx.Delete(k); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
				return err
			}
		}
		seq = d.hot.seq.Add(1)
		return nil
	})
	if err == nil {
		for _, k := range keys { // like PutRaw: no cached record outlives its delete
			if hotKind(k) != hotNone {
				d.hot.drop(k, seq)
			}
		}
		d.disk.committed()
		d.notifyKeys(slices.Values(keys))
	}
	return err
}
