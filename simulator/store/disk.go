package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// disk does a buntdb file's whole-file work outside buntdb's lock, which
// every reader and writer of that file takes: buntdb itself runs with
// SyncPolicy Never and auto-shrink disabled, so a commit only appends its
// record to the file (still before Update returns: a kill -9 loses no
// acknowledged write). The catalog and every open tenant file have one each;
// one background loop of the store (DB.loop) ticks all of them.
//
//   - fsync: a file descriptor of our own on the same file (fsync flushes the
//     file, whichever descriptor asks). "everysecond" syncs it at the tick
//     after something was written; "always" makes each writing Update wait,
//     after buntdb's lock is released, for an fsync that started after its
//     commit (group commit: concurrent writers share one fsync); "never"
//     leaves it to the OS.
//   - shrink (rewriting the append-only file down to the live records): when
//     the file has grown past shrinkMinSize and doubled since it was last
//     compact, or the webhook retention pruned records worth a third of it
//     (a file of a build that kept every event: it barely grows, but most
//     of it is dead), and no write happened for shrinkIdle; and at close
//     when it grew by a quarter or a quarter of it was pruned, unless the
//     close has no time left (DB.CloseContext): the file then keeps a
//     marker record (kShrinkDue) and the next open shrinks it at its first
//     tick, whatever its size. buntdb's Shrink copies the records in chunks under
//     read locks and takes the write lock only to append the tail and swap
//     the files; the descriptor is reopened on the new file right after.
type disk struct {
	db     *buntdb.DB
	path   string
	policy string

	mu       sync.Mutex // serialises fsync, shrink and the descriptor swap
	f        *os.File
	baseSize int64 // file size when it was last compact (open or shrink)

	commits   atomic.Uint64 // writing transactions committed
	lastWrite atomic.Int64  // unix nanos of the last one
	pruned    atomic.Int64  // bytes of event records pruned since the file was last compact

	gmu     sync.Mutex // group commit ("always")
	gcond   *sync.Cond
	synced  uint64 // commits known to be on disk
	syncing bool

	syncedAt uint64 // commits counted at the last tick that synced
	noShrink bool   // the file is being deleted: never rewrite it
	// report: the next tick answers the file's length even when nothing
	// was committed since the last (set at open and after a shrink, so
	// that the catalog's mark follows the file: file_marks.go).
	report atomic.Bool
	// unlinked: the path no longer names the open file (removed or
	// replaced while open); it is never shrunk (a shrink reopens by path).
	unlinked atomic.Bool
	// beforeShrink, when set, runs before the file is rewritten (its mark
	// becomes "length unknown", file_marks.go).
	beforeShrink func() error
	due          atomic.Bool // a close skipped this file's shrink: the next tick does it
	closeOnce    sync.Once
}

const (
	shrinkMinSize = 32 << 20
	shrinkIdle    = 5 * time.Second
	diskTick      = time.Second
)

// openDisk prepares the disk work of a file-backed db (nil for ":memory:").
func openDisk(db *buntdb.DB, path, policy string) (*disk, error) {
	if path == ":memory:" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	d := &disk{db: db, path: path, policy: policy, f: f, baseSize: st.Size()}
	d.gcond = sync.NewCond(&d.gmu)
	d.report.Store(true)
	due, err := takeShrinkDue(db)
	if err != nil {
		f.Close()
		return nil, err
	}
	d.due.Store(due)
	return d, nil
}

// takeShrinkDue deletes the marker and reports whether it was there.
func takeShrinkDue(db *buntdb.DB) (bool, error) {
	found := false
	err := db.Update(func(tx *buntdb.Tx) error {
		_, err := tx.Delete(kShrinkDue)
		found = err == nil
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		return err
	})
	return found, err
}

// committed is called after a writing transaction committed (buntdb's lock
// released); with "always" it returns once the commit is on disk.
func (d *disk) committed() {
	if d == nil {
		return
	}
	n := d.commits.Add(1)
	d.lastWrite.Store(time.Now().UnixNano())
	if d.policy != FsyncAlways {
		return
	}
	d.gmu.Lock()
	defer d.gmu.Unlock()
	for d.synced < n {
		if d.syncing {
			d.gcond.Wait()
			continue
		}
		d.syncing = true
		target := d.commits.Load() // every commit counted so far was written before this fsync starts
		d.gmu.Unlock()
		d.fsync()
		d.gmu.Lock()
		d.syncing = false
		d.synced = max(d.synced, target)
		d.gcond.Broadcast()
	}
}

// fsync flushes the file. Like buntdb's own policies, a failed fsync is not
// reported to the writer (its record is in the file already).
func (d *disk) fsync() {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.f.Sync()
}

// tick is the periodic work (every diskTick, from the store's loop): when
// something was committed since the last tick, the file's length, then the
// fsync ("everysecond" and "always"; "never" leaves it to the OS); once
// writes stopped for shrinkIdle, the shrink. It answers that length (ok
// false: nothing was committed and no report was due): every byte up to it
// is on disk once tick returns (file_marks.go). Under "always" every commit
// was synced already; the tick's fsync covers one still in its group commit.
func (d *disk) tick() (length int64, ok bool) {
	if d == nil {
		return 0, false
	}
	if n := d.commits.Load(); n != d.syncedAt || d.report.Load() {
		d.report.Store(false)
		length, ok = d.syncLength(d.policy != FsyncNever)
		d.syncedAt = n
	}
	if time.Since(time.Unix(0, d.lastWrite.Load())) >= shrinkIdle {
		_ = d.shrinkIf(func(size, base int64) bool {
			return d.due.Load() || size >= shrinkMinSize && (size >= 2*base || d.pruned.Load() >= size/3)
		})
	}
	return length, ok
}

// syncLength answers the file's length, then (with sync) flushes it.
func (d *disk) syncLength(sync bool) (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st, err := d.f.Stat()
	if sync {
		_ = d.f.Sync()
	}
	if err != nil {
		return 0, false
	}
	return st.Size(), true
}

// checkUnlinked reports whether the path no longer names the open file (it
// was removed, or replaced by another file); once true it stays true.
func (d *disk) checkUnlinked() bool {
	if d == nil {
		return false
	}
	if d.unlinked.Load() {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	open, err := d.f.Stat()
	if err != nil {
		return false
	}
	at, err := os.Stat(d.path)
	if err == nil && os.SameFile(open, at) {
		return false
	}
	d.unlinked.Store(true)
	return true
}

// shrinkIf rewrites the file when worth(size, baseSize) says so, then
// reopens the descriptor on the new file and syncs it.
func (d *disk) shrinkIf(worth func(size, base int64) bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	st, err := d.f.Stat()
	if err != nil || d.noShrink || d.unlinked.Load() || !worth(st.Size(), d.baseSize) {
		return err
	}
	if d.beforeShrink != nil {
		if err := d.beforeShrink(); err != nil {
			return err
		}
		defer d.report.Store(true)
	}
	pruned := d.pruned.Load()
	if err := d.db.Shrink(); err != nil && !errors.Is(err, buntdb.ErrShrinkInProcess) {
		return err
	}
	d.pruned.Add(-pruned) // what was pruned before the shrink is gone from the file
	d.due.Store(false)
	f, err := os.OpenFile(d.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	d.f.Close()
	d.f = f
	_ = d.f.Sync()
	if st, err := d.f.Stat(); err == nil {
		d.baseSize = st.Size()
	}
	return nil
}

// close shrinks the file when it grew by a quarter since it was compact (a
// smaller file opens faster), then syncs. With hurry (a close out of time)
// a shrink that is due is left to the next open instead (kShrinkDue). Only
// the first call does anything; the caller has stopped ticking it.
func (d *disk) close(hurry bool) (err error) {
	if d == nil {
		return nil
	}
	d.closeOnce.Do(func() {
		worth := func(size, base int64) bool {
			return d.due.Load() || size > 1<<20 && (size >= base+base/4 || d.pruned.Load() >= size/4)
		}
		if hurry {
			err = d.markShrinkDue(worth)
		} else {
			err = d.shrinkIf(worth)
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		err = errors.Join(err, d.f.Sync(), d.f.Close())
	})
	return err
}

// markShrinkDue writes kShrinkDue when worth(size, baseSize) says the file
// should shrink (and it is not being deleted): one small record appended.
func (d *disk) markShrinkDue(worth func(size, base int64) bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	st, err := d.f.Stat()
	if err != nil || d.noShrink || d.unlinked.Load() || !worth(st.Size(), d.baseSize) {
		return err
	}
	return d.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(kShrinkDue, "1", nil)
		return err
	})
}

// writeFailed is the error of a commit to the file at path that failed
// with err. buntdb has then undone the transaction in memory and cut what
// it had appended of it from the file, so the file keeps every earlier
// commit and none of this one. A full disk is the catalogue's StorageFull
// (503: the client learns why, and that the request can be sent again once
// space is freed), logged with the file; so is a disk quota exceeded. Any
// other error is returned as is.
func writeFailed(log *slog.Logger, path string, err error) error {
	var errno syscall.Errno
	if err == nil || !errors.As(err, &errno) || errno != syscall.ENOSPC && errno != syscall.EDQUOT {
		return err
	}
	log.Error("store: a write failed for lack of disk space and was not applied; writes answer 503 StorageFull until space is freed",
		"file", path, "err", err)
	return fmt.Errorf("store: writing %s: %w: %w", path, simulator.ErrStorageFull(errno.Error()), err)
}
