package storeconv

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// The conversion of one buntdb file's records in place (the single data
// file, the catalog, each tenant file), in batches of one transaction each.
// What is left to convert says so itself, so a conversion cut by kill -9
// finds at the next start what it had not reached:
//
//   - a record (recordKind) in a format of this package (JSON or CBOR) that
//     the target says is not current: decoded (records.go) and written again
//     through Target.Encode. One that does not decode is left as it is, with
//     a warning naming it: the store answers RecordUnreadable for it, as for
//     any damaged record, and the rest of the store opens;
//   - an observer's record (t:<tenant>:<kind>: the report's counts, the
//     migration notes), whose type this package does not know: read as a
//     tree of its members and written again as the observer's value;
//   - an event whose rendered body is apart (evb:<id>, the oldest layout):
//     written again with its body, the evb key deleted in the same
//     transaction (an evb key of no event is deleted);
//   - an event's id entry that holds the event's whole key (evi:<id> ->
//     t:...:evt:<stamp>:<id>) instead of its stamp: rewritten.

// Batch bounds: records converted, and keys looked at, per transaction
// (each holds buntdb's write lock while it runs).
var (
	convertBatch = 1000
	convertScan  = 20000
	// convertCut, when set, is called after each committed batch; an error
	// stops the conversion there (tests of a cut conversion).
	convertCut func(batches int) error
)

// BackupSuffix names the copy of a file that the conversion keeps before it
// writes to it: FILE+BackupSuffix holds the file as it was, until the user
// removes it.
const BackupSuffix = ".before-format-1"

// ConvertFile converts the records of the open buntdb file db (at path,
// ":memory:" for none: no copy kept) in place for target t, as Convert
// converts each file of a store; it answers how many pairs it wrote again.
func ConvertFile(db *buntdb.DB, path string, t Target) (int, error) {
	return fileConv{t: t, path: path, log: slog.New(slog.DiscardHandler), tenantFile: true}.run(db)
}

// fileConv converts one file for target t: a tenant's file (tenantFile:
// its keys no longer name it), the catalog or a single data file.
type fileConv struct {
	t          Target
	path       string
	log        *slog.Logger
	tenantFile bool
}

// stale reports whether the pair at k in tx is left to convert (see above).
func (c fileConv) stale(tx *buntdb.Tx, k, v string) bool {
	kind, tid, rest := recordKind(k)
	switch {
	case kind == "evb": // deleted with its event, once that is written again
		return !hasEither(tx, tid, "evi:"+rest)
	case c.tenantFile && strings.HasPrefix(k, "t:"):
		return true // a key naming its tenant in the tenant's own file
	case kind == "":
		return false
	}
	return c.recordStale(tx, kind, tid, k, v)
}

// recordStale reports whether the record at k (a record's kind) is to be
// written again: in a format of this package, or an event whose body is
// apart.
func (c fileConv) recordStale(tx *buntdb.Tx, kind, tid, k, v string) bool {
	if kind == "evt" && hasEither(tx, tid, "evb:"+eventID(k)) {
		return true
	}
	return (isJSON(v) || len(v) > 0 && v[0] == cborV1) && !c.t.Current(k, v)
}

// hasEither reports whether tenant tid's file holds key, under its
// tenant's prefix or without it (a file whose conversion was cut holds
// both kinds).
func hasEither(tx *buntdb.Tx, tid, key string) bool {
	for _, k := range []string{tenantPrefix(tid) + key, key} {
		if _, err := tx.Get(k); err == nil {
			return true
		}
	}
	return false
}

// run converts every stale pair of db; it answers how many.
func (c fileConv) run(db *buntdb.DB) (int, error) {
	if err := c.keepOriginal(db); err != nil {
		return 0, err
	}
	from, total, batches := "", 0, 0
	for {
		var next string
		n := 0
		err := db.Update(func(tx *buntdb.Tx) (err error) {
			n, next, err = c.batch(tx, from)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		batches++
		if next == "" {
			return total, nil
		}
		from = next
		if convertCut != nil {
			if err := convertCut(batches); err != nil {
				return total, err
			}
		}
	}
}

// batch converts, in tx, the stale pairs after key from (from itself
// included when it is ""), at most convertBatch of them within convertScan
// keys; it answers how many it converted and the key to go on after (""
// once the file is done).
func (c fileConv) batch(tx *buntdb.Tx, from string) (n int, next string, err error) {
	var stale [][2]string
	scanned := 0
	err = tx.AscendGreaterOrEqual("", from, func(k, v string) bool {
		if k == from && from != "" {
			return true
		}
		scanned++
		if c.stale(tx, k, v) {
			stale = append(stale, [2]string{k, v})
		}
		if len(stale) >= convertBatch || scanned >= convertScan {
			next = k
			return false
		}
		return true
	})
	if err != nil {
		return 0, "", err
	}
	for _, r := range stale {
		err := c.convert(tx, r[0], r[1])
		var bad errUnreadable
		if errors.As(err, &bad) {
			c.log.Warn("a record that does not decode is left as it was (the store answers RecordUnreadable for it)", "key", r[0], "file", c.path, "err", bad.err)
			continue
		}
		if err != nil {
			return 0, "", fmt.Errorf("storeconv: converting %s in %s: %w", r[0], c.path, err)
		}
	}
	return len(stale), next, nil
}

// convert writes the pair k, v again in the current format, in a tenant's
// file at the key that no longer names its tenant. A record that does not decode moves
// there as it is (errUnreadable: the store answers RecordUnreadable for
// it).
func (c fileConv) convert(tx *buntdb.Tx, k, v string) error {
	kind, tid, _ := recordKind(k)
	nk := k
	if c.tenantFile {
		nk = fileKey(k)
	}
	switch kind {
	case "evi":
		if i := strings.LastIndex(v, ":evt:"); i >= 0 {
			st, _, ok := strings.Cut(v[i+len(":evt:"):], ":")
			if !ok {
				return errors.New("malformed event id entry")
			}
			v = st
		}
		return move(tx, k, nk, v)
	case "evb":
		_, err := tx.Delete(k)
		return err
	case "":
		return move(tx, k, nk, v)
	}
	if !c.recordStale(tx, kind, tid, k, v) {
		return move(tx, k, nk, v)
	}
	val, err := decodeAny(c.t, kind, k, v, tid) // current: an event written again for its body apart
	if err != nil {
		return errors.Join(errUnreadable{err}, move(tx, k, nk, v))
	}
	if e, ok := val.(*simulator.Event); ok {
		for _, bk := range []string{tenantPrefix(tid) + "evb:" + eventID(k), "evb:" + eventID(k)} {
			body, err := tx.Get(bk)
			if err != nil {
				continue
			}
			if e.Payment == nil && e.Dispute == nil {
				e.Body = []byte(body)
			}
			if _, err := tx.Delete(bk); err != nil {
				return err
			}
		}
	}
	if nk != k {
		if _, err := tx.Delete(k); err != nil {
			return err
		}
	}
	pairs, err := c.t.Encode(tid, fileKey(k), val)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		if !c.tenantFile && strings.HasPrefix(k, "t:") { // a single data file: its tenants' keys name them
			p[0] = tenantPrefix(tid) + p[0]
		}
		if _, _, err := tx.Set(p[0], p[1], nil); err != nil {
			return err
		}
	}
	return nil
}

// move puts v at nk in place of k (v written again when nk is k).
func move(tx *buntdb.Tx, k, nk, v string) error {
	if nk != k {
		if _, err := tx.Delete(k); err != nil {
			return err
		}
	}
	_, _, err := tx.Set(nk, v, nil)
	return err
}

// errUnreadable: a record that does not decode.
type errUnreadable struct{ err error }

func (e errUnreadable) Error() string { return e.err.Error() }

// keepOriginal copies the file to path+BackupSuffix before the conversion
// writes to it, when it holds a stale pair and no copy exists yet (a
// conversion cut short and resumed keeps the first copy, the one taken
// before anything was converted).
func (c fileConv) keepOriginal(db *buntdb.DB) error {
	if c.path == ":memory:" {
		return nil
	}
	old := false
	if err := db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			old = c.stale(tx, k, v)
			return !old
		})
	}); err != nil || !old {
		return err
	}
	return copyFile(c.path, c.path+BackupSuffix)
}

// copyFile copies src to dst (written to dst.tmp, synced, renamed) unless
// dst exists.
func copyFile(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("storeconv: keeping a copy of %s before converting it: %w", src, err)
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("storeconv: keeping a copy of %s before converting it: %w", src, err)
	}
	if f, err := os.Open(tmp); err == nil {
		_ = f.Sync()
		f.Close()
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("storeconv: keeping a copy of %s before converting it: %w", src, err)
	}
	return nil
}

// Keys of the layouts before format 1, frozen. A tenant's keys are
// "t:<tenant>:<kind>:..." (the tenant id with '%', ':' and '/'
// percent-encoded); the catalog's records are "tenant:<id>" and
// "xten:<deletedAt>:<tenant>".
const (
	pTenant = "tenant:"
	pXTen   = "xten:"
	pCTok   = "ctok:"
	pCh3DS  = "ch3ds:"
)

func esc(s string) string { return strings.NewReplacer("%", "%25", ":", "%3A", "/", "%2F").Replace(s) }

func unesc(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	return strings.NewReplacer("%3A", ":", "%2F", "/", "%25", "%").Replace(s)
}

func tenantPrefix(tid string) string { return "t:" + esc(tid) + ":" }

// recordKind names what the key k holds, as far as the conversion cares:
// a record ("tenant", "xten", "cs", "pi", "pay", "att", "evt", "job",
// "dsp", "obs": an observer's), an event's id entry ("evi") or body
// ("evb"); "" for anything else, a key of the current format among them
// (none of them names its tenant). tid is the (unescaped) tenant of a key
// that names it, rest what follows its kind.
func recordKind(k string) (kind, tid, rest string) {
	switch {
	case strings.HasPrefix(k, pTenant):
		return "tenant", k[len(pTenant):], ""
	case strings.HasPrefix(k, pXTen):
		return "xten", "", ""
	case !strings.HasPrefix(k, "t:"):
		return "", "", ""
	}
	etid, after, ok := strings.Cut(k[2:], ":")
	if !ok {
		return "", "", ""
	}
	kind, rest, ok = strings.Cut(after, ":")
	if !ok { // t:<tenant>:<kind>: an observer's record (the report, the migration notes)
		return "obs", unesc(etid), ""
	}
	switch kind {
	case "cs", "pi", "pay", "att", "evt", "job", "dsp", "evi", "evb":
		return kind, unesc(etid), rest
	}
	return "", unesc(etid), ""
}

// fileKey is k as the current format keeps it in its tenant's file: without
// the "t:<tenant>:" that keys of the layouts before it began with.
func fileKey(k string) string {
	if !strings.HasPrefix(k, "t:") {
		return k
	}
	if _, after, ok := strings.Cut(k[2:], ":"); ok {
		return after
	}
	return k
}

// eventID is the id of the event at k (t:<tenant>:evt:<stamp>:<id>).
func eventID(k string) string { return k[strings.LastIndexByte(k, ':')+1:] }
