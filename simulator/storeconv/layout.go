package storeconv

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// The layout before tenant files, frozen: kLayout marks a catalog; jobq: is
// the single file's global job queue.
const (
	kLayout     = "layout"
	layoutValue = "tenant-files/1"
	// LayoutBackupSuffix names the single data file of the layout before
	// tenant files, kept by the move until the user removes it.
	LayoutBackupSuffix = ".before-tenant-files"
)

// The one-time move from the single data file (every tenant in one buntdb
// file) to the tenant-file layout (a catalog and a file per tenant, the
// store's tenant_files.go). It runs before the store opens anything at PATH and is resumable after kill -9 at any point:
//
//  1. An old file at PATH first gets its records converted in place
//     (file_pass.go, which keeps PATH+BackupSuffix as the file was), then is
//     renamed to PATH+LayoutBackupSuffix. That name is never written again:
//     it is the file the user keeps, readable by the build before the move.
//     Once it exists, a start that finds no catalog at PATH resumes from it.
//  2. Each tenant's "t:<tenant>:" keys are copied, values as they are, to
//     the file Target.TenantFile names, written to a ".tmp" name,
//     fsynced and renamed: a tenant whose file exists is done and is skipped
//     when a cut move resumes.
//  3. The catalog is written to PATH+".tmp": every key outside the tenants'
//     ranges except the global job queue (jobq:, replaced by one next-due
//     hint per tenant), so tenant:, apikey:, texp:, xten:, xkey:, xtencount,
//     the old client and 3DS tokens (ctok:, ch3ds:, the lookup table of
//     tokens that do not carry their tenant), format, and any key this
//     build does not know; kLayout last; fsynced and renamed to PATH. That
//     rename is the move's commit: a catalog at PATH means it is done. The
//     catalog's own conversion (conversion.go) follows.
//
// Each tenant's hint is read from its records with this package's
// decoders; a record they do not read (written in the current format) makes
// the hint early, which the store corrects when the tenant opens.
//
// Disk: the tenant files and the catalog hold the old file's live records
// again, so the move needs about the old file's size free.

var (
	// layoutBatch is the most keys written per transaction of a new file.
	layoutBatch = 1000
	// layoutProgress is how many tenants pass between progress lines.
	layoutProgress = 100
	// layoutCut, when set, is called after each step of the move that
	// reaches the disk (step names the kind: "renamed", "tenant-batch",
	// "tenant", "catalog-batch"), and after each file Convert converted
	// ("file"); an error stops the move there (tests of a cut move).
	layoutCut func(step string) error
)

// moveToTenantFiles converts the single data file of the earlier layout
// at path (if path is one) into a catalog at path and tenant files in
// the tenants directory, keeping the old file as path+LayoutBackupSuffix. It
// answers how many tenants it moved (0 when there was nothing to do: no
// file, an empty one, or a catalog). It refuses to run when path is not a
// catalog and path+LayoutBackupSuffix exists too (the move was done once and
// something else wrote at path since).
func moveToTenantFiles(path string, t Target, log *slog.Logger) (int, error) {
	if path == ":memory:" {
		return 0, nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	backup := path + LayoutBackupSuffix
	haveBackup, err := exists(backup)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !haveBackup {
			return 0, nil
		}
		log.Info("resuming the move of the data file to a file per tenant", "kept", backup)
	case err != nil:
		return 0, fmt.Errorf("storeconv: %w", err)
	case fi.Size() == 0 && !haveBackup:
		return 0, nil
	default:
		done, err := convertSingleFile(path, backup, haveBackup, t, log)
		if err != nil || done {
			return 0, err
		}
	}
	old, err := OpenFile(backup)
	if err != nil {
		return 0, fmt.Errorf("storeconv: opening the earlier data file %s: %w", backup, err)
	}
	defer old.Close()
	moved, hints, err := writeTenantFiles(old, t, log)
	if err != nil {
		return 0, err
	}
	if err := writeCatalog(old, path, t, hints); err != nil {
		return 0, err
	}
	log.Info("data file moved to a file per tenant; the earlier file is kept, remove it once you no longer need it (there is no way back to the single file)",
		"tenants", moved, "catalog", path, "tenantsDir", tenantsDir(t), "kept", backup)
	return moved, nil
}

// convertSingleFile looks at the file at path: done when it is a catalog or
// holds no key (nothing to move). Otherwise it is a single data file: its
// records are converted in place (file_pass.go) and it is renamed to
// backup.
func convertSingleFile(path, backup string, haveBackup bool, t Target, log *slog.Logger) (done bool, err error) {
	db, err := OpenFile(path)
	if err != nil {
		return false, fmt.Errorf("storeconv: opening %s: %w", path, err)
	}
	defer func() {
		if db != nil {
			err = errors.Join(err, db.Close())
		}
	}()
	var layout, format, devFormat string
	keys := 0
	if err := db.View(func(tx *buntdb.Tx) error {
		layout, _ = tx.Get(kLayout)
		format, _ = tx.Get(KeyFormat)
		devFormat, _ = tx.Get(keyDevFormat)
		keys, err = tx.Len()
		return err
	}); err != nil {
		return false, fmt.Errorf("storeconv: reading %s: %w", path, err)
	}
	switch {
	case layout == layoutValue, format == strconv.Itoa(Format), devFormat == "1": // a catalog (format 1 has no layout marker)
		return true, nil
	case layout != "":
		return false, fmt.Errorf("storeconv: %s has layout %q, which this build does not know", path, layout)
	case haveBackup:
		return false, fmt.Errorf("storeconv: %s is not a catalog of the tenant-file layout, and %s (the data file the move to that layout kept) exists too: move one of them away", path, backup)
	case keys == 0:
		return true, nil
	}
	if ents, err := os.ReadDir(tenantsDir(t)); err == nil && len(ents) > 0 {
		return false, fmt.Errorf("storeconv: %s is a data file to move to a file per tenant, but %s already holds files: move them away", path, tenantsDir(t))
	}
	log.Info("moving the data file to a file per tenant (one time; a cut move resumes at the next start)",
		"db", path, "tenantsDir", tenantsDir(t), "kept", backup)
	n, err := fileConv{t: t, path: path, log: log}.run(db)
	if err != nil {
		return false, err
	}
	if n > 0 { // every converted record is in the file twice: rewrite it once
		if err := db.Shrink(); err != nil {
			return false, fmt.Errorf("storeconv: compacting %s after converting its records: %w", path, err)
		}
		log.Info("store records converted to the current format; the file as it was is kept until you remove it",
			"records", n, "db", path, "kept", path+BackupSuffix)
	}
	err, db = db.Close(), nil
	if err != nil {
		return false, err
	}
	if err := os.Rename(path, backup); err != nil {
		return false, fmt.Errorf("storeconv: keeping the earlier data file: %w", err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return false, err
	}
	return false, cutLayout("renamed")
}

// writeTenantFiles writes the file of every tenant of old that has none
// yet, and answers how many tenants old has (tenant records) and each one's
// next-due hint. Keys under a tenant prefix with no tenant record get a
// file too, so that no key is lost.
func writeTenantFiles(old *buntdb.DB, t Target, log *slog.Logger) (int, map[string]hint, error) {
	dir := tenantsDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, nil, fmt.Errorf("storeconv: creating %s: %w", dir, err)
	}
	if err := SyncDir(filepath.Dir(dir)); err != nil {
		return 0, nil, err
	}
	tenants, hints, err := tenantsOf(old)
	if err != nil {
		return 0, nil, err
	}
	isTenant := make(map[string]bool, len(tenants))
	for _, tid := range tenants {
		isTenant[tid] = true
	}
	log.Info("writing the tenant files", "tenants", len(tenants), "tenantsDir", dir)
	written := map[string]bool{}
	count := 0
	var w *tenantWriter
	err = old.View(func(tx *buntdb.Tx) error {
		var ferr error
		err := tx.AscendGreaterOrEqual("", "t:", func(k, v string) bool {
			if !strings.HasPrefix(k, "t:") {
				return false
			}
			etid, rest, ok := strings.Cut(k[2:], ":")
			if !ok {
				ferr = fmt.Errorf("storeconv: key %q of the earlier data file names no tenant", k)
				return false
			}
			tid := unesc(etid)
			if w == nil || w.tid != tid {
				if ferr = w.finish(); ferr != nil {
					return false
				}
				if w != nil {
					count = progress(log, count, len(tenants))
				}
				if w, ferr = newTenantWriter(t.TenantFile(tid), tid); ferr != nil {
					return false
				}
				written[tid] = true
			}
			hints[tid] = hintFrom(hints[tid], t, k, rest, v, tid)
			ferr = w.add(k, v)
			return ferr == nil
		})
		return errors.Join(err, ferr)
	})
	if err == nil {
		err = w.finish()
		if w != nil {
			count = progress(log, count, len(tenants))
		}
	} else if w != nil {
		w.abandon()
	}
	if err != nil {
		return 0, nil, err
	}
	for _, tid := range tenants { // tenants with no records: an empty file
		if written[tid] {
			continue
		}
		w, err := newTenantWriter(t.TenantFile(tid), tid)
		if err == nil {
			err = w.finish()
		}
		if err != nil {
			return 0, nil, err
		}
		count = progress(log, count, len(tenants))
	}
	for tid := range written {
		if !isTenant[tid] {
			log.Warn("records of a tenant with no tenant record moved to their own file", "tenant", tid, "file", t.TenantFile(tid))
		}
	}
	if err := SyncDir(dir); err != nil {
		return 0, nil, err
	}
	for tid := range hints { // hints only for tenants the catalog has
		if !isTenant[tid] {
			delete(hints, tid)
		}
	}
	return len(tenants), hints, nil
}

// tenantsOf answers the tenants of old (its tenant records) and their
// hints as far as the global job queue tells them.
func tenantsOf(old *buntdb.DB) (tenants []string, hints map[string]hint, err error) {
	hints = map[string]hint{}
	err = old.View(func(tx *buntdb.Tx) error {
		if err := tx.AscendGreaterOrEqual("", pTenant, func(k, _ string) bool {
			if !strings.HasPrefix(k, pTenant) {
				return false
			}
			tid := k[len(pTenant):]
			tenants, hints[tid] = append(tenants, tid), hint{}
			return true
		}); err != nil {
			return err
		}
		return tx.AscendGreaterOrEqual("", pJobQ, func(k, _ string) bool {
			if !strings.HasPrefix(k, pJobQ) {
				return false
			}
			if due, tid, ok := parseJobQ(k); ok {
				hints[tid] = earlierJob(hints[tid], due)
			}
			return true
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("storeconv: reading the earlier data file: %w", err)
	}
	return tenants, hints, nil
}

// progress logs every layoutProgress tenants; it answers done+1.
func progress(log *slog.Logger, done, total int) int {
	done++
	if done%layoutProgress == 0 && done < total {
		log.Info("moving tenants to their files", "done", done, "of", total)
	}
	return done
}

// parseJobQ reads a key of the global job queue.
func parseJobQ(k string) (realDue time.Time, tid string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(k, pJobQ), ":")
	if len(parts) != 3 {
		return time.Time{}, "", false
	}
	due, err := stampTime(parts[0])
	return due, unesc(parts[1]), err == nil
}

func earlierJob(h hint, due time.Time) hint {
	if h.JobDue.IsZero() || due.Before(h.JobDue) {
		h.JobDue = due
	}
	return h
}

// hintFrom folds the tenant's record at rest (the key after the tenant
// prefix) with value v into h: a job's real due instant, a PENDING event. A
// hint is a lower bound, so a record it cannot read makes it early.
func hintFrom(h hint, t Target, k, rest, v, tid string) hint {
	switch {
	case strings.HasPrefix(rest, "job:"):
		j, err := readRecord[simulator.Job](t, "job", k, v, tid)
		if err != nil {
			return earlierJob(h, time.UnixMicro(0).UTC())
		}
		return earlierJob(h, j.RealDue)
	case strings.HasPrefix(rest, "whp:"):
		h.Pending = true
	case strings.HasPrefix(rest, "evt:") && !h.Pending: // one PENDING event is enough
		e, err := readRecord[simulator.Event](t, "evt", k, v, tid)
		if err != nil || e.Status == simulator.DeliveryPending {
			h.Pending = true
		}
	}
	return h
}

// readRecord is the kernel value of the record v at k (of kind kind,
// recordKind), in the current format (read by t) or an older one.
func readRecord[T any](t Target, kind, k, v, tid string) (*T, error) {
	val, err := decodeAny(t, kind, k, v, tid)
	if err != nil {
		return nil, err
	}
	r, ok := val.(*T)
	if !ok {
		return nil, fmt.Errorf("storeconv: %s holds a %T", k, val)
	}
	return r, nil
}

// decodeAny is the kernel value of the record v at k: read by t when it is
// in the current format, by this package's decoders otherwise.
func decodeAny(t Target, kind, k, v, tid string) (any, error) {
	if t.Current(k, v) {
		return t.Decode(tid, fileKey(k), v)
	}
	return decodeRecord(kind, k, v, tid)
}

// tenantWriter writes one tenant's file (nil when the file exists: done).
type tenantWriter struct {
	tid, tmp, final string
	db              *buntdb.DB
	batch           [][2]string
}

func newTenantWriter(final, tid string) (*tenantWriter, error) {
	if ok, err := exists(final); err != nil || ok {
		return &tenantWriter{tid: tid}, err // done by a move that was cut
	}
	w := &tenantWriter{tid: tid, tmp: final + ".tmp", final: final}
	if err := os.Remove(w.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("storeconv: %w", err)
	}
	db, err := OpenFile(w.tmp)
	if err != nil {
		return nil, fmt.Errorf("storeconv: creating %s: %w", w.tmp, err)
	}
	w.db = db
	return w, nil
}

func (w *tenantWriter) add(k, v string) error {
	if w.db == nil {
		return nil
	}
	w.batch = append(w.batch, [2]string{k, v})
	if len(w.batch) < layoutBatch {
		return nil
	}
	return w.flush()
}

func (w *tenantWriter) flush() error {
	if len(w.batch) == 0 {
		return nil
	}
	if err := setAll(w.db, w.batch); err != nil {
		return fmt.Errorf("storeconv: writing %s: %w", w.tmp, err)
	}
	w.batch = w.batch[:0]
	return cutLayout("tenant-batch")
}

// finish writes what is left, syncs and closes the file and gives it its
// name (nothing for a nil writer or a tenant done before).
func (w *tenantWriter) finish() error {
	if w == nil || w.db == nil {
		return nil
	}
	if err := w.flush(); err != nil {
		w.abandon()
		return err
	}
	err := w.db.Close() // syncs
	w.db = nil
	if err != nil {
		return fmt.Errorf("storeconv: writing %s: %w", w.tmp, err)
	}
	if err := os.Rename(w.tmp, w.final); err != nil {
		return fmt.Errorf("storeconv: %w", err)
	}
	return cutLayout("tenant")
}

// abandon closes the file of a cut move (its tmp file is written again
// when the move resumes).
func (w *tenantWriter) abandon() {
	if w != nil && w.db != nil {
		_ = w.db.Close()
		w.db = nil
	}
}

// writeCatalog writes the catalog at path+".tmp" from old and hints, then
// renames it to path: the move's commit.
func writeCatalog(old *buntdb.DB, path string, t Target, hints map[string]hint) error {
	tmp := path + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storeconv: %w", err)
	}
	cat, err := OpenFile(tmp)
	if err != nil {
		return fmt.Errorf("storeconv: creating %s: %w", tmp, err)
	}
	defer func() {
		if cat != nil {
			_ = cat.Close()
		}
	}()
	var batch [][2]string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := setAll(cat, batch); err != nil {
			return fmt.Errorf("storeconv: writing %s: %w", tmp, err)
		}
		batch = batch[:0]
		return cutLayout("catalog-batch")
	}
	add := func(k, v string) error {
		batch = append(batch, [2]string{k, v})
		if len(batch) < layoutBatch {
			return nil
		}
		return flush()
	}
	err = old.View(func(tx *buntdb.Tx) error {
		var ferr error
		err := tx.Ascend("", func(k, v string) bool {
			switch {
			case strings.HasPrefix(k, "t:"), strings.HasPrefix(k, pJobQ), k == kLayout:
				return true
			}
			ferr = add(k, v)
			return ferr == nil
		})
		return errors.Join(err, ferr)
	})
	if err != nil {
		return err
	}
	for tid, h := range hints {
		kv := t.Hint(tid, h.JobDue, h.Pending)
		if err := add(kv[0], kv[1]); err != nil {
			return err
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if err := setAll(cat, [][2]string{{kLayout, layoutValue}}); err != nil {
		return fmt.Errorf("storeconv: writing %s: %w", tmp, err)
	}
	err, cat = cat.Close(), nil // syncs
	if err != nil {
		return fmt.Errorf("storeconv: writing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("storeconv: %w", err)
	}
	return SyncDir(filepath.Dir(path))
}

func setAll(db *buntdb.DB, pairs [][2]string) error {
	return db.Update(func(tx *buntdb.Tx) error {
		for _, p := range pairs {
			if _, _, err := tx.Set(p[0], p[1], nil); err != nil {
				return err
			}
		}
		return nil
	})
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("storeconv: %w", err)
	}
	return true, nil
}

// SyncDir makes the names created or renamed in dir durable (the store's
// files and the conversion's alike).
func SyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

func cutLayout(step string) error {
	if layoutCut == nil {
		return nil
	}
	return layoutCut(step)
}

// pJobQ: jobq:<realDue>:<tenant>:<job id>, the global due queue of the
// single-file layout (the move turns it into next-due hints).
const pJobQ = "jobq:"

// hint is what the move learns of a tenant's next-due hint (Target.Hint).
type hint struct {
	JobDue  time.Time
	Pending bool
}

// stampTime reads a key's time stamp (microseconds since the epoch, 20
// digits).
func stampTime(s string) (time.Time, error) {
	us, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMicro(us).UTC(), nil
}

func tenantsDir(t Target) string { return filepath.Dir(t.TenantFile("-")) }

// OpenFile opens (creating) a buntdb file with the store's configuration,
// which the conversion writes files in too: no fsync or shrink of buntdb's
// own (the store's disk.go decides them; Close syncs).
func OpenFile(path string) (*buntdb.DB, error) {
	db, err := buntdb.Open(path)
	if err != nil {
		return nil, err
	}
	var cfg buntdb.Config
	if err := db.ReadConfig(&cfg); err != nil {
		db.Close()
		return nil, err
	}
	cfg.SyncPolicy, cfg.AutoShrinkDisabled = buntdb.Never, true
	if err := db.SetConfig(cfg); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
