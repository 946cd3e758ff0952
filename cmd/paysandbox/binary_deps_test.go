package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testOnlyModules are linked into the tests and the OpenAPI generator
// (go generate ./simulator/httpapi), never into the binary: the binary
// serves the documents generated at build time.
var testOnlyModules = []string{
	"github.com/getkin/kin-openapi",
	"github.com/santhosh-tekuri/jsonschema",
}

// TestBinaryDeps: the binary's packages (go list -deps) include none of
// testOnlyModules.
func TestBinaryDeps(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list the binary's packages")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	pkgs := strings.Fields(string(out))
	require.Contains(t, pkgs, "github.com/paysandbox/paysandbox/simulator/httpapi")
	for _, p := range pkgs {
		for _, m := range testOnlyModules {
			assert.False(t, p == m || strings.HasPrefix(p, m+"/"), "the binary links %s (of %s), which only tests and the OpenAPI generator may use", p, m)
		}
	}
}
