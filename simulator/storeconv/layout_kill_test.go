//go:build unix

package storeconv

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A move killed (SIGKILL: no deferred close, files left as they were) at
// any step that reaches the disk, or in the conversion of JSON records,
// completes at the next run with every key in one place. The test binary
// runs the move in a child process that kills itself at the chosen step.
func TestMoveToTenantFilesKilled(t *testing.T) {
	if path := os.Getenv("PAYSANDBOX_TEST_LAYOUT_PATH"); path != "" {
		killAt, _ := strconv.Atoi(os.Getenv("PAYSANDBOX_TEST_LAYOUT_KILL"))
		kill := func() error { return syscall.Kill(os.Getpid(), syscall.SIGKILL) }
		layoutBatch, convertBatch = 10, 4
		seen := 0
		if os.Getenv("PAYSANDBOX_TEST_LAYOUT_JSON") != "" {
			convertCut = func(n int) error {
				if n == killAt {
					return kill()
				}
				return nil
			}
		} else {
			layoutCut = func(string) error {
				if seen++; seen == killAt {
					return kill()
				}
				return nil
			}
		}
		_, err := moveToTenantFiles(path, StoreTarget(path), nil)
		fmt.Println("not killed:", err)
		os.Exit(3)
	}
	for _, fx := range layoutFixtures {
		t.Run(fx.name, func(t *testing.T) {
			for i := 1; ; i++ {
				path, _ := copyFixture(t, fx.name)
				cmd := exec.Command(os.Args[0], "-test.run=^TestMoveToTenantFilesKilled$")
				cmd.Env = append(os.Environ(), "PAYSANDBOX_TEST_LAYOUT_PATH="+path, "PAYSANDBOX_TEST_LAYOUT_KILL="+strconv.Itoa(i))
				if fx.json {
					cmd.Env = append(cmd.Env, "PAYSANDBOX_TEST_LAYOUT_JSON=1")
				}
				out, err := cmd.CombinedOutput()
				var ee *exec.ExitError
				require.ErrorAs(t, err, &ee, "%s", out)
				if ee.ExitCode() == 3 {
					require.Greater(t, i, 1, "the child was never killed: %s", out)
					t.Logf("killed at each of %d steps", i-1)
					break // the move ended before step i: every step was tried
				}
				require.Equal(t, -1, ee.ExitCode(), "killed: %s", out)
				n, err := moveToTenantFiles(path, StoreTarget(path), nil)
				require.NoError(t, err, "step %d", i)
				old := dumpFile(t, path+LayoutBackupSuffix)
				assert.Equal(t, countTenants(old), n)
				checkLayout(t, fx.name, old, readLayout(t, path))
				assert.NoFileExists(t, path+".tmp")
			}
		})
	}
}
