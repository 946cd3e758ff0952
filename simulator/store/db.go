package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

var _ simulator.Store = (*DB)(nil)

// Fsync policies (docs/limits.md: everysecond writes each commit before the
// response, so kill -9 loses nothing; only a power cut can lose the last second).
const (
	FsyncAlways      = "always"
	FsyncEverySecond = "everysecond"
	FsyncNever       = "never"
)

// DB is the buntdb-backed store: a catalog (a buntdb file at the path Open
// is given) and one buntdb file per tenant in TenantsDir(path), opened on
// first use and closed when idle (registry.go; layout in tenant_files.go).
//
// Lock rules (deadlock-free): a transaction holds at most one tenant's
// buntdb lock at a time (a write transaction touches one tenant only; a
// read transaction that moves to another tenant ends its view of the
// previous one first). The catalog's lock is never held while another lock
// is taken: a transaction reads the catalog in short View calls of its own
// (tenants through tenantCache), buffers its catalog writes (catalog.go) and
// applies them in one catalog Update at commit, after fn returned nil and
// before its tenant's commit, so the only nesting is a tenant's lock, then
// the catalog's. The registry's and the hints' mutexes are never held while
// a buntdb lock is awaited, except hints.mu around a hint correction's
// catalog Update (nobody takes hints.mu while holding the catalog's lock).
type DB struct {
	catalog *buntdb.DB
	path    string
	tenants tenantCache
	disk    *disk // the catalog's; nil for ":memory:"
	reg     *registry
	hints   hints
	empty   *buntdb.DB // read views of a tenant that has no file
	changes *changeHub // per-tenant commit notifications (changes.go)
	log     *slog.Logger
	// pruneReads counts the events PruneEvents read (retention.go's tests).
	pruneReads atomic.Int64
	// migrated: the tenants Open moved from a single-file layout (Migrated).
	migrated int
	// lastWrite: wall clock (unix nanos) of the last commit of any file.
	lastWrite atomic.Int64
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Options tunes the registry of open tenants.
type Options struct {
	// IdleClose: a tenant unused this long (wall clock), nobody holding it
	// and no work due within it, is closed (default 5 minutes).
	IdleClose time.Duration
	// MaxOpen is a soft bound on open tenants: past it the least recently
	// used ones that nobody uses close; none is refused (default 256).
	MaxOpen int
	// Log receives the store's errors (a tenant file that cannot be opened
	// names its path); default slog.Default().
	Log *slog.Logger
}

// Defaults of Options.
const (
	DefaultIdleClose = 5 * time.Minute
	DefaultMaxOpen   = 256
)

// Open opens (creating if missing, with its directory) the store at path:
// the catalog at path and the tenant files in TenantsDir(path). Files of an
// older format (the catalog says so, or path is a data file of the
// single-file layout) are converted first (conversion.go); files of a later
// build's format are refused. ":memory:" keeps nothing on disk and never
// closes a tenant.
func Open(path, fsync string, opts Options) (*DB, error) {
	switch fsync {
	case FsyncAlways, FsyncNever, FsyncEverySecond:
	case "":
		fsync = FsyncEverySecond
	default:
		return nil, fmt.Errorf("store: unknown fsync policy %q", fsync)
	}
	if opts.IdleClose <= 0 {
		opts.IdleClose = DefaultIdleClose
	}
	if opts.MaxOpen <= 0 {
		opts.MaxOpen = DefaultMaxOpen
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	memory := path == ":memory:"
	if !memory {
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("store: creating %s: %w", dir, err)
			}
		}
	}
	cat, moved, err := openCatalog(path, opts.Log)
	if err != nil {
		return nil, err
	}
	if !memory {
		if err := os.MkdirAll(TenantsDir(path), 0o755); err != nil {
			cat.Close()
			return nil, fmt.Errorf("store: creating %s: %w", TenantsDir(path), err)
		}
	}
	empty, err := buntdb.Open(":memory:")
	if err != nil {
		cat.Close()
		return nil, err
	}
	dk, err := openDisk(cat, path, fsync)
	if err != nil {
		cat.Close()
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	marks, err := loadFileMarks(cat, dk, memory)
	if err != nil {
		dk.close(false)
		cat.Close()
		return nil, err
	}
	d := &DB{catalog: cat, path: path, disk: dk, empty: empty, changes: newChangeHub(), log: opts.Log,
		reg:  newRegistry(TenantsDir(path), fsync, opts.Log, memory, opts.IdleClose, opts.MaxOpen, marks),
		stop: make(chan struct{}), done: make(chan struct{}), migrated: moved}
	if err := d.hints.load(cat); err != nil {
		d.disk.close(false)
		cat.Close()
		return nil, err
	}
	go d.loop()
	return d, nil
}

// loop is the store's one background goroutine: every diskTick the disk
// work of the catalog and of every open tenant file (disk.go) and, once no
// file was written for shrinkIdle, the free heap returned to the OS (so the resident size of an idle server is its live
// data, not its peak); every sweepTick (a quarter of IdleClose, at most
// 30 s), and when the registry asks, the sweep that closes tenants.
func (d *DB) loop() {
	defer close(d.done)
	disk := time.NewTicker(diskTick)
	defer disk.Stop()
	sweep := time.NewTicker(max(min(d.reg.idle/4, 30*time.Second), 5*time.Millisecond))
	defer sweep.Stop()
	freedAt := int64(-1) // nothing returned yet: the open's garbage goes at the first idle tick
	for {
		select {
		case <-d.stop:
			return
		case <-d.reg.kick:
			d.reg.sweep(d.hints.due)
		case <-sweep.C:
			d.reg.sweep(d.hints.due)
		case <-disk.C:
			d.disk.tick()
			d.reg.tick()
			if last := d.lastWrite.Load(); time.Since(time.Unix(0, last)) >= shrinkIdle && last != freedAt {
				debug.FreeOSMemory()
				freedAt = last
			}
		}
	}
}

// Migrated answers how many tenants Open moved from a data file of the
// single-file layout to their own files (simulator/storeconv, which logs
// what it does): 0 on every later open.
func (d *DB) Migrated() int { return d.migrated }

// Close stops the background work, closes every tenant file and the
// catalog (each shrunk when it grew, see disk.go, and flushed).
func (d *DB) Close() error { return d.CloseContext(context.Background()) }

// CloseContext is Close within ctx: once ctx is done, the files still open
// skip their shrink, which their next open does instead (disk.go); every
// file is still flushed and closed. A shrink already running finishes.
func (d *DB) CloseContext(ctx context.Context) error {
	d.closeOnce.Do(func() {
		close(d.stop)
		<-d.done
		d.closeErr = errors.Join(d.reg.closeAll(ctx), d.disk.close(ctx.Err() != nil), d.catalog.Close(), d.empty.Close())
	})
	return d.closeErr
}

// Ready reports whether the store answers (its catalog).
func (d *DB) Ready() error {
	return d.catalog.View(func(tx *buntdb.Tx) error { _, err := tx.Len(); return err })
}

// Hold implements simulator.Store: tenantID's file stays open until
// release (a tenant whose file cannot be opened holds nothing).
func (d *DB) Hold(tenantID string) (release func()) {
	f, err := d.reg.acquire(tenantID, true)
	if err != nil || f == nil {
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(func() { d.reg.release(f) }) }
}

// View runs fn in a read-only transaction.
func (d *DB) View(fn func(simulator.Tx) error) error {
	tx := d.newTx(false)
	err := fn(tx)
	tx.end()
	return err
}

// Update runs fn in a read-write transaction, committed only when fn
// returns nil: first its catalog writes, then its tenant's. A crash between
// the two leaves the catalog's part (a tenant's settings, such as the clock
// offset of an advance, and next-due hints) without the tenant's (the
// advance's remapped job instants): the jobs then run at their earlier
// instants, later than the advance meant but never early, and a hint that
// is too early is corrected by the next NextJob that reads the tenant
// (hints.go); the caller got no answer, as with any write cut by a crash.
// A failed tenant commit after the catalog's leaves the same.
func (d *DB) Update(fn func(simulator.Tx) error) error {
	tx := d.newTx(true)
	if err := fn(tx); err != nil {
		tx.end()
		return err
	}
	err := tx.commit()
	if err != nil {
		if tx.catWrote { // the catalog's part committed, the tenant's failed
			d.disk.committed()
		}
		tx.end()
		return err
	}
	d.lastWrite.Store(time.Now().UnixNano())
	if tx.catWrote {
		d.disk.committed()
	}
	if tx.tf != nil && tx.tenantWrote { // still referenced: not closed under us
		tx.tf.disk.committed()
	}
	tx.end()
	d.notifyChanges(tx.wrote)
	for _, fn := range tx.after {
		fn()
	}
	return nil
}

var errReadOnly = errors.New("store: write in a read-only transaction")

// OnTenantOpen makes fn hear of every tenant whose data file opens from now
// on (in its own goroutine): the webhook dispatcher gives such a tenant its
// retention pass then, so that a restart does not give every tenant one at
// once.
func (d *DB) OnTenantOpen(fn func(tenantID string)) { d.reg.opened.Store(&fn) }

// OpenTenants is how many tenants' data files are open now.
func (d *DB) OpenTenants() int { return len(d.reg.openFiles()) }

// TenantFile is the path of tenant tenantID's data file ("" when the store
// keeps tenants in memory), for logs that name it.
func (d *DB) TenantFile(tenantID string) string {
	if d.reg.memory {
		return ""
	}
	return filepath.Join(d.reg.dir, TenantFileName(tenantID))
}
