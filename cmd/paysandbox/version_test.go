package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestModuleVersion: the version of a binary the go command built without
// a stamp is the main module's version it recorded, or dev.
func TestModuleVersion(t *testing.T) {
	tests := []struct{ name, main, want string }{
		{"go install @v0.1.0", "v0.1.0", "v0.1.0"},
		{"go install @v0.2.0-rc.1", "v0.2.0-rc.1", "v0.2.0-rc.1"},
		{"go install @main after v0.1.0", "v0.1.1-0.20261129064743-4bf8478abcde", "v0.1.1-0.20261129064743-4bf8478abcde"},
		{"go build in a changed checkout of v0.1.0", "v0.1.0+dirty", "v0.1.0+dirty"},
		{"go build without VCS data", "(devel)", "dev"},
		{"no module information", "", "dev"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, moduleVersion(tc.main))
		})
	}
}

// TestResolveBuild: the release build's stamp wins; without one, the
// commit and date are the VCS data `go build` records and the version is
// the main module's.
func TestResolveBuild(t *testing.T) {
	rev := "4bf8478abcdef0123456789abcdef0123456789a"
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
		{Key: "vcs.time", Value: "2026-11-29T06:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	tests := []struct {
		name                  string
		version, commit, date string
		info                  *debug.BuildInfo
		want                  buildInfo
	}{
		{name: "release build (-ldflags -X)", version: "v0.1.0", commit: rev, date: "2026-11-29T05:00:00Z",
			info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want: buildInfo{Version: "v0.1.0", Commit: rev, Date: "2026-11-29T05:00:00Z"}},
		{name: "the stamp wins over the module's version", version: "v0.2.0", commit: "abc1234", date: "2026-12-01T00:00:00Z",
			info: &debug.BuildInfo{Main: debug.Module{Version: "v0.1.0"}, Settings: vcs},
			want: buildInfo{Version: "v0.2.0", Commit: "abc1234", Date: "2026-12-01T00:00:00Z", Modified: true}},
		{name: "go install @v0.1.0", version: "dev", commit: "unknown", date: "unknown",
			info: &debug.BuildInfo{Main: debug.Module{Path: "github.com/paysandbox/paysandbox", Version: "v0.1.0"}},
			want: buildInfo{Version: "v0.1.0", Commit: "unknown", Date: "unknown"}},
		{name: "go build in a checkout", version: "dev", commit: "unknown", date: "unknown",
			info: &debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20261129060000-4bf8478abcde+dirty"}, Settings: vcs},
			want: buildInfo{Version: "v0.1.1-0.20261129060000-4bf8478abcde+dirty", Commit: rev, Date: "2026-11-29T06:00:00Z", Modified: true}},
		{name: "go build without VCS data", version: "dev", commit: "unknown", date: "unknown",
			info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want: buildInfo{Version: "dev", Commit: "unknown", Date: "unknown"}},
		{name: "no build information", version: "dev", commit: "unknown", date: "unknown",
			want: buildInfo{Version: "dev", Commit: "unknown", Date: "unknown"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := resolveBuild(tc.version, tc.commit, tc.date, tc.info)
			tc.want.Go, tc.want.Platform = runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestVersionEverywhere: `version`, the serve banner, /healthz, the OpenAPI
// documents served (info.x-paysandbox-version) and `openapi` show one
// version: the stamp of a binary built with the Dockerfile's -ldflags (the
// release build's; TestReleaseBuildFlags keeps .goreleaser.yaml's the
// same), and the module version the go command records in a build from a
// checkout (dev where the tree has no VCS data).
func TestVersionEverywhere(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	const stamp, commit, date = "v9.8.7", "0123456789abcdef0123456789abcdef01234567", "2026-11-29T06:00:00Z"
	builds := []struct {
		name string
		args []string
		want buildInfo // Version "" is whatever `version` reports
	}{
		{name: "release build", args: []string{"-ldflags", dockerfileLdflags(t, map[string]string{"VERSION": stamp, "COMMIT": commit, "BUILD_DATE": date})},
			want: buildInfo{Version: stamp, Commit: commit, Date: date}},
		{name: "go build", args: []string{"-buildvcs=auto"}},
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "paysandbox")
			out, err := exec.Command(gobin, append(append([]string{"build"}, b.args...), "-o", bin, ".")...).CombinedOutput()
			require.NoError(t, err, "go build: %s", out)
			run := func(args ...string) string {
				out, err := exec.Command(bin, args...).Output()
				require.NoError(t, err, "paysandbox %s", strings.Join(args, " "))
				return string(out)
			}

			var got buildInfo
			require.NoError(t, json.Unmarshal([]byte(run("version", "-o", "json")), &got))
			v := got.Version
			if b.want.Version != "" {
				assert.Equal(t, b.want.Version, got.Version)
				assert.Equal(t, b.want.Commit, got.Commit)
				assert.Equal(t, b.want.Date, got.Date)
			}
			t.Logf("version %s (commit %s, built %s)", got.Version, got.Commit, got.Date)
			assert.Equal(t, "paysandbox "+v+" (commit "+got.Commit+", built "+got.Date+", "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+")\n", run("version"))
			assert.Equal(t, v, openAPIBuild(t, "json", []byte(run("openapi"))), "paysandbox openapi")
			assert.Equal(t, v, openAPIBuild(t, "yaml", []byte(run("openapi", "--format", "yaml"))), "paysandbox openapi --format yaml")

			line, base := serveBanner(t, bin)
			assert.True(t, strings.HasPrefix(line, "paysandbox "+v+" listening on http://127.0.0.1:"), "banner: %s", line)
			var h map[string]string
			require.NoError(t, json.Unmarshal(httpGet(t, base+"/healthz"), &h))
			assert.Equal(t, map[string]string{"status": "ok", "version": v}, h, "/healthz")
			assert.Equal(t, v, openAPIBuild(t, "json", httpGet(t, base+"/_sandbox/openapi.json")), "/_sandbox/openapi.json")
			assert.Equal(t, v, openAPIBuild(t, "yaml", httpGet(t, base+"/_sandbox/openapi.yaml?version=2.1")), "/_sandbox/openapi.yaml")
		})
	}
}

// serveBanner starts `bin serve` on a free loopback port with the store in
// memory and returns its banner's first line and base URL; the server is
// killed when the test ends.
func serveBanner(t *testing.T, bin string) (line, base string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", ":memory:", "--log-level", "error")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	banner := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			if strings.Contains(s.Text(), " listening on ") {
				banner <- s.Text()
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case line = <-banner:
	case <-time.After(time.Minute):
		t.Fatal("serve printed no banner")
	}
	base = regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	require.NotEmpty(t, base, line)
	return line, base
}

// httpGet is the body of a GET of url, which must answer 200.
func httpGet(t *testing.T, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", url, b)
	return b
}

// dockerfileLdflags is the -ldflags of the Dockerfile's go build with its
// build args (${NAME}) replaced by args.
func dockerfileLdflags(t *testing.T, args map[string]string) string {
	t.Helper()
	b, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	m := regexp.MustCompile(`-ldflags "([^"]+)"`).FindAllSubmatch(b, -1)
	require.Len(t, m, 1, "the Dockerfile has one go build with -ldflags")
	return os.Expand(string(m[0][1]), func(name string) string {
		v, ok := args[name]
		require.True(t, ok, "the Dockerfile's -ldflags use ${%s}, which the test does not set", name)
		return v
	})
}

// openAPIBuild is info.x-paysandbox-version of an OpenAPI document.
func openAPIBuild(t *testing.T, format string, doc []byte) string {
	t.Helper()
	var d struct {
		Info struct {
			Build string `json:"x-paysandbox-version" yaml:"x-paysandbox-version"`
		} `json:"info" yaml:"info"`
	}
	if format == "yaml" {
		require.NoError(t, yaml.Unmarshal(doc, &d))
	} else {
		require.NoError(t, json.Unmarshal(doc, &d))
	}
	return d.Info.Build
}
