package paysandbox_test

import (
	"errors"
	"go/build"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator/service"
)

const module = "github.com/paysandbox/paysandbox"

// storeImporters are the packages, besides the composition roots named
// app, that may import the store: the roots that open it and hand it to
// the service (cmd/paysandbox; bench, which builds the same server and
// seeds it through the store's CloneCheckouts), and the store itself. Adapters (httpapi,
// the dashboard, the webhook dispatcher, processors) ask the service.
var storeImporters = []string{
	module + "/cmd/paysandbox",
	module + "/bench",
	module + "/simulator/store",
}

// isRoot reports whether package importPath may import the store: one of
// storeImporters, or a composition root in a package of its own named app.
func isRoot(importPath string) bool {
	return slices.Contains(storeImporters, importPath) || path.Base(importPath) == "app"
}

// TestOnlyRootsImportTheStore: no package but a composition root (and the
// store) imports simulator/store in its non-test files, so the store is
// reached through the service's methods only (STYLE.md, "dependencies
// point inward"). Test files may open a store of their own.
func TestOnlyRootsImportTheStore(t *testing.T) {
	const st = module + "/simulator/store"
	pkgs := modulePackages(t)
	require.Contains(t, pkgs, module+"/simulator/service", "the module's packages were found")
	importers := 0
	for importPath, imports := range pkgs {
		for _, imp := range imports {
			if imp != st && !strings.HasPrefix(imp, st+"/") {
				continue
			}
			importers++
			assert.Truef(t, isRoot(importPath), "%s imports %s: an adapter asks the service, which holds the store; only a composition root (storeImporters, or a package named app) opens it", importPath, imp)
		}
	}
	assert.Positive(t, importers, "a root imports the store (the check saw the imports)")
}

// TestInnerImports: the packages below the service import what their floor
// allows and nothing else (STYLE.md, "dependencies point inward"): the
// module packages listed, no other module, no HTTP (which belongs to
// simulator/httpapi). The kernel's own rules (no locks, goroutines or I/O)
// are simulator/imports_test.go's.
func TestInnerImports(t *testing.T) {
	pkgs := modulePackages(t)
	rules := []struct {
		pkg     string
		allowed []string // module packages it may import
		why     string
	}{
		{module + "/simulator/observe", []string{module + "/simulator"},
			"the seam imports the standard library and the kernel only, so that the service and the adapters can all reach it"},
		{module + "/simulator/storeconv", []string{module + "/simulator", module + "/simulator/cards", module + "/fixtures",
			"github.com/tidwall/buntdb", "github.com/fxamacker/cbor/v2"},
			"the conversions of older files read them with their own frozen types and write through the store's Target: never the store itself, which imports them"},
	}
	for _, r := range rules {
		imports, ok := pkgs[r.pkg]
		require.True(t, ok, "%s is a package of the module", r.pkg)
		require.NotEmpty(t, imports, "%s's imports were read", r.pkg)
		for _, imp := range imports {
			first, _, _ := strings.Cut(imp, "/")
			switch {
			case slices.Contains(r.allowed, imp):
			case strings.Contains(first, "."):
				assert.Failf(t, "forbidden import", "%s imports %s: %s", r.pkg, imp, r.why)
			case imp == "net/http" || strings.HasPrefix(imp, "net/http/"):
				assert.Failf(t, "forbidden import", "%s imports %s: HTTP belongs to simulator/httpapi", r.pkg, imp)
			}
		}
	}
}

// TestServicePortsUnexported: the service's ports (the store, the clock,
// the processor, ...) and its settings are unexported fields, so no adapter
// reaches a port around the service's methods.
func TestServicePortsUnexported(t *testing.T) {
	typ := reflect.TypeFor[service.Service]()
	require.Positive(t, typ.NumField())
	for i := range typ.NumField() {
		f := typ.Field(i)
		assert.Falsef(t, f.IsExported(), "service.Service.%s is exported: hand adapters what they need through a method", f.Name)
	}
}

// modulePackages maps each package of the module (as the default build
// context sees it: tools and testdata left out) to the imports of its
// non-test files.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(dir, build.ImportComment)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		importPath := module
		if dir != "." {
			importPath += "/" + filepath.ToSlash(dir)
		}
		out[importPath] = pkg.Imports
		return nil
	})
	require.NoError(t, err)
	return out
}
