package storeconv

import (
	"bytes"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// The move from the single data file to tenant files, checked at the level
// of buntdb keys (what the store reads them as is another test's).

// layoutFixtures are data files of the single-file layout: one written by
// that layout's code (single_file_gen_test.go), one of the JSON record
// format before it (converted on the way).
var layoutFixtures = []struct {
	name string
	json bool
}{
	{"single_file.aof", false},
	{"upgrade_main.aof", true},
}

func copyFixture(t *testing.T, name string) (path string, orig []byte) {
	t.Helper()
	orig, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	path = filepath.Join(t.TempDir(), "data", "paysandbox.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, orig, 0o600))
	return path, orig
}

// fixtureRecords are the keys and values of the fixture name as it is (the
// kept files hold its records converted to the current format).
func fixtureRecords(t *testing.T, name string) map[string]string {
	t.Helper()
	path, _ := copyFixture(t, name)
	return dumpFile(t, path)
}

// dumpFile reads every key and value of the buntdb file at path.
func dumpFile(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := buntdb.Open(path)
	require.NoError(t, err)
	defer db.Close()
	out := map[string]string{}
	require.NoError(t, db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool { out[k] = v; return true })
	}))
	return out
}

// layoutState is what a move left on disk: the catalog's keys, each tenant
// file's keys by file name, the names in the tenants directory.
type layoutState struct {
	Catalog map[string]string
	Tenants map[string]map[string]string
}

func readLayout(t *testing.T, path string) layoutState {
	t.Helper()
	st := layoutState{Catalog: dumpFile(t, path), Tenants: map[string]map[string]string{}}
	ents, err := os.ReadDir(tenantsDirOf(path))
	require.NoError(t, err)
	for _, e := range ents {
		require.True(t, strings.HasSuffix(e.Name(), ".db"), "only tenant files are left: %s", e.Name())
		st.Tenants[e.Name()] = dumpFile(t, filepath.Join(tenantsDirOf(path), e.Name()))
	}
	return st
}

// wantHints computes each tenant's hint from the old file's records: the
// earliest real due instant of its jobs, and whether any event is PENDING.
func wantHints(t *testing.T, old map[string]string) map[string]string {
	t.Helper()
	hs := map[string]hint{}
	for k := range old {
		if tid, ok := strings.CutPrefix(k, pTenant); ok {
			hs[tid] = hint{}
		}
	}
	for k, v := range old {
		etid, rest, ok := strings.Cut(strings.TrimPrefix(k, "t:"), ":")
		if !strings.HasPrefix(k, "t:") || !ok {
			continue
		}
		tid := unesc(etid)
		h := hs[tid]
		switch {
		case strings.HasPrefix(rest, "job:"):
			var j simulator.Job
			require.NoError(t, decode(v, &j))
			if h.JobDue.IsZero() || j.RealDue.Before(h.JobDue) {
				h.JobDue = j.RealDue
			}
		case strings.HasPrefix(rest, "evt:"):
			e, err := decodeEvent(v, tid)
			require.NoError(t, err)
			h.Pending = h.Pending || e.Status == simulator.DeliveryPending
		}
		hs[tid] = h
	}
	out := map[string]string{}
	for tid, h := range hs {
		kv := hintOf(tid, h)
		out[kv[0]] = kv[1]
	}
	return out
}

// checkLayout checks that every key of old is in exactly one place with its
// value: its tenant's file for "t:<tenant>:" keys, the catalog for the
// others, except the global job queue, which became the catalog's hints.
func checkLayout(t *testing.T, fixture string, old map[string]string, st layoutState) {
	t.Helper()
	seen := map[string]int{}
	for k, v := range old {
		where := ""
		for name, kv := range st.Tenants {
			if got, ok := kv[k]; ok {
				seen[name]++
				where += " " + name
				assert.Equal(t, v, got, "%s in %s", k, name)
			}
		}
		if got, ok := st.Catalog[k]; ok {
			where += " catalog"
			assert.Equal(t, v, got, "%s in the catalog", k)
		}
		switch {
		case strings.HasPrefix(k, pJobQ):
			assert.Empty(t, where, "%s (the global job queue) is dropped", k)
		case strings.HasPrefix(k, "t:"):
			etid, _, _ := strings.Cut(k[2:], ":")
			assert.Equal(t, " "+tenantFileName(unesc(etid)), where, k)
		default:
			assert.Equal(t, " catalog", where, k)
		}
	}
	for name, kv := range st.Tenants {
		assert.Equal(t, len(kv), seen[name], "%s holds only keys of the old file", name)
	}
	hints := wantHints(t, fixtureRecords(t, fixture))
	for k, v := range st.Catalog {
		if _, ok := old[k]; ok {
			continue
		}
		switch {
		case strings.HasPrefix(k, pHint):
			assert.Equal(t, hints[k], v, k)
		case k == kLayout:
			assert.Equal(t, layoutValue, v)
		default:
			t.Errorf("the catalog has %s, which the old file had not", k)
		}
	}
	for k := range hints {
		assert.Contains(t, st.Catalog, k, "every tenant has a hint")
	}
	for k := range old {
		if tid, ok := strings.CutPrefix(k, pTenant); ok {
			assert.Contains(t, st.Tenants, tenantFileName(tid), "every tenant has a file")
		}
	}
}

// keysOf is st without the values of records (hints and layout kept).
func keysOf(st layoutState) layoutState {
	out := layoutState{Catalog: map[string]string{}, Tenants: map[string]map[string]string{}}
	for k, v := range st.Catalog {
		if !strings.HasPrefix(k, pHint) && k != kLayout {
			v = ""
		}
		out.Catalog[k] = v
	}
	for name, kv := range st.Tenants {
		out.Tenants[name] = map[string]string{}
		for k := range kv {
			out.Tenants[name][k] = ""
		}
	}
	return out
}

func countTenants(old map[string]string) int {
	n := 0
	for k := range old {
		if strings.HasPrefix(k, pTenant) {
			n++
		}
	}
	return n
}

// A single data file is moved: every record in one place with its value,
// the job queue replaced by hints, the old file kept as it was (after the
// conversion of its JSON records, whose copy keeps the file as it was
// then), a log that says where; a second run does nothing.
func TestMoveToTenantFiles(t *testing.T) {
	for _, fx := range layoutFixtures {
		t.Run(fx.name, func(t *testing.T) {
			path, orig := copyFixture(t, fx.name)
			var logs bytes.Buffer
			n, err := moveToTenantFiles(path, StoreTarget(path), slog.New(slog.NewTextHandler(&logs, nil)))
			require.NoError(t, err)

			backup := path + LayoutBackupSuffix
			kept, err := os.ReadFile(backup)
			require.NoError(t, err, "the old file is kept")
			// Its records (JSON or CBOR) are converted before the move: the
			// file as it was is kept too.
			before, err := os.ReadFile(path + BackupSuffix)
			require.NoError(t, err, "the file as it was is kept too")
			assert.Equal(t, orig, before)
			old := dumpFile(t, backup)
			for k, v := range old {
				require.False(t, len(v) > 0 && v[0] == '{' && func() bool { kind, _, _ := recordKind(k); return kind != "" }(), "%s is still JSON", k)
			}
			assert.Equal(t, countTenants(old), n)
			st := readLayout(t, path)
			checkLayout(t, fx.name, old, st)
			assert.Len(t, st.Tenants, n)
			assert.NoFileExists(t, path+".tmp")
			if !fx.json {
				assert.Equal(t, "00001795172406000000|1", st.Catalog["hint:default"], "the earliest job, pending events")
			}
			assert.Contains(t, logs.String(), "moving the data file to a file per tenant")
			assert.Contains(t, logs.String(), "data file moved to a file per tenant")
			assert.Contains(t, logs.String(), "kept="+backup)
			assert.Contains(t, logs.String(), "kept="+path+BackupSuffix)

			cat, err := os.ReadFile(path)
			require.NoError(t, err)
			n, err = moveToTenantFiles(path, StoreTarget(path), nil)
			require.NoError(t, err)
			assert.Zero(t, n, "a catalog is not moved again")
			again, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, cat, again)
			assert.Equal(t, st, readLayout(t, path))
			keptAgain, err := os.ReadFile(backup)
			require.NoError(t, err)
			assert.Equal(t, kept, keptAgain)
		})
	}
}

// A move cut at any step (each write transaction of a tenant file or of the
// catalog, each tenant, the rename of the old file, each batch converting
// JSON records) completes at the next run with the same result as a move
// never cut, and the files it left half written are gone.
func TestMoveToTenantFilesCutResumes(t *testing.T) {
	defer func(b, s int) { layoutBatch, convertBatch = b, s }(layoutBatch, convertBatch)
	layoutBatch, convertBatch = 3, 4
	for _, fx := range layoutFixtures {
		t.Run(fx.name, func(t *testing.T) {
			path, _ := copyFixture(t, fx.name)
			steps, batches := 0, 0
			layoutCut = func(string) error { steps++; return nil }
			convertCut = func(int) error { batches++; return nil }
			_, err := moveToTenantFiles(path, StoreTarget(path), nil)
			layoutCut, convertCut = nil, nil
			require.NoError(t, err)
			want := readLayout(t, path)
			wantOld := dumpFile(t, path+LayoutBackupSuffix)
			require.Greater(t, steps, 10)
			require.Greater(t, batches, 2)

			cut := func(t *testing.T, path string) {
				t.Helper()
				_, err := moveToTenantFiles(path, StoreTarget(path), nil)
				layoutCut, convertCut = nil, nil
				require.ErrorIs(t, err, errCut)
				n, err := moveToTenantFiles(path, StoreTarget(path), nil)
				require.NoError(t, err)
				assert.Equal(t, countTenants(wantOld), n)
				got, old := readLayout(t, path), dumpFile(t, path+LayoutBackupSuffix)
				checkLayout(t, fx.name, old, got)
				assert.NoFileExists(t, path+".tmp")
				// Converting records encodes maps in no set order: the same
				// keys, hints and kept file's keys.
				assert.Equal(t, keysOf(want), keysOf(got))
				assert.ElementsMatch(t, slices.Collect(maps.Keys(wantOld)), slices.Collect(maps.Keys(old)))
			}
			for i := 1; i <= steps; i++ {
				t.Run(fmt.Sprintf("step-%d", i), func(t *testing.T) {
					path, _ := copyFixture(t, fx.name)
					seen := 0
					layoutCut = func(string) error {
						if seen++; seen == i {
							return errCut
						}
						return nil
					}
					cut(t, path)
				})
			}
			for i := 1; i < batches; i++ {
				t.Run(fmt.Sprintf("json-batch-%d", i), func(t *testing.T) {
					path, orig := copyFixture(t, fx.name)
					convertCut = func(n int) error {
						if n == i {
							return errCut
						}
						return nil
					}
					cut(t, path)
					before, err := os.ReadFile(path + BackupSuffix)
					require.NoError(t, err)
					assert.Equal(t, orig, before, "the copy taken before the first batch")
				})
			}
		})
	}
}

// Nothing to do: no file, an empty one, a catalog, ":memory:". Refused,
// naming what is in the way: a data file beside tenant files it did not
// write, a path that is not a catalog beside a kept old file.
func TestMoveToTenantFilesNothingToDo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "paysandbox.db")
	for _, p := range []string{":memory:", path} {
		n, err := moveToTenantFiles(p, StoreTarget(p), nil)
		require.NoError(t, err)
		assert.Zero(t, n)
	}
	assert.NoFileExists(t, path)
	assert.NoDirExists(t, tenantsDirOf(path))

	require.NoError(t, os.WriteFile(path, nil, 0o600))
	n, err := moveToTenantFiles(path, StoreTarget(path), nil)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.NoFileExists(t, path+LayoutBackupSuffix)

	db, err := OpenFile(path)
	require.NoError(t, err)
	require.NoError(t, setAll(db, [][2]string{{kLayout, layoutValue}, {"tenant:a", "x"}}))
	require.NoError(t, db.Close())
	n, err = moveToTenantFiles(path, StoreTarget(path), nil)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.NoFileExists(t, path+LayoutBackupSuffix)

	other := filepath.Join(dir, "other.db")
	db, err = OpenFile(other)
	require.NoError(t, err)
	require.NoError(t, setAll(db, [][2]string{{"tenant:a", "x"}}))
	require.NoError(t, db.Close())
	require.NoError(t, os.MkdirAll(tenantsDirOf(other), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tenantsDirOf(other), "x.db"), nil, 0o600))
	_, err = moveToTenantFiles(other, StoreTarget(other), nil)
	require.Error(t, err, "tenant files of something else are not mixed in")
	assert.Contains(t, err.Error(), tenantsDirOf(other))
	require.NoError(t, os.WriteFile(other+LayoutBackupSuffix, nil, 0o600))
	_, err = moveToTenantFiles(other, StoreTarget(other), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), other+LayoutBackupSuffix)
	assert.Equal(t, map[string]string{"tenant:a": "x"}, dumpFile(t, other), "left as it was")
}

// Keys of every shape: a tenant id that needs escaping, a tenant with no
// records (an empty file), records whose tenant record is gone (their own
// file), keys this build does not know (the catalog), a job queue entry
// (a hint).
func TestMoveToTenantFilesKeyShapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	due := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	db, err := OpenFile(path)
	require.NoError(t, err)
	require.NoError(t, setAll(db, [][2]string{
		{"tenant:a:b", "ta"}, {"tenant:c", "tc"}, {"apikey:k", "a:b"},
		{"t:a%3Ab:pay:1", "p1"}, {"t:a%3Ab:whp:1:2:3", ""},
		{kJobQ(due, "a:b", "j1"), "a:b"},
		{"t:gone:pay:9", "p9"},
		{"zz-unknown", "u"}, {"format", "cbor1"},
	}))
	require.NoError(t, db.Close())
	n, err := moveToTenantFiles(path, StoreTarget(path), nil)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	st := readLayout(t, path)
	assert.Equal(t, map[string]map[string]string{
		tenantFileName("a:b"):  {"t:a%3Ab:pay:1": "p1", "t:a%3Ab:whp:1:2:3": ""},
		tenantFileName("c"):    {},
		tenantFileName("gone"): {"t:gone:pay:9": "p9"},
	}, st.Tenants)
	assert.Equal(t, map[string]string{
		"tenant:a:b": "ta", "tenant:c": "tc", "apikey:k": "a:b", "zz-unknown": "u", "format": "cbor1",
		"hint:a%3Ab": stamp(due) + "|1", "hint:c": "-|0", kLayout: layoutValue,
	}, st.Catalog)
}
