package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

var _ simulator.Store = (*DB)(nil)

// Fsync policies (SANDBOX.md: everysecond writes each commit before the
// response, so kill -9 loses nothing; only a power cut can lose the last second).
const (
	FsyncAlways      = "always"
	FsyncEverySecond = "everysecond"
	FsyncNever       = "never"
)

// DB is the buntdb-backed store.
type DB struct {
	db      *buntdb.DB
	path    string
	hot     *hotCache // recently used typed records (hotcache.go)
	tenants tenantCache
	disk    *disk // nil for ":memory:"
	events  *eventIndex
	changes *changeHub // per-tenant commit notifications (changes.go)
	// migrated: JSON records Open converted to the binary format (migrate.go).
	migrated int
}

// Open opens (creating if missing, with its directory) the database at path;
// ":memory:" keeps nothing on disk.
func Open(path, fsync string) (*DB, error) {
	if path != ":memory:" {
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("store: creating %s: %w", dir, err)
			}
		}
	}
	db, err := buntdb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	var cfg buntdb.Config
	if err := db.ReadConfig(&cfg); err != nil {
		db.Close()
		return nil, err
	}
	switch fsync {
	case FsyncAlways, FsyncNever, FsyncEverySecond:
	case "":
		fsync = FsyncEverySecond
	default:
		db.Close()
		return nil, fmt.Errorf("store: unknown fsync policy %q", fsync)
	}
	// fsync and shrink are ours, outside buntdb's lock (disk.go).
	cfg.SyncPolicy, cfg.AutoShrinkDisabled = buntdb.Never, true
	if err := db.SetConfig(cfg); err != nil {
		db.Close()
		return nil, err
	}
	migrated := 0
	if path != ":memory:" {
		if migrated, err = migrate(db, path); err != nil { // JSON records of earlier builds (migrate.go)
			db.Close()
			return nil, err
		}
		if migrated > 0 { // every converted record is in the file twice: rewrite it once
			if err := db.Shrink(); err != nil {
				db.Close()
				return nil, fmt.Errorf("store: compacting %s after converting its records: %w", path, err)
			}
		}
	}
	hot := newHotCache()
	dk, err := openDisk(db, path, fsync, hot.clear)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	var pruned *atomic.Int64 // bytes pruned, for the shrink (disk.go)
	if dk != nil {
		pruned = &dk.pruned
	}
	return &DB{db: db, path: path, hot: hot, disk: dk, events: newEventIndex(db, pruned), changes: newChangeHub(), migrated: migrated}, nil // events by payment: built on first use (event_index.go)
}

// Migrated answers how many records of an earlier build's JSON format Open
// converted to the binary format (0 once a file is converted: later opens
// skip the scan).
func (d *DB) Migrated() int { return d.migrated }

// Close stops the disk work (shrinking the file if it grew, see disk.go),
// flushes and closes the database.
func (d *DB) Close() error { return errors.Join(d.disk.close(), d.db.Close()) }

// Ready reports whether the store answers.
func (d *DB) Ready() error {
	return d.db.View(func(tx *buntdb.Tx) error { _, err := tx.Len(); return err })
}

// View runs fn in a read-only transaction.
func (d *DB) View(fn func(simulator.Tx) error) error {
	return d.db.View(func(btx *buntdb.Tx) error {
		return fn(&Tx{tx: btx, hot: d.hot, tenants: &d.tenants, events: d.events})
	})
}

// Update runs fn in a read-write transaction, committed only when fn returns nil.
func (d *DB) Update(fn func(simulator.Tx) error) error {
	tx := &Tx{write: true, hot: d.hot, tenants: &d.tenants, events: d.events}
	err := d.db.Update(func(btx *buntdb.Tx) error {
		tx.tx = btx
		err := fn(tx)
		if tx.tenantsWritten { // still under the write lock: no reader can refill before the commit
			d.tenants.invalidate()
		}
		if err == nil {
			tx.sequence() // commit order (hotcache.go)
		}
		return err
	})
	if tx.tenantsWritten { // and after: a reader that read before the commit cannot publish
		d.tenants.invalidate()
	}
	if err == nil {
		tx.publishHot() // only what committed
	}
	if err == nil { // (a transaction that wrote nothing costs an fsync of nothing)
		d.disk.committed()
		d.notifyChanges(tx.wrote)
		for _, fn := range tx.after {
			fn()
		}
	}
	return err
}

var errReadOnly = errors.New("store: write in a read-only transaction")
