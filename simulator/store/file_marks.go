package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

// fileMarks is what the catalog knows of the tenant files that hold
// committed data: for each, the length the file had when its last fsync
// began ("fmark:<tenant>" -> decimal bytes). Every byte up to it was on
// disk once that fsync returned, so a file shorter than its mark lost
// commits that were acknowledged and synced, and a missing file with a mark
// lost all of them: the tenant then answers TenantUnavailable instead of
// opening empty or shorter (registry.open), until an operator accepts the
// loss (DB.AcceptLoss), which drops the mark.
//
// Cost. Nothing per commit: the write path is as it was. At each disk tick
// (one per second) every open tenant file costs an fstat and a stat of its
// path (is the path still the open file? registry.tick), and one written
// since the previous tick its fsync (as before) and its mark; all marks of
// a tick go in one catalog Update (about 40 bytes appended per tenant
// written, synced with the catalog's next tick). A
// close costs one more mark, a shrink two (the mark 0 "length unknown"
// before it, synced, so that a crash during the shrink never leaves a mark
// longer than the new file; then the new length). With --fsync never the
// tick takes the length without syncing: the mark is then what was written,
// and a power cut can leave a tenant answering that it lost commits (it did).
//
// A tenant without a mark (never written, or written only by a build that
// kept none) opens as its file is; its first tick after an open records one.
type fileMarks struct {
	cat     *buntdb.DB // nil for ":memory:": no marks
	catDisk *disk      // the catalog's, to count (and sync) the mark writes

	mu sync.RWMutex // a leaf: taken under registry.mu, never the reverse
	m  map[string]int64

	wmu sync.Mutex // serialises writes, so that the map and the catalog agree
}

// pFileMark: fmark:<esc tenant> -> the tenant file's mark (decimal bytes).
const pFileMark = "fmark:"

func kFileMark(tid string) string { return pFileMark + esc(tid) }

// loadFileMarks reads every mark of the catalog.
func loadFileMarks(cat *buntdb.DB, catDisk *disk, memory bool) (*fileMarks, error) {
	fm := &fileMarks{catDisk: catDisk, m: map[string]int64{}}
	if memory {
		return fm, nil
	}
	fm.cat = cat
	err := cat.View(func(tx *buntdb.Tx) error {
		var bad error
		err := tx.AscendGreaterOrEqual("", pFileMark, func(k, v string) bool {
			if !strings.HasPrefix(k, pFileMark) {
				return false
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				bad = fmt.Errorf("store: bad file mark %s=%q", k, v)
				return false
			}
			fm.m[unesc(k[len(pFileMark):])] = n
			return true
		})
		return errors.Join(err, bad)
	})
	return fm, err
}

// get answers tenant tid's mark, if it has one.
func (fm *fileMarks) get(tid string) (int64, bool) {
	fm.mu.RLock()
	defer fm.mu.RUnlock()
	n, ok := fm.m[tid]
	return n, ok
}

// markOf is one mark to record: the tenant's file f, its length.
type markOf struct {
	f      *tenantFile
	length int64
}

// record writes the marks that changed, in one catalog Update; a file
// whose tenant was deleted meanwhile (gone) records nothing.
func (fm *fileMarks) record(marks []markOf) error {
	if fm.cat == nil || len(marks) == 0 {
		return nil
	}
	fm.wmu.Lock()
	defer fm.wmu.Unlock()
	fm.mu.RLock()
	changed := marks[:0:0]
	for _, mk := range marks {
		if cur, ok := fm.m[mk.f.tid]; (!ok || cur != mk.length) && !mk.f.gone.Load() {
			changed = append(changed, mk)
		}
	}
	fm.mu.RUnlock()
	if len(changed) == 0 {
		return nil
	}
	err := fm.cat.Update(func(tx *buntdb.Tx) error {
		for _, mk := range changed {
			if _, _, err := tx.Set(kFileMark(mk.f.tid), strconv.FormatInt(mk.length, 10), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fm.mu.Lock()
	for _, mk := range changed {
		fm.m[mk.f.tid] = mk.length
	}
	fm.mu.Unlock()
	fm.catDisk.committed()
	return nil
}

// unknown sets f's mark to 0 (data, length unknown) and syncs the catalog,
// before f's file is rewritten shorter (a shrink). Nothing is written for a
// tenant without a mark.
func (fm *fileMarks) unknown(f *tenantFile) error {
	if fm.cat == nil {
		return nil
	}
	if n, ok := fm.get(f.tid); !ok || n == 0 {
		return nil
	}
	if err := fm.record([]markOf{{f, 0}}); err != nil {
		return err
	}
	fm.catDisk.fsync()
	return nil
}

// drop deletes tenant tid's mark (the tenant was deleted, or its loss
// accepted).
func (fm *fileMarks) drop(tid string) error {
	if fm.cat == nil {
		return nil
	}
	fm.wmu.Lock()
	defer fm.wmu.Unlock()
	if _, ok := fm.get(tid); !ok {
		return nil
	}
	err := fm.cat.Update(func(tx *buntdb.Tx) error {
		_, err := tx.Delete(kFileMark(tid))
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	fm.mu.Lock()
	delete(fm.m, tid)
	fm.mu.Unlock()
	fm.catDisk.committed()
	return nil
}

// lossOf answers what tenant tid's file lost against its mark: "" when
// nothing (no mark, or a file at least as long), else the problem.
func (fm *fileMarks) lossOf(tid, path string) (string, error) {
	mark, ok := fm.get(tid)
	if !ok || path == "" {
		return "", nil
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "its file is missing", nil
	case err != nil:
		return "", err
	case st.Size() < mark:
		return fmt.Sprintf("its file ends before its last fsynced commit (%d of %d bytes)", st.Size(), mark), nil
	}
	return "", nil
}

// rescue writes the records of f, whose file was removed or replaced while
// it was open, from memory: at its path when nothing is there, else beside
// the file now at the path (which is left as it is). It answers where.
func rescue(f *tenantFile) (string, error) {
	target := f.path
	if _, err := os.Lstat(f.path); err == nil {
		target = f.path + ".unlinked-" + time.Now().UTC().Format("20060102T150405.000000000Z")
	}
	tmp := target + ".tmp"
	w, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return target, err
	}
	err = errors.Join(f.db.Save(w), w.Sync(), w.Close())
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return target, err
	}
	return target, storeconv.SyncDir(filepath.Dir(target))
}
