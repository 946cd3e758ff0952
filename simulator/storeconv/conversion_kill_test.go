//go:build unix

package storeconv_test

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

// A conversion killed (SIGKILL: no deferred close) at any step that reaches
// the disk completes at the next run, and the store then reads what it read
// before: a store of the tenant-file layout whose records are CBOR (the
// single-file fixture moved with CBOR taken as current), so that every
// file is written, batch by batch.
func TestConvertKilled(t *testing.T) {
	if path := os.Getenv("PAYSANDBOX_TEST_CONVERT_PATH"); path != "" {
		killAt, _ := strconv.Atoi(os.Getenv("PAYSANDBOX_TEST_CONVERT_KILL"))
		storeconv.CutAt(killAt, 7, func() error { return syscall.Kill(os.Getpid(), syscall.SIGKILL) })
		_, err := storeconv.Convert(path, store.ConversionTarget(path), nil)
		fmt.Println("not killed:", err)
		os.Exit(3)
	}
	base := singleFileFixture(t)
	_, err := storeconv.Convert(base, cborCurrent{store.ConversionTarget(base)}, nil)
	require.NoError(t, err)
	for i := 1; ; i++ {
		path := copyStore(t, base)
		devLayout(t, path, "cbor1")
		editFile(t, path, [2]string{"layout", "tenant-files/1"})
		cmd := exec.Command(os.Args[0], "-test.run=^TestConvertKilled$")
		cmd.Env = append(os.Environ(), "PAYSANDBOX_TEST_CONVERT_PATH="+path, "PAYSANDBOX_TEST_CONVERT_KILL="+strconv.Itoa(i))
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%s", out)
		if ee.ExitCode() == 3 {
			require.Greater(t, i, 10, "the child was killed at too few steps: %s", out)
			t.Logf("killed at each of %d steps", i-1)
			return
		}
		require.Equal(t, -1, ee.ExitCode(), "killed: %s", out)
		_, err = storeconv.Convert(path, store.ConversionTarget(path), nil)
		require.NoError(t, err, "step %d", i)
		db := openStore(t, path, nil)
		checkSingleFileReads(t, db)
		require.NoError(t, db.Close())
	}
}

// cborCurrent is the store's target with the CBOR records of the layouts
// before format 1 taken as current: a conversion with it leaves them as
// they are.
type cborCurrent struct{ storeconv.Target }

func (c cborCurrent) Current(key, raw string) bool {
	return len(raw) > 0 && raw[0] == 0x01 || c.Target.Current(key, raw)
}

// copyStore copies the store at path (catalog and tenant files) to a new
// directory; it answers the copy's path.
func copyStore(t *testing.T, path string) string {
	t.Helper()
	dst := t.TempDir() + "/paysandbox.db"
	require.NoError(t, os.CopyFS(store.TenantsDir(dst), os.DirFS(store.TenantsDir(path))))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, b, 0o600))
	return dst
}
