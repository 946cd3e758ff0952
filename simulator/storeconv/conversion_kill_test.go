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
// before: a store of today's layout whose every record is taken as not
// current (cborStale), so that every file is written, batch by batch.
func TestConvertKilled(t *testing.T) {
	if path := os.Getenv("PAYSANDBOX_TEST_CONVERT_PATH"); path != "" {
		killAt, _ := strconv.Atoi(os.Getenv("PAYSANDBOX_TEST_CONVERT_KILL"))
		storeconv.CutAt(killAt, 7, func() error { return syscall.Kill(os.Getpid(), syscall.SIGKILL) })
		_, err := storeconv.Convert(path, cborStale{Target: store.ConversionTarget(path), got: map[string]any{}}, nil)
		fmt.Println("not killed:", err)
		os.Exit(3)
	}
	base := singleFileFixture(t)
	require.NoError(t, openStore(t, base, nil).Close())
	for i := 1; ; i++ {
		path := copyStore(t, base)
		editFile(t, path, [2]string{storeconv.KeyFormat, "cbor1"}, [2]string{"layout", "tenant-files/1"})
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
		_, err = storeconv.Convert(path, cborStale{Target: store.ConversionTarget(path), got: map[string]any{}}, nil)
		require.NoError(t, err, "step %d", i)
		db := openStore(t, path, nil)
		checkSingleFileReads(t, db)
		require.NoError(t, db.Close())
	}
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
