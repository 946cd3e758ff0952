package store

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
	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

// The store's side of the conversion of older files (simulator/storeconv):
// the catalog's format number decides whether it runs, and target is how
// it writes records in this build's format.

// openCatalog opens the catalog at path in format storeconv.Format: a new
// one gets the number; a catalog without it or with a smaller one (every
// layout before format 1, the single data file included) is converted
// first; a larger one is refused. It answers how many tenants the
// conversion moved out of a single data file.
func openCatalog(path string, log *slog.Logger) (*buntdb.DB, int, error) {
	if path != ":memory:" {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			// a move of a single data file cut after it renamed the file
			if _, err := os.Stat(path + storeconv.LayoutBackupSuffix); err == nil {
				return convertCatalog(path, log)
			}
		}
	}
	cat, err := storeconv.OpenFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("store: opening %s: %w", path, err)
	}
	current := false
	err = cat.Update(func(tx *buntdb.Tx) error {
		v, err := tx.Get(storeconv.KeyFormat)
		if err == nil {
			current = v == strconv.Itoa(storeconv.Format)
			return nil
		}
		n, err := tx.Len()
		if err != nil || n > 0 {
			return err
		}
		current = true // a new catalog
		_, _, err = tx.Set(storeconv.KeyFormat, strconv.Itoa(storeconv.Format), nil)
		return err
	})
	if err == nil && !current {
		_, err = storeconv.CatalogFormat(cat) // a later build's is refused here
		if err == nil {
			if err := cat.Close(); err != nil {
				return nil, 0, err
			}
			return convertCatalog(path, log)
		}
		err = fmt.Errorf("store: %s: %w", path, err)
	}
	if err != nil {
		cat.Close()
		return nil, 0, err
	}
	return cat, 0, nil
}

// convertCatalog converts the store at path (closed) and opens its catalog.
func convertCatalog(path string, log *slog.Logger) (*buntdb.DB, int, error) {
	moved, err := storeconv.Convert(path, ConversionTarget(path), log)
	if err != nil {
		return nil, 0, err
	}
	cat, err := storeconv.OpenFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("store: opening %s: %w", path, err)
	}
	if n, err := storeconv.CatalogFormat(cat); err != nil || n != storeconv.Format {
		cat.Close()
		return nil, 0, errors.Join(fmt.Errorf("store: %s is not in format %d after its conversion", path, storeconv.Format), err)
	}
	return cat, moved, nil
}

// ConversionTarget is the store at path as storeconv writes it (Open
// uses it; tests of storeconv convert files with it).
func ConversionTarget(path string) storeconv.Target { return target{path: path} }

type target struct{ path string }

func (target) Current(_, raw string) bool { return len(raw) > 0 && raw[0] == recV2 }

func (c target) TenantFile(tid string) string {
	return filepath.Join(TenantsDir(c.path), TenantFileName(tid))
}

func (target) Hint(tid string, jobDue time.Time, pending bool) [2]string {
	return [2]string{kHint(tid), hint{JobDue: jobDue, Pending: pending}.value()}
}

func (target) Decode(tid, key, raw string) (any, error) {
	switch {
	case strings.HasPrefix(key, pEvent):
		return decodeEvent(raw, tid)
	case strings.HasPrefix(key, kJob("")):
		return decodeJob(raw, tid)
	}
	return nil, fmt.Errorf("store: the conversion reads no record at %s", key)
}

func (target) Encode(_, key string, v any) ([][2]string, error) {
	switch v := v.(type) {
	case storeconv.SessionToken:
		if tid, ok := simulator.TenantOfToken(v.Token); ok && tid == v.TenantID {
			return [][2]string{{kTokSession(v.Token), v.SessionID}}, nil
		}
		return nil, nil
	case storeconv.ChallengeToken:
		if tid, ok := simulator.TenantOfToken(v.Token); ok && tid == v.TenantID {
			return [][2]string{{kTokChallenge(v.Token), v.PaymentID}}, nil
		}
		return nil, nil
	}
	return encodeRecord(key, v)
}
