package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

// tenantFile is one tenant's buntdb file in the registry of open tenants.
// It is opened by the first acquire (single-flight: later ones wait on
// ready), shared by every transaction of the tenant while refs > 0, and
// closed only by the store's loop, once refs is 0 (idle close, the bound on
// open tenants, a deleted tenant): an open tenant is never closed under a
// caller.
type tenantFile struct {
	tid   string
	path  string        // the file ("" for ":memory:")
	ready chan struct{} // closed when the open ended (db set, or err)

	db     *buntdb.DB
	disk   *disk       // nil for ":memory:"
	events *eventIndex // events by payment (event_index.go)
	// ret: what a prune pass needs to know, and retTx what the write
	// transaction holding db's write lock changed of it (retention.go).
	ret   retention
	retTx retentionDelta

	err   error // the open failed (a TenantUnavailable); retried after errAt+openRetry
	errAt time.Time

	// Under registry.mu:
	refs     int
	lastUsed time.Time // wall clock, at the last release
	closing  bool      // leaving the registry: acquirers wait on closed
	closed   chan struct{}
	doomed   bool // the tenant was deleted: its file goes at close
	// gone: doomed, read without registry.mu (no mark is recorded for it).
	gone atomic.Bool
}

// registry is the set of open tenants of a store.
type registry struct {
	dir    string // TenantsDir of the catalog ("" for ":memory:")
	fsync  string
	log    *slog.Logger
	memory bool
	// kick wakes the loop for an eviction pass (the bound was passed) or a
	// deleted tenant's close.
	kick chan struct{}
	idle time.Duration // Options.IdleClose
	max  int           // Options.MaxOpen

	// opened, when set, hears of each tenant whose file opened (DB.OnTenantOpen).
	opened atomic.Pointer[func(tid string)]
	// marks: how far each tenant's file is known to reach (file_marks.go).
	marks *fileMarks

	mu     sync.Mutex
	m      map[string]*tenantFile
	doomed []*tenantFile // deleted tenants' files, closed once nobody uses them
	// shut: the store closed (closeAll); no file opens again, so a read
	// that comes late (a timer of an observer) cannot reopen or recreate a
	// tenant's file behind the closed store.
	shut bool

	// failing is when each tenant whose file could not be opened was last
	// logged at ERROR or WARN (under failMu): its retries log again only
	// hourly, and its next open that succeeds says it recovered.
	failMu  sync.Mutex
	failing map[string]time.Time
}

// failingWarnEvery is how often the log says a tenant's file still cannot
// be opened while something keeps trying.
const failingWarnEvery = time.Hour

// openRetry is how long a tenant whose file could not be opened answers
// TenantUnavailable before the next acquire tries again (a repaired file
// comes back without a restart).
const openRetry = 10 * time.Second

func newRegistry(dir, fsync string, log *slog.Logger, memory bool, idle time.Duration, max int, marks *fileMarks) *registry {
	return &registry{dir: dir, fsync: fsync, log: log, memory: memory, idle: idle, max: max, marks: marks,
		kick: make(chan struct{}, 1), m: map[string]*tenantFile{}, failing: map[string]time.Time{}}
}

// acquire returns tenant tid's open file, with a reference the caller gives
// back with release; once the store closed, buntdb.ErrDatabaseClosed. When the tenant has no file yet, create makes it;
// without create acquire answers (nil, nil): the tenant has no data. A file
// that cannot be opened, and a missing or short file of a tenant known to
// have committed data (file_marks.go), answer a TenantUnavailable error.
func (r *registry) acquire(tid string, create bool) (*tenantFile, error) {
	for {
		r.mu.Lock()
		if r.shut {
			r.mu.Unlock()
			return nil, buntdb.ErrDatabaseClosed
		}
		f := r.m[tid]
		switch {
		case f == nil:
			if _, marked := r.marks.get(tid); !create && !marked && !r.exists(tid) {
				r.mu.Unlock()
				return nil, nil
			}
			f = &tenantFile{tid: tid, ready: make(chan struct{}), closed: make(chan struct{}), refs: 1}
			if !r.memory {
				f.path = filepath.Join(r.dir, TenantFileName(tid))
			}
			r.m[tid] = f
			over := !r.memory && len(r.m) > r.max
			r.mu.Unlock()
			r.open(f)
			close(f.ready)
			if fn := r.opened.Load(); fn != nil && f.err == nil {
				go (*fn)(tid) // outside every lock of the caller's transaction
			}
			if over {
				r.wake()
			}
			if f.err != nil {
				r.release(f)
				return nil, f.err
			}
			return f, nil
		case f.closing:
			ch := f.closed
			r.mu.Unlock()
			<-ch
			continue
		}
		select {
		case <-f.ready:
			if f.err != nil {
				if time.Since(f.errAt) < openRetry || f.refs > 0 {
					r.mu.Unlock()
					return nil, f.err
				}
				delete(r.m, tid) // try again
				r.mu.Unlock()
				continue
			}
		default:
		}
		f.refs++
		r.mu.Unlock()
		<-f.ready
		if f.err != nil {
			r.release(f)
			return nil, f.err
		}
		return f, nil
	}
}

// exists reports whether tenant tid has a file (called under mu; a tenant
// in memory exists once it is in the registry).
func (r *registry) exists(tid string) bool {
	if r.memory {
		return false
	}
	_, err := os.Stat(filepath.Join(r.dir, TenantFileName(tid)))
	return err == nil || !errors.Is(err, fs.ErrNotExist) // an unreadable one is opened, to answer why
}

// open opens f's file (outside mu: acquirers of f wait on ready).
func (r *registry) open(f *tenantFile) {
	path := f.path
	if r.memory {
		path = ":memory:"
	}
	// A file the catalog knows holds committed data must reach its mark
	// before buntdb opens it (buntdb would create a missing file, and cut a
	// short one's partial last record).
	if lost, err := r.marks.lossOf(f.tid, f.path); err != nil || lost != "" {
		if err == nil {
			err = errors.New(lost)
		}
		r.fail(f, simulator.ErrTenantDataLost(lost, f.tid), err)
		return
	}
	db, err := storeconv.OpenFile(path)
	if err == nil {
		f.disk, err = openDisk(db, path, r.fsync)
		if err != nil {
			db.Close()
		}
	}
	if err != nil {
		problem := "its file cannot be read"
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe):
			problem = "its file cannot be opened: " + pe.Err.Error()
		case errors.Is(err, buntdb.ErrInvalid):
			problem = "its file is corrupt"
		}
		r.fail(f, simulator.ErrTenantUnavailable(problem), err)
		return
	}
	r.logRecovery(f)
	var pruned *atomic.Int64
	if f.disk != nil {
		pruned = &f.disk.pruned
		f.disk.beforeShrink = func() error { return r.marks.unknown(f) }
	}
	f.db, f.events = db, newEventIndex(db, pruned)
}

// fail makes f's open fail with e (a TenantUnavailable; err is the cause,
// for the log).
func (r *registry) fail(f *tenantFile, e *simulator.Error, err error) {
	f.err = fmt.Errorf("store: tenant %s: %w", f.tid, e)
	f.errAt = time.Now()
	r.logFailure(f, err)
}

// logFailure logs that f's file cannot be opened: ERROR the first time,
// then (each retry, openRetry apart at most) WARN at most hourly.
func (r *registry) logFailure(f *tenantFile, err error) {
	r.failMu.Lock()
	last, failing := r.failing[f.tid]
	report := !failing || f.errAt.Sub(last) >= failingWarnEvery
	if report {
		r.failing[f.tid] = f.errAt
	}
	r.failMu.Unlock()
	switch {
	case !failing:
		r.log.Error("store: a tenant's file cannot be opened; the tenant answers 503 TenantUnavailable until it can (tried again at most every 10s while used)",
			"tenant", f.tid, "file", f.path, "err", err)
	case report:
		r.log.Warn("store: a tenant's file still cannot be opened; the tenant answers 503 TenantUnavailable",
			"tenant", f.tid, "file", f.path, "err", err)
	default:
		r.log.Debug("store: a tenant's file still cannot be opened", "tenant", f.tid, "file", f.path, "err", err)
	}
}

// logRecovery logs that f's file opened after failing to (INFO).
func (r *registry) logRecovery(f *tenantFile) {
	r.failMu.Lock()
	_, failing := r.failing[f.tid]
	delete(r.failing, f.tid)
	r.failMu.Unlock()
	if failing {
		r.log.Info("store: a tenant's file opens again", "tenant", f.tid, "file", f.path)
	}
}

// release gives back a reference taken by acquire.
func (r *registry) release(f *tenantFile) {
	r.mu.Lock()
	f.refs--
	f.lastUsed = time.Now()
	kick := f.refs == 0 && f.doomed
	r.mu.Unlock()
	if kick {
		r.wake()
	}
}

// wake asks the loop for a pass (evictions, deleted tenants' files).
func (r *registry) wake() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// doom takes deleted tenant tid out of the registry: its file is moved
// aside at once (a new acquire starts from nothing) and removed once the
// requests still using it are done (the loop closes it; see sweep).
func (r *registry) doom(tid string) {
	r.failMu.Lock()
	delete(r.failing, tid) // a new tenant of that id starts with a clean record
	r.failMu.Unlock()
	var path, aside string
	r.mu.Lock()
	if f := r.m[tid]; f != nil {
		f.gone.Store(true) // before the rename: a close that sees the file gone must not write it again
	}
	if !r.memory { // under mu: no acquire opens the file meanwhile
		path = filepath.Join(r.dir, TenantFileName(tid))
		aside = path + ".deleted"
		if err := os.Rename(path, aside); err != nil {
			aside = ""
		}
	}
	f := r.m[tid]
	var closing *tenantFile
	switch {
	case f == nil:
	case f.closing: // the loop is closing it right now
		closing = f
	default:
		delete(r.m, tid)
		f.doomed = true
		if aside != "" {
			f.path = aside
		}
		r.doomed = append(r.doomed, f)
	}
	r.mu.Unlock()
	if err := r.marks.drop(tid); err != nil {
		r.log.Error("store: a deleted tenant's file mark could not be removed from the catalog", "tenant", tid, "err", err)
	}
	switch {
	case f == nil && aside != "":
		_ = os.Remove(aside)
	case closing != nil:
		<-closing.ready
		if closing.disk != nil {
			closing.disk.mu.Lock()
			closing.disk.noShrink = true // a shrink would write the file again at its old path
			closing.disk.mu.Unlock()
		}
		if aside != "" {
			go func() { <-closing.closed; _ = os.Remove(aside) }()
		}
	}
	r.wake()
}

// sweep closes what should close (the loop calls it): deleted tenants no
// longer used; tenants unused for the idle period with no work due within
// it (due answers whether tenant tid has work due before an instant); then,
// past the bound, the least recently used tenants that nobody uses.
// ":memory:" closes only deleted tenants.
func (r *registry) sweep(due func(tid string, before time.Time) bool) {
	idle, max := r.idle, r.max
	now := time.Now()
	var closing []*tenantFile
	r.mu.Lock()
	kept := r.doomed[:0]
	for _, f := range r.doomed {
		select {
		case <-f.ready:
		default:
			kept = append(kept, f)
			continue
		}
		if f.refs == 0 {
			f.closing = true
			closing = append(closing, f)
		} else {
			kept = append(kept, f)
		}
	}
	clear(r.doomed[len(kept):])
	r.doomed = kept
	if !r.memory {
		var idleOnes []*tenantFile
		for _, f := range r.m {
			select {
			case <-f.ready:
			default:
				continue
			}
			if f.refs > 0 || f.closing {
				continue
			}
			if f.err != nil {
				if now.Sub(f.errAt) >= openRetry {
					delete(r.m, f.tid) // forget the failure: the next acquire tries again
				}
				continue
			}
			if now.Sub(f.lastUsed) >= idle && !due(f.tid, now.Add(idle)) {
				f.closing = true
				closing = append(closing, f)
				continue
			}
			idleOnes = append(idleOnes, f)
		}
		if over := len(r.m) - len(closing) - max; max > 0 && over > 0 {
			slices.SortFunc(idleOnes, func(a, b *tenantFile) int { return a.lastUsed.Compare(b.lastUsed) })
			for _, f := range idleOnes[:min(over, len(idleOnes))] {
				f.closing = true
				closing = append(closing, f)
			}
		}
	}
	r.mu.Unlock()
	for _, f := range closing {
		r.closeFile(f)
	}
}

// closeFile closes f (closing set, refs 0) and takes it out of the registry.
func (r *registry) closeFile(f *tenantFile) {
	_ = r.finish(f, false) // logged
	r.mu.Lock()
	if r.m[f.tid] == f {
		delete(r.m, f.tid)
	}
	r.mu.Unlock()
	close(f.closed)
}

// finish closes f's file (nobody uses it; hurry: the store closes out of
// time, see disk.close) and logs what failed: a deleted tenant's file is
// removed; a file whose path no longer names it is written again from
// memory (rescue); the catalog's mark takes the closed file's length; what
// the store kept in memory of the tenant's records is dropped.
func (r *registry) finish(f *tenantFile, hurry bool) error {
	var err error
	if (f.doomed || f.gone.Load()) && f.disk != nil {
		f.disk.mu.Lock()
		f.disk.noShrink = true
		f.disk.mu.Unlock()
	}
	if f.db != nil {
		unlinked := !f.doomed && f.disk.checkUnlinked() && !f.gone.Load()
		err = f.disk.close(hurry || unlinked)
		if unlinked {
			at, rerr := rescue(f)
			if rerr != nil {
				r.log.Error("store: a tenant's file was removed or replaced while open, and writing its records again from memory failed: they are lost",
					"tenant", f.tid, "file", f.path, "to", at, "err", rerr)
			} else {
				r.log.Error("store: a tenant's file was removed or replaced while open; its records were written again from memory",
					"tenant", f.tid, "file", f.path, "to", at)
			}
			if at != f.path {
				unlinked = true // the file at the path is someone else's: its mark stays
			} else {
				unlinked = rerr != nil
			}
		}
		err = errors.Join(err, f.db.Close())
		if !f.doomed && !f.gone.Load() && !unlinked && f.path != "" {
			if st, serr := os.Stat(f.path); serr == nil {
				err = errors.Join(err, r.marks.record([]markOf{{f, st.Size()}}))
			}
		}
	}
	if f.doomed && f.path != "" {
		err = errors.Join(err, os.Remove(f.path))
	}
	if err != nil {
		r.log.Error("store: closing a tenant's file", "tenant", f.tid, "file", f.path, "err", err)
	}
	return err
}

// open lists the open tenant files (ready, not failed, not closing).
func (r *registry) openFiles() []*tenantFile {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*tenantFile, 0, len(r.m))
	for _, f := range r.m {
		select {
		case <-f.ready:
			if f.err == nil && !f.closing {
				out = append(out, f)
			}
		default:
		}
	}
	return out
}

// isOpen reports whether tenant tid's file is open now.
func (r *registry) isOpen(tid string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.m[tid]
	if f == nil || f.closing {
		return false
	}
	select {
	case <-f.ready:
		return f.err == nil
	default:
		return false
	}
}

// closeAll closes every tenant (the store closes; nothing runs any more);
// once ctx is done the rest skip their shrink (disk.close).
func (r *registry) closeAll(ctx context.Context) error {
	r.mu.Lock()
	r.shut = true
	all := slices.Clone(r.doomed)
	for _, f := range r.m {
		all = append(all, f)
	}
	r.doomed = nil
	r.mu.Unlock()
	var err error
	for _, f := range all {
		<-f.ready
		err = errors.Join(err, r.finish(f, ctx.Err() != nil))
	}
	r.mu.Lock()
	clear(r.m)
	r.mu.Unlock()
	return err
}

// tick is the disk work of every open tenant file (the store's loop calls
// it each diskTick): its fsync and shrink (disk.tick), a check that its
// path still names it (an ERROR the first time it does not: the file is
// written again from memory at close), and the catalog marks of the files
// synced, in one catalog write.
func (r *registry) tick() {
	var marks []markOf
	for _, f := range r.openFiles() {
		length, synced := f.disk.tick()
		if f.path == "" || f.disk.unlinked.Load() {
			continue
		}
		if f.disk.checkUnlinked() {
			if !f.gone.Load() {
				r.log.Error("store: a tenant's file was removed or replaced while open; its records are kept in memory and written again when it closes (do not stop the server with kill -9)",
					"tenant", f.tid, "file", f.path)
			}
			continue
		}
		if synced {
			marks = append(marks, markOf{f, length})
		}
	}
	if err := r.marks.record(marks); err != nil {
		r.log.Error("store: recording how far tenant files reach in the catalog", "err", err)
	}
}

// AcceptLoss accepts, for tenant tid, what its file lost against the
// catalog's mark (file_marks.go): the mark is dropped and the tenant opens
// with what its file has, empty when it is missing, instead of answering
// TenantUnavailable. It answers the loss accepted ("" when the file reaches
// its mark, or the tenant has no mark: nothing to accept).
func (d *DB) AcceptLoss(tid string) (string, error) {
	r := d.reg
	if r.memory {
		return "", nil
	}
	if r.isOpen(tid) {
		return "", nil // open, hence whole (a close writes back a file removed meanwhile)
	}
	lost, err := r.marks.lossOf(tid, filepath.Join(r.dir, TenantFileName(tid)))
	if err != nil {
		return "", err
	}
	if err := r.marks.drop(tid); err != nil {
		return "", err
	}
	r.mu.Lock()
	if f := r.m[tid]; f != nil && f.err != nil && f.refs == 0 {
		delete(r.m, tid) // the next acquire opens it again
	}
	r.mu.Unlock()
	if lost != "" {
		r.log.Warn("store: an operator accepted the loss of a tenant's data; it opens with what its file has",
			"tenant", tid, "file", filepath.Join(r.dir, TenantFileName(tid)), "lost", lost)
	}
	return lost, nil
}
