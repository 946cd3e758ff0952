package paysandboxtest

import (
	"encoding/json"
	"net/http"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sandbox names the release of this module the test binary was built
// with: a merchant's, which requires it, gets that version; a build from a
// directory says dev.
func TestModuleVersion(t *testing.T) {
	dep := func(path, version string, replace *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: version, Replace: replace}
	}
	for _, tt := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build information", nil, "dev"},
		{"this repository's own tests", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, "dev"},
		{"a merchant's module requiring a release", &debug.BuildInfo{Main: debug.Module{Path: "example.com/shop", Version: "(devel)"},
			Deps: []*debug.Module{dep("github.com/labstack/echo/v4", "v4.13.4", nil), dep(modulePath, "v0.1.0", nil)}}, "v0.1.0"},
		{"a pseudo-version", &debug.BuildInfo{Main: debug.Module{Path: "example.com/shop"},
			Deps: []*debug.Module{dep(modulePath, "v0.1.1-0.20261129081500-a3d3d22de46e", nil)}}, "v0.1.1-0.20261129081500-a3d3d22de46e"},
		{"replaced by a directory", &debug.BuildInfo{Main: debug.Module{Path: "example.com/shop"},
			Deps: []*debug.Module{dep(modulePath, "v0.0.0", dep("../paysandbox", "", nil))}}, "dev"},
		{"replaced by another release", &debug.BuildInfo{Main: debug.Module{Path: "example.com/shop"},
			Deps: []*debug.Module{dep(modulePath, "v0.1.0", dep(modulePath, "v0.1.2", nil))}}, "v0.1.2"},
		{"not linked", &debug.BuildInfo{Main: debug.Module{Path: "example.com/shop"}}, "dev"},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, moduleVersion(tt.info)) })
	}
}

// A sandbox started in a merchant's test binary, which requires a release
// of this module, names that release on /healthz.
func TestSandboxReportsItsVersion(t *testing.T) {
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Path: "example.com/shop"}, Deps: []*debug.Module{{Path: modulePath, Version: "v0.1.0"}}}, true
	}
	t.Cleanup(func() { readBuildInfo = debug.ReadBuildInfo })
	s := NewServer(t)
	res, err := http.Get(s.URL + "/healthz")
	require.NoError(t, err)
	defer res.Body.Close()
	var h struct{ Version string }
	require.NoError(t, json.NewDecoder(res.Body).Decode(&h))
	assert.Equal(t, "v0.1.0", h.Version)
}
