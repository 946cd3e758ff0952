package paysandboxtest_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeps: the package links nothing outside the standard library that
// the binary (cmd/paysandbox) does not link: a merchant's tests that import
// it build no module the product does not, testify included.
func TestDeps(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list the packages' dependencies")
	}
	deps := func(pkg string) map[string]bool {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).CombinedOutput()
		require.NoError(t, err, "%s", out)
		set := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			set[p] = true
		}
		return set
	}
	const module = "github.com/paysandbox/paysandbox"
	binary, pkg := deps(module+"/cmd/paysandbox"), deps(module+"/paysandboxtest")
	require.True(t, pkg[module+"/app"], "the package is built on the composition root")
	for p := range pkg {
		assert.False(t, strings.HasPrefix(p, "github.com/stretchr/testify"), "the package links %s", p)
		if p != module+"/paysandboxtest" {
			assert.True(t, binary[p], "the package links %s, which the binary does not", p)
		}
	}
}
