package simulator_test

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

// TestDomainImports: the domain imports the standard library (net/http
// excepted) and uuid only; echo, buntdb, viper, yaml and HTTP belong to the
// adapters (STYLE.md, "dependencies point inward").
func TestDomainImports(t *testing.T) {
	allowedModules := map[string]bool{"github.com/google/uuid": true}
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
			stdlib := !strings.Contains(first, ".")
			switch {
			case path == "net/http" || strings.HasPrefix(path, "net/http/"):
				assert.Failf(t, "forbidden import", "%s imports %s: HTTP belongs to simulator/httpapi", f, path)
			case stdlib:
			case allowedModules[path]:
			default:
				assert.Failf(t, "forbidden import", "%s imports %s: the domain may import the standard library and uuid only", f, path)
			}
		}
	}
	assert.Greater(t, checked, 10, "the package's files were found")
}
