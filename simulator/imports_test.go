package simulator_test

import (
	"go/ast"
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

// kernelForbidden are standard packages the kernel must not import: it runs
// no goroutine of its own, guards nothing with a lock, logs nothing and does
// no I/O (the service and the adapters do).
var kernelForbidden = map[string]string{
	"sync":        "locks and once-only state belong to the service or the adapters",
	"sync/atomic": "counters shared between goroutines belong to the service or the adapters",
	"log/slog":    "logging belongs to the service",
	"os":          "files and the environment belong to the adapters",
}

// TestDomainImports: the domain imports the standard library (net/http,
// sync, sync/atomic, log/slog and os excepted) and uuid only; echo, buntdb,
// viper, yaml and HTTP belong to the adapters (STYLE.md, "dependencies point
// inward"). Its non-test files start no goroutine. The test-card catalogue
// (simulator/cards) and the tenant snapshot format (simulator/snapshot)
// follow the same rule, and may import the kernel (the snapshot format also
// the observers' records it carries, simulator/observe).
func TestDomainImports(t *testing.T) {
	tests := []struct {
		dir      string
		allowed  []string // modules besides the standard library
		minFiles int
	}{
		{".", []string{"github.com/google/uuid"}, 10},
		{"cards", []string{"github.com/google/uuid", "github.com/paysandbox/paysandbox/simulator"}, 2},
		{"snapshot", []string{"github.com/paysandbox/paysandbox/simulator", "github.com/paysandbox/paysandbox/simulator/observe"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			checkImports(t, tt.dir, tt.allowed, tt.minFiles)
		})
	}
}

func checkImports(t *testing.T, dir string, allowed []string, minFiles int) {
	allowedModules := map[string]bool{}
	for _, m := range allowed {
		allowedModules[m] = true
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		require.NoError(t, err)
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				assert.Failf(t, "goroutine in the kernel", "%s: a go statement: goroutines belong to the service", fset.Position(g.Pos()))
			}
			return true
		})
		for _, imp := range file.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			first, _, _ := strings.Cut(path, "/")
			stdlib := !strings.Contains(first, ".")
			switch {
			case path == "net/http" || strings.HasPrefix(path, "net/http/"):
				assert.Failf(t, "forbidden import", "%s imports %s: HTTP belongs to simulator/httpapi", f, path)
			case kernelForbidden[path] != "":
				assert.Failf(t, "forbidden import", "%s imports %s: %s", f, path, kernelForbidden[path])
			case stdlib:
			case allowedModules[path]:
			default:
				assert.Failf(t, "forbidden import", "%s imports %s: it may import the standard library and %s only", f, path, strings.Join(allowed, ", "))
			}
		}
	}
	assert.GreaterOrEqual(t, checked, minFiles, "the package's files were found")
}
