package paysandboxtest_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutsideModule: a merchant's module outside this repository uses the
// package. examples/outside (a module of its own: go.mod requiring
// github.com/paysandbox/paysandbox, replaced by this repository, and a test
// file) is copied into a temporary directory, its replace pointed at the
// repository, and its tests run there with the module cache only
// (GOPROXY=off). Its go.mod and go.sum must be what the go command makes of
// them: a merchant's `go get` writes the same.
func TestOutsideModule(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build a module outside the repository")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	src := filepath.Join(root, "examples", "outside")
	dir := t.TempDir()
	files, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		require.NoError(t, err)
		if f.Name() == "go.mod" {
			require.Contains(t, string(b), "=> ../..", "examples/outside/go.mod replaces the module by this repository")
			b = []byte(strings.Replace(string(b), "=> ../..", "=> "+root, 1))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, f.Name()), b, 0o644))
	}
	wantMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	wantSum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	require.NoError(t, err)

	args := []string{"test", "-count=1"}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command(goTool, append(args, "./...")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test in a module outside the repository:\n%s", out)
	assert.Contains(t, string(out), "ok  \texample.com/merchant")

	gotMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	gotSum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	require.NoError(t, err)
	fix := "the product's dependencies changed: run `go mod tidy` in examples/outside (GOPROXY=off works when the module cache has them)"
	assert.Equal(t, string(wantMod), string(gotMod), "examples/outside/go.mod: %s", fix)
	assert.True(t, bytes.Equal(wantSum, gotSum), "examples/outside/go.sum: %s", fix)
	assert.NotContains(t, string(gotMod), "testify", "a merchant's module inherits no test framework")
}
