package service_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServiceImports: the use cases import the standard library, the
// kernel (simulator), the test-card catalogue (simulator/cards), the
// tenant snapshot format (simulator/snapshot) and the observers' seam
// (simulator/observe), all of which import the kernel only, and nothing
// else. Adapters (simulator/store, simulator/httpapi,
// webhooks, dashboard, processors, scenarios, cmd) and their libraries are
// reached through the ports the kernel declares, never imported (STYLE.md,
// "dependencies point inward").
func TestServiceImports(t *testing.T) {
	const module = "github.com/paysandbox/paysandbox/"
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		file, err := parser.ParseFile(fset, f, src, parser.ImportsOnly)
		require.NoError(t, err)
		checked++
		for _, imp := range file.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			first, _, _ := strings.Cut(path, "/")
			switch {
			case path == module+"simulator", path == module+"simulator/cards", path == module+"simulator/snapshot", path == module+"simulator/observe":
			case strings.HasPrefix(path, module):
				assert.Failf(t, "forbidden import", "%s imports %s: the service reaches adapters through the kernel's ports", f, path)
			case strings.Contains(first, "."):
				assert.Failf(t, "forbidden import", "%s imports %s: the service may import the standard library, the kernel, simulator/cards, simulator/snapshot and simulator/observe only", f, path)
			case path == "net/http" || strings.HasPrefix(path, "net/http/"):
				assert.Failf(t, "forbidden import", "%s imports %s: HTTP belongs to simulator/httpapi", f, path)
			}
		}
	}
	assert.Greater(t, checked, 10, "the package's files were found")
}
