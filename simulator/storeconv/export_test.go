package storeconv

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Test hooks (compiled into this package's tests only).

// StoreTarget is the store's Target of the store at path: set by the
// external tests (target_test.go), which may import the store, for the
// internal ones, which may not.
var StoreTarget func(path string) Target

// SetConvertBatch makes each conversion transaction convert at most n
// records, and cut the conversion (Convert, and so store.Open, fails) after
// stop batches when stop is positive; the returned func restores the
// defaults.
func SetConvertBatch(n, stop int) (restore func()) {
	batch, cut := convertBatch, convertCut
	convertBatch = n
	if stop > 0 {
		convertCut = func(batches int) error {
			if batches >= stop {
				return errCut
			}
			return nil
		}
	}
	return func() { convertBatch, convertCut = batch, cut }
}

// MoveToTenantFiles moves the single data file at path to tenant files.
func MoveToTenantFiles(path string) (int, error) {
	return moveToTenantFiles(path, StoreTarget(path), nil)
}

var errCut = errors.New("cut")

// Names of the store's layout the tests check files against.
func tenantsDirOf(path string) string { return filepath.Dir(StoreTarget(path).TenantFile("-")) }

func tenantFileName(tid string) string { return filepath.Base(StoreTarget("x").TenantFile(tid)) }

func hintOf(tid string, h hint) [2]string { return StoreTarget("x").Hint(tid, h.JobDue, h.Pending) }

const pHint = "hint:"

func stamp(t time.Time) string { return fmt.Sprintf("%020d", t.UnixMicro()) }

// kJobQ is a key of the single file's global job queue.
func kJobQ(realDue time.Time, tid, id string) string {
	return pJobQ + stamp(realDue) + ":" + esc(tid) + ":" + id
}

// CutAt makes the conversion call stop at its n-th step that reaches the
// disk (each batch of records, each step of the move, each file converted),
// with batches of batch records and keys; the returned func restores the
// defaults.
func CutAt(n, batch int, stop func() error) (restore func()) {
	lb, cb, lc, cc := layoutBatch, convertBatch, layoutCut, convertCut
	layoutBatch, convertBatch = batch, batch
	seen := 0
	step := func() error {
		if seen++; seen == n {
			return stop()
		}
		return nil
	}
	layoutCut = func(string) error { return step() }
	convertCut = func(int) error { return step() }
	return func() { layoutBatch, convertBatch, layoutCut, convertCut = lb, cb, lc, cc }
}
