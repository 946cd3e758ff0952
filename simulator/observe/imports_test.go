package observe_test

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

// TestObserveImports: the seam imports the standard library and the kernel
// only, so that the service and the adapters can all reach it; net/http
// belongs to simulator/httpapi.
func TestObserveImports(t *testing.T) {
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
			case path == "github.com/paysandbox/paysandbox/simulator":
			case strings.Contains(first, "."):
				assert.Failf(t, "forbidden import", "%s imports %s: the seam imports the standard library and the kernel only", f, path)
			case path == "net/http" || strings.HasPrefix(path, "net/http/"):
				assert.Failf(t, "forbidden import", "%s imports %s: HTTP belongs to simulator/httpapi", f, path)
			}
		}
	}
	assert.GreaterOrEqual(t, checked, 5, "the package's files were found")
}
