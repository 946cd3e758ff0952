package storeconv

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/buntdb"
)

// Convert brings the store at path (its catalog; the tenant files are
// where t.TenantFile says) to Format, the store closed meanwhile:
//
//  1. a single data file at path (or the one a cut move kept) is moved to a
//     catalog and a file per tenant (layout.go), its records converted on
//     the way;
//  2. the catalog's records, then each tenant file's, are converted in
//     place (file_pass.go); the catalog's lookup table of client and 3DS
//     tokens goes into the tenants' files (Target.Encode of a SessionToken
//     or ChallengeToken; a token the current format has no place for, one
//     that does not carry its tenant, is dropped and counted in the log);
//     A tenant file that does not open is left as it is, with an ERROR
//     line (the store answers TenantUnavailable for that tenant alone, as
//     it would anyway), and its tokens stay in the catalog;
//  3. last, in one transaction, the table and the layout marker are
//     deleted and the catalog's KeyFormat set to Format: that write is the
//     conversion's commit. Every step before it is redone, finding nothing
//     left, by a start that finds no number.
//
// It answers how many tenants step 1 moved (0 when path was a catalog). A
// catalog with a number above Format is refused.
func Convert(path string, t Target, log *slog.Logger) (moved int, err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if moved, err = moveToTenantFiles(path, t, log); err != nil {
		return 0, err
	}
	cat, err := OpenFile(path)
	if err != nil {
		return 0, fmt.Errorf("storeconv: opening %s: %w", path, err)
	}
	defer func() { err = errors.Join(err, cat.Close()) }()
	n, err := CatalogFormat(cat)
	switch {
	case err != nil:
		return 0, fmt.Errorf("storeconv: %s: %w", path, err)
	case n == Format:
		return moved, nil
	}
	log.Info("converting the store to format "+strconv.Itoa(Format)+" (one time; a cut conversion resumes at the next start)", "db", path)
	records, err := fileConv{t: t, path: path, log: log}.run(cat)
	if err != nil {
		return 0, err
	}
	if err := cutLayout("file"); err != nil {
		return 0, err
	}
	tokens, err := tokenTable(cat)
	if err != nil {
		return 0, fmt.Errorf("storeconv: reading %s: %w", path, err)
	}
	files, err := tenantFiles(t, tokens)
	if err != nil {
		return 0, err
	}
	dropped := 0
	for i, f := range files {
		n, d, err := convertTenantFile(f, t, tokens[f.tid], log)
		var broken errBroken
		if errors.As(err, &broken) {
			// as the store treats it: that tenant answers TenantUnavailable,
			// the others are served; its tokens stay in the catalog
			log.Error("a tenant file that cannot be opened is left as it is, not converted", "file", f.path, "err", broken.err)
			delete(tokens, f.tid)
			continue
		}
		if err != nil {
			return 0, err
		}
		records, dropped = records+n, dropped+d
		if err := cutLayout("file"); err != nil {
			return 0, err
		}
		if (i+1)%layoutProgress == 0 && i+1 < len(files) {
			log.Info("converting tenant files", "done", i+1, "of", len(files))
		}
	}
	if err := cat.Update(func(tx *buntdb.Tx) error {
		for _, tt := range tokens {
			for _, tok := range tt {
				if _, err := tx.Delete(tok.key); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
					return err
				}
			}
		}
		for _, k := range []string{kLayout, keyDevFormat} {
			if _, err := tx.Delete(k); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
				return err
			}
		}
		_, _, err := tx.Set(KeyFormat, strconv.Itoa(Format), nil)
		return err
	}); err != nil {
		return 0, fmt.Errorf("storeconv: writing %s: %w", path, err)
	}
	if dropped > 0 {
		log.Warn("client and 3DS challenge tokens issued before tokens carried their tenant no longer resolve; start new sessions for them", "tokens", dropped)
	}
	if records == 0 {
		log.Info("store marked format "+strconv.Itoa(Format)+"; no record needed converting", "db", path, "tenantFiles", len(files))
		return moved, nil
	}
	log.Info("store converted to format "+strconv.Itoa(Format)+"; each file written to is kept as it was beside it (FILE"+BackupSuffix+") until you remove it",
		"records", records, "db", path, "tenantFiles", len(files))
	return moved, nil
}

// CatalogFormat is the format number of the catalog cat: 0 when it has
// none (every layout before format 1, whatever keyDevFormat says), an error for a value that is no
// number or above Format (a later build's).
func CatalogFormat(cat *buntdb.DB) (int, error) {
	var v string
	err := cat.View(func(tx *buntdb.Tx) (err error) { v, err = tx.Get(KeyFormat); return })
	if errors.Is(err, buntdb.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, perr := strconv.Atoi(v)
	switch {
	case perr != nil || n < 1:
		return 0, fmt.Errorf("its format %q is not one this build knows", v)
	case n > Format:
		return n, fmt.Errorf("it is in format %d, written by a later build; this build reads format %d and older (a downgrade is not supported: use the later build, or restore a backup taken before it ran)", n, Format)
	}
	return n, nil
}

// token is an entry of the catalog's token table.
type token struct {
	key string
	v   any // SessionToken or ChallengeToken
}

// tokenTable reads the catalog's lookup table of tokens, by tenant.
func tokenTable(cat *buntdb.DB) (map[string][]token, error) {
	out := map[string][]token{}
	err := cat.View(func(tx *buntdb.Tx) error {
		for _, p := range []string{pCTok, pCh3DS} {
			err := tx.AscendGreaterOrEqual("", p, func(k, v string) bool {
				if !strings.HasPrefix(k, p) {
					return false
				}
				etid, id, _ := strings.Cut(v, "/")
				tid, tok := unesc(etid), k[len(p):]
				var e any = SessionToken{TenantID: tid, Token: tok, SessionID: id}
				if p == pCh3DS {
					e = ChallengeToken{TenantID: tid, Token: tok, PaymentID: id}
				}
				out[tid] = append(out[tid], token{key: k, v: e})
				return true
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// errBroken: a tenant file that does not open.
type errBroken struct{ err error }

func (e errBroken) Error() string { return e.err.Error() }

// tenantFile is a tenant file to convert.
type tenantFile struct{ tid, path string }

// tenantFiles lists the files of the tenants directory, and of the
// tenants with tokens that have none (their files are made), in name
// order. A file's tenant is known from its name only through the tokens;
// its keys say it too, which is what the conversion reads.
func tenantFiles(t Target, tokens map[string][]token) ([]tenantFile, error) {
	dir := tenantsDir(t)
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("storeconv: %w", err)
	}
	byPath := map[string]string{}
	for tid := range tokens {
		byPath[t.TenantFile(tid)] = tid
	}
	var out []tenantFile
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".db") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		out = append(out, tenantFile{tid: byPath[p], path: p})
		delete(byPath, p)
	}
	for p, tid := range byPath {
		out = append(out, tenantFile{tid: tid, path: p})
	}
	slices.SortFunc(out, func(a, b tenantFile) int { return strings.Compare(a.path, b.path) })
	return out, nil
}

// convertTenantFile converts the records of one tenant file and writes
// its tokens from the catalog's table into it; it answers how many records
// it converted and how many tokens the current format dropped.
func convertTenantFile(f tenantFile, t Target, tokens []token, log *slog.Logger) (n, dropped int, err error) {
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return 0, 0, fmt.Errorf("storeconv: %w", err)
	}
	db, err := OpenFile(f.path)
	if err != nil {
		return 0, 0, errBroken{err}
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	if n, err = (fileConv{t: t, path: f.path, log: log, tenantFile: true}).run(db); err != nil {
		return 0, 0, err
	}
	if len(tokens) == 0 {
		return n, 0, nil
	}
	err = db.Update(func(tx *buntdb.Tx) error {
		for _, tok := range tokens {
			pairs, err := t.Encode(f.tid, tok.key, tok.v)
			if err != nil {
				return err
			}
			if len(pairs) == 0 {
				dropped++
			}
			for _, p := range pairs {
				if _, _, err := tx.Set(p[0], p[1], nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("storeconv: writing %s: %w", f.path, err)
	}
	return n, dropped, nil
}
