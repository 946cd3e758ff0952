package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/webhooks"
)

// The GitHub Action's scripts (action/start.sh and action/finish.sh, run by
// action.yml) are run here as a runner would run them: bash, inputs in
// INPUT_* variables, and files standing in for GITHUB_ENV, GITHUB_OUTPUT,
// GITHUB_PATH and GITHUB_STEP_SUMMARY; against the real binary.

// actionRun is one run of an action script.
type actionRun struct {
	Dir      string // RUNNER_TEMP and the GITHUB_* files
	Stdout   string // stdout and stderr, as a job's log shows them
	ExitCode int
}

func (r actionRun) file(name string) string { return filepath.Join(r.Dir, name) }

// vars reads a GITHUB_ENV or GITHUB_OUTPUT file (NAME=value lines).
func (r actionRun) vars(t *testing.T, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(r.file(name))
	require.NoError(t, err)
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// bashPath is bash on PATH; the test is skipped without it or with -short.
func bashPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH: the Action's scripts are bash")
	}
	return bash
}

// runAction runs action/SCRIPT in dir (a new one when "") with the given
// inputs and environment; the runner's files are created empty when
// missing. A script still running after two minutes is killed and fails
// the test: the scripts must end on their own.
func runAction(t *testing.T, script, dir string, env map[string]string) actionRun {
	t.Helper()
	bash := bashPath(t)
	if dir == "" {
		dir = t.TempDir()
	}
	runner := map[string]string{
		"GITHUB_ENV": "env", "GITHUB_OUTPUT": "output", "GITHUB_PATH": "path", "GITHUB_STEP_SUMMARY": "summary",
	}
	var environ []string
	for _, kv := range os.Environ() { // nothing of the test's own environment reaches the script
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "PAYSANDBOX_") || strings.HasPrefix(name, "GITHUB_") ||
			strings.HasPrefix(name, "RUNNER_") || strings.HasPrefix(name, "INPUT_") {
			continue
		}
		environ = append(environ, kv)
	}
	for name, file := range runner {
		p := filepath.Join(dir, file)
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		environ = append(environ, name+"="+p)
	}
	environ = append(environ, "RUNNER_TEMP="+dir)
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	scriptPath, err := filepath.Abs(filepath.Join(repoRoot, "action", script))
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, bash, scriptPath)
	cmd.Dir = dir
	cmd.Env = environ
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	require.NoError(t, ctx.Err(), "%s did not end:\n%s", script, out.String())
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return actionRun{Dir: dir, Stdout: out.String(), ExitCode: code}
}

// startAction runs start.sh and requires it to succeed; the server it
// starts is killed when the test ends, unless a finish stopped it.
func startAction(t *testing.T, dir string, env map[string]string) actionRun {
	t.Helper()
	r := runAction(t, "start.sh", dir, env)
	require.Equal(t, 0, r.ExitCode, r.Stdout)
	pid, err := strconv.Atoi(r.vars(t, "env")["PAYSANDBOX_ACTION_PID"])
	require.NoError(t, err, "start exports the server's pid for finish")
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return r
}

// processGone waits until pid has ended (gone, or a zombie nobody reaped)
// and reports whether it did within 20 s.
func processGone(pid int) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if f := strings.Fields(string(b)); len(f) > 2 && f[2] == "Z" {
				return true
			}
		}
	}
	return false
}

// refused waits until a GET of url cannot connect and reports whether
// that happened within 20 s.
func refused(url string) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		res, err := http.Get(url)
		if err != nil {
			return true
		}
		res.Body.Close()
	}
	return false
}

// freeLoopbackAddr is a 127.0.0.1 address nothing listens on.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// webhookReceiver records the bodies and primary signatures it is sent.
type webhookReceiver struct {
	*httptest.Server
	got chan [2]string
}

func newWebhookReceiver(t *testing.T) *webhookReceiver {
	r := &webhookReceiver{got: make(chan [2]string, 64)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.got <- [2]string{string(b), req.Header.Get("X-Signature-Primary")}
	}))
	t.Cleanup(r.Close)
	return r
}

// merchantGET sends a merchant API GET with the credentials start exported.
func merchantGET(t *testing.T, env map[string]string, path string) int {
	t.Helper()
	req, err := http.NewRequest("GET", env["PAYSANDBOX_URL"]+path, nil)
	require.NoError(t, err)
	req.Header.Set("X-API-KEY", env["PAYSANDBOX_API_KEY"])
	req.Header.Set("X-API-VERSION", "2.4")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// cliEnv is the environment of a later step of the job: the runner's with
// what start wrote to GITHUB_ENV.
func cliEnv(env map[string]string) []string {
	out := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// TestAction runs the Action's scripts against one build of the binary.
func TestAction(t *testing.T) {
	bashPath(t)
	_, bin := buildBinary(t)
	for _, tc := range []struct {
		name string
		run  func(*testing.T, string)
	}{
		{"start", testActionStart},
		{"finish", testActionFinish},
		{"finish after the server died", testActionFinishServerGone},
		{"start fails", testActionStartFails},
		{"start downloads a release", testActionStartDownload},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, bin) })
	}
}

// testActionStart: start runs the binary it is given on the addr input,
// creates a tenant with the ttl, webhook and scenarios inputs, and exports
// the URL, key and secret (masked first) to GITHUB_ENV and GITHUB_OUTPUT:
// a later step pays with them, the scenario file decides the payment, and
// the webhook it causes verifies with the exported secret.
func testActionStart(t *testing.T, bin string) {
	recv := newWebhookReceiver(t)
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yaml")
	require.NoError(t, os.WriteFile(rules, []byte("rules:\n  - name: decline-1313\n    when: { amount: 1313 }\n    authorize: { status: DECLINED }\n"), 0o644))
	addr := freeLoopbackAddr(t)

	r := startAction(t, dir, map[string]string{
		"INPUT_BINARY": bin, "INPUT_ADDR": addr, "INPUT_TTL": "1h", "INPUT_SCENARIOS": rules,
		"INPUT_WEBHOOK_URL": recv.URL + "/webhooks", "INPUT_WEBHOOK_VERSION": "2.3",
	})
	env := r.vars(t, "env")
	out := r.vars(t, "output")
	key, secret := env["PAYSANDBOX_API_KEY"], env["PAYSANDBOX_SIGNING_SECRET"]
	require.NotEmpty(t, key)
	require.NotEmpty(t, secret)
	assert.Equal(t, "http://"+addr, env["PAYSANDBOX_URL"])
	assert.NotEqual(t, "sandbox-api-key", key, "a tenant of the job's own, not the default one")
	assert.NotEmpty(t, env["PAYSANDBOX_TENANT_ID"])
	assert.Equal(t, map[string]string{
		"url": env["PAYSANDBOX_URL"], "api-key": key, "signing-secret": secret, "tenant-id": env["PAYSANDBOX_TENANT_ID"],
		"binary": bin, "log": env["PAYSANDBOX_ACTION_LOG"],
	}, out)
	assert.FileExists(t, env["PAYSANDBOX_ACTION_LOG"])
	b, err := os.ReadFile(r.file("path"))
	require.NoError(t, err)
	assert.Empty(t, string(b), "a binary given as input stays where it is: nothing is added to PATH")

	// Both secrets are masked before any line of the log shows them.
	for _, s := range []string{key, secret} {
		mask := "::add-mask::" + s
		require.Contains(t, r.Stdout, mask)
		assert.Equal(t, strings.Index(r.Stdout, s), strings.Index(r.Stdout, mask)+len("::add-mask::"), "the first %q in the log is its mask", s)
	}

	// A later step: the CLI and plain HTTP with the exported variables.
	pay := exec.Command(bin, "pay", "--amount", "1313", "--output", "json")
	pay.Env = cliEnv(env)
	payOut, err := pay.CombinedOutput()
	require.NoError(t, err, "%s", payOut)
	var p struct{ ID, Status string }
	require.NoError(t, json.Unmarshal(payOut, &p), "%s", payOut)
	assert.Equal(t, "DECLINED", p.Status, "the scenarios input's rule decides the tenant's payments")
	assert.Equal(t, 200, merchantGET(t, env, "/payments/"+p.ID))

	select {
	case got := <-recv.got:
		assert.NoError(t, webhooks.Verify(secret, []byte(got[0]), got[1]), "the webhook verifies with PAYSANDBOX_SIGNING_SECRET")
		assert.Contains(t, got[0], p.ID)
	case <-time.After(30 * time.Second):
		t.Fatal("no webhook reached the webhook-url input")
	}
}

// testActionFinish: finish appends the markdown report to the job summary,
// writes the JUnit file, writes the tenant's snapshot (without the key or
// the secret) only when job-status is failure, exits 1 when a kind
// fail-on names is present, and stops the server either way.
func testActionFinish(t *testing.T, bin string) {
	tests := []struct {
		name      string
		jobStatus string
		hint      bool // the suite raises a hint (a query parameter GET /payments does not know)
		failOn    string
		wantExit  int
		snapshot  bool
	}{
		{"passed job, clean report", "success", false, "hints,webhooks", 0, false},
		{"passed job, a hint fail-on names", "success", true, "hints", 1, false},
		{"passed job, a hint fail-on does not name", "success", true, "webhooks,migration", 0, false},
		{"failed job, no fail-on", "failure", true, "", 0, true},
		{"failed job, a hint fail-on names", "failure", true, "hints", 1, true},
		{"cancelled job", "cancelled", false, "", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			start := startAction(t, dir, map[string]string{"INPUT_BINARY": bin, "INPUT_ADDR": freeLoopbackAddr(t)})
			env := start.vars(t, "env")
			pid, err := strconv.Atoi(env["PAYSANDBOX_ACTION_PID"])
			require.NoError(t, err)
			require.Equal(t, 200, merchantGET(t, env, "/payments"))
			if tc.hint {
				require.Equal(t, 200, merchantGET(t, env, "/payments?bogus=1"))
			}

			finishEnv := map[string]string{
				"INPUT_JOB_STATUS": tc.jobStatus, "INPUT_FAIL_ON": tc.failOn,
				"INPUT_JUNIT": filepath.Join(dir, "paysandbox-junit.xml"), "INPUT_SNAPSHOT": filepath.Join(dir, "paysandbox-snapshot.json"),
			}
			for k, v := range env { // the job's environment after start
				finishEnv[k] = v
			}
			r := runAction(t, "finish.sh", dir, finishEnv)
			assert.Equal(t, tc.wantExit, r.ExitCode, r.Stdout)
			if tc.wantExit != 0 {
				assert.Contains(t, r.Stdout, "::error title=paysandbox::paysandbox report: ReportFailed: hints: 1 raised (unknown-query-param x1)")
			}

			summary, err := os.ReadFile(r.file("summary"))
			require.NoError(t, err)
			assert.Contains(t, string(summary), "## paysandbox report")
			assert.Contains(t, string(summary), env["PAYSANDBOX_TENANT_ID"])
			assert.Equal(t, tc.hint, strings.Contains(string(summary), "unknown-query-param"))

			junit, err := os.ReadFile(finishEnv["INPUT_JUNIT"])
			require.NoError(t, err, "the JUnit file is written whatever the outcome")
			assertJUnit(t, finishEnv["INPUT_JUNIT"], junit)

			snap, err := os.ReadFile(finishEnv["INPUT_SNAPSHOT"])
			if tc.snapshot {
				require.NoError(t, err, "a failed job leaves the tenant's snapshot")
				assert.Contains(t, string(snap), env["PAYSANDBOX_TENANT_ID"])
				assert.NotContains(t, string(snap), env["PAYSANDBOX_API_KEY"], "the snapshot holds no API key")
				assert.NotContains(t, string(snap), env["PAYSANDBOX_SIGNING_SECRET"], "the snapshot holds no signing secret")
				assert.Contains(t, r.Stdout, "::group::paysandbox server log", "a failed job's log shows the server's")
			} else {
				assert.ErrorIs(t, err, os.ErrNotExist, "no snapshot unless the job failed")
			}

			assert.True(t, processGone(pid), "finish stops the server")
			assert.True(t, refused(env["PAYSANDBOX_URL"]+"/healthz"), "nothing answers on the sandbox's address after finish")
		})
	}
}

// testActionFinishServerGone: a server that died during the job fails the
// finish with an error annotation and its log's tail, not with the
// report's connection errors.
func testActionFinishServerGone(t *testing.T, bin string) {
	dir := t.TempDir()
	env := startAction(t, dir, map[string]string{"INPUT_BINARY": bin, "INPUT_ADDR": freeLoopbackAddr(t)}).vars(t, "env")
	pid, err := strconv.Atoi(env["PAYSANDBOX_ACTION_PID"])
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	require.True(t, processGone(pid))

	finishEnv := map[string]string{"INPUT_JOB_STATUS": "success", "INPUT_JUNIT": filepath.Join(dir, "junit.xml")}
	for k, v := range env {
		finishEnv[k] = v
	}
	r := runAction(t, "finish.sh", dir, finishEnv)
	assert.Equal(t, 1, r.ExitCode, r.Stdout)
	assert.Contains(t, r.Stdout, fmt.Sprintf("::error title=paysandbox::the paysandbox server at %s (pid %d) no longer answers", env["PAYSANDBOX_URL"], pid))
	assert.Contains(t, r.Stdout, "::group::paysandbox server log")
	assert.NotContains(t, r.Stdout, "ConnectionError")
}

// assertJUnit checks a JUnit report: against the vendored junit-10.xsd
// with xmllint when there is one (as TestReportJUnitXmllint), else that it
// is XML with a testsuites root.
func assertJUnit(t *testing.T, file string, body []byte) {
	t.Helper()
	var root struct {
		XMLName xml.Name
		Suites  []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(body, &root), "%s", body)
	assert.Equal(t, "testsuites", root.XMLName.Local)
	assert.NotEmpty(t, root.Suites)
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("PAYSANDBOX_REQUIRE_XMLLINT") != "" {
			t.Fatal("xmllint is not on PATH (apt-get install libxml2-utils) and PAYSANDBOX_REQUIRE_XMLLINT is set")
		}
		return
	}
	xsd := filepath.Join(repoRoot, "simulator", "httpapi", "testdata", "junit-10.xsd")
	out, err := exec.Command(xmllint, "--noout", "--schema", xsd, file).CombinedOutput()
	assert.NoError(t, err, "xmllint refuses the report:\n%s", out)
}

// TestActionFinishWithoutStart: a finish in a job whose start failed (and
// said why) or never ran warns and succeeds: the job's failure is the
// start's.
func TestActionFinishWithoutStart(t *testing.T) {
	r := runAction(t, "finish.sh", "", map[string]string{"INPUT_JOB_STATUS": "failure", "INPUT_FAIL_ON": "hints"})
	assert.Equal(t, 0, r.ExitCode, r.Stdout)
	assert.Contains(t, r.Stdout, "::warning title=paysandbox::no sandbox was started")
}

// testActionStartFails: a start that cannot give the job a ready sandbox
// fails the step with an error annotation, exports nothing and leaves no
// server running.
func testActionStartFails(t *testing.T, bin string) {
	dir := t.TempDir()
	// fake: a "paysandbox" whose serve never answers, and records its pid
	fake := filepath.Join(dir, "paysandbox")
	pidFile := filepath.Join(dir, "serve.pid")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\ncase $1 in\nversion) echo paysandbox fake ;;\nserve) echo $$ > "+pidFile+"; echo starting; exec sleep 300 ;;\n*) exit 1 ;;\nesac\n"), 0o755))
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()

	tests := []struct {
		name   string
		env    map[string]string
		errMsg string
	}{
		{"never ready", map[string]string{"INPUT_BINARY": fake, "INPUT_READY_TIMEOUT": "2"},
			"paysandbox serve was not ready at http://127.0.0.1:8080/readyz within 2s"},
		{"address taken", map[string]string{"INPUT_BINARY": bin, "INPUT_ADDR": busy.Addr().String()},
			"paysandbox serve exited (status 1) before it was ready at http://" + busy.Addr().String() + "/readyz"},
		{"no such binary", map[string]string{"INPUT_BINARY": filepath.Join(dir, "missing")},
			"binary: " + filepath.Join(dir, "missing") + " is not an executable file"},
		{"bad ready-timeout", map[string]string{"INPUT_BINARY": bin, "INPUT_READY_TIMEOUT": "soon"},
			"ready-timeout must be a number of seconds, not 'soon'"},
		{"bad webhook version", map[string]string{"INPUT_BINARY": bin, "INPUT_ADDR": freeLoopbackAddr(t), "INPUT_WEBHOOK_VERSION": "3.0"},
			"paysandbox tenants create failed: "},
		{"scenarios file with a mistake", map[string]string{"INPUT_BINARY": bin, "INPUT_ADDR": freeLoopbackAddr(t), "INPUT_SCENARIOS": filepath.Join(dir, "missing.yaml")},
			"paysandbox scenarios apply " + filepath.Join(dir, "missing.yaml") + " failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(pidFile)
			r := runAction(t, "start.sh", "", tc.env)
			assert.Equal(t, 1, r.ExitCode, r.Stdout)
			assert.Contains(t, r.Stdout, "::error title=paysandbox::"+tc.errMsg)
			for _, f := range []string{"env", "output"} {
				b, err := os.ReadFile(r.file(f))
				require.NoError(t, err)
				assert.Empty(t, string(b), "a failed start exports nothing to %s", f)
			}
			if addr := tc.env["INPUT_ADDR"]; addr != "" && tc.name != "address taken" {
				assert.True(t, refused("http://"+addr+"/healthz"), "the server a failed start started is stopped")
			}
			if tc.name == "never ready" {
				assert.Contains(t, r.Stdout, "::group::paysandbox server log", "the server's log tail is shown")
				assert.Contains(t, r.Stdout, "starting")
				b, err := os.ReadFile(pidFile)
				require.NoError(t, err)
				pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
				require.NoError(t, err)
				assert.True(t, processGone(pid), "the server that never got ready is stopped")
			}
		})
	}
}

// releaseServer serves a fake GitHub release of version v (no leading v in
// the archive's name, as GoReleaser names it) holding bin, with the
// release's checksums.txt; corrupt serves an archive that does not match
// its checksum.
func releaseServer(t *testing.T, bin, v string, corrupt bool) *httptest.Server {
	t.Helper()
	name := fmt.Sprintf("paysandbox_%s_%s_%s.tar.gz", strings.TrimPrefix(v, "v"), runtime.GOOS, runtime.GOARCH)
	var archive bytes.Buffer
	gz, err := gzip.NewWriterLevel(&archive, gzip.BestSpeed)
	require.NoError(t, err)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		mode int64
		path string
	}{{"README.md", 0o644, filepath.Join(repoRoot, "README.md")}, {"paysandbox", 0o755, bin}} {
		b, err := os.ReadFile(f.path)
		require.NoError(t, err)
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(b))}))
		_, err = tw.Write(b)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	sum := sha256.Sum256(archive.Bytes())
	checksums := fmt.Sprintf("%s  paysandbox_%s_windows_amd64.zip\n%s  %s\n", strings.Repeat("0", 64), strings.TrimPrefix(v, "v"), hex.EncodeToString(sum[:]), name)
	body := archive.Bytes()
	if corrupt {
		body = append(bytes.Clone(body), 0)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/download/" + v + "/checksums.txt", "/latest/download/checksums.txt":
			_, _ = io.WriteString(w, checksums)
		case "/download/" + v + "/" + name, "/latest/download/" + name:
			_, _ = w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// runnerPlatform is RUNNER_OS and RUNNER_ARCH of a runner like this machine.
func runnerPlatform(t *testing.T) map[string]string {
	t.Helper()
	osName := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if osName == "" || arch == "" {
		t.Skipf("no release archive for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return map[string]string{"RUNNER_OS": osName, "RUNNER_ARCH": arch}
}

// TestActionScriptsShellcheck: the scripts pass shellcheck, as actionlint
// checks the action's run steps (skipped without shellcheck on PATH).
func TestActionScriptsShellcheck(t *testing.T) {
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("shellcheck is not on PATH (apt-get install shellcheck)")
	}
	for _, script := range []string{"start.sh", "finish.sh", "common.sh"} {
		out, err := exec.Command(sc, "--shell=bash", filepath.Join(repoRoot, "action", script)).CombinedOutput()
		assert.NoError(t, err, "shellcheck %s:\n%s", script, out)
	}
}

// testActionStartDownload: without a binary input, start downloads the
// release archive for the runner's OS and architecture, checks it against
// checksums.txt and puts the binary on the job's PATH; the version is the
// input, else the action's ref when it is a version tag, else the latest
// release. An archive that does not match its checksum is refused.
func testActionStartDownload(t *testing.T, bin string) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not on PATH: start downloads with it")
	}
	good := releaseServer(t, bin, "v9.8.7", false)
	tests := []struct {
		name    string
		server  *httptest.Server
		env     map[string]string
		wantErr string
	}{
		{"version input", good, map[string]string{"INPUT_VERSION": "v9.8.7"}, ""},
		{"version input without v", good, map[string]string{"INPUT_VERSION": "9.8.7"}, ""},
		{"the action's ref", good, map[string]string{"ACTION_REF": "v9.8.7"}, ""},
		{"the action's directory", good, map[string]string{"GITHUB_ACTION_PATH": "/home/runner/work/_actions/paysandbox/paysandbox/v9.8.7"}, ""},
		{"latest for a branch ref", good, map[string]string{"ACTION_REF": "main"}, ""},
		{"unknown version", good, map[string]string{"INPUT_VERSION": "v1.2.3"}, "cannot download "},
		{"corrupt archive", releaseServer(t, bin, "v9.8.7", true), map[string]string{"INPUT_VERSION": "v9.8.7"}, "has SHA-256 "},
		{"no archive for the platform", good, map[string]string{"INPUT_VERSION": "v9.8.7", "RUNNER_OS": "Windows"}, "no release archive for Windows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := runnerPlatform(t)
			env["INPUT_RELEASES_URL"] = tc.server.URL
			env["INPUT_ADDR"] = freeLoopbackAddr(t)
			for k, v := range tc.env {
				env[k] = v
			}
			if tc.wantErr != "" {
				r := runAction(t, "start.sh", "", env)
				assert.Equal(t, 1, r.ExitCode, r.Stdout)
				assert.Contains(t, r.Stdout, "::error title=paysandbox::")
				assert.Contains(t, r.Stdout, tc.wantErr)
				return
			}
			r := startAction(t, "", env)
			out := r.vars(t, "output")
			assert.Contains(t, r.Stdout, "paysandbox: downloaded paysandbox_9.8.7_")
			path, err := os.ReadFile(r.file("path"))
			require.NoError(t, err)
			assert.Equal(t, filepath.Dir(out["binary"])+"\n", string(path), "the downloaded binary's directory is on the job's PATH")
			assert.Equal(t, 200, merchantGET(t, r.vars(t, "env"), "/payments"))
		})
	}
}

// TestActionStartBuild: build: true compiles the action's own source with
// Go, stamped with the action's version tag.
func TestActionStartBuild(t *testing.T) {
	bashPath(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := startAction(t, "", map[string]string{"INPUT_BUILD": "true", "ACTION_REF": "v0.0.1-test", "INPUT_ADDR": freeLoopbackAddr(t)})
	out := r.vars(t, "output")
	v, err := exec.Command(out["binary"], "version").CombinedOutput()
	require.NoError(t, err, "%s", v)
	assert.True(t, strings.HasPrefix(string(v), "paysandbox v0.0.1-test "), "%s", v)
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	built := false
	for sc.Scan() {
		built = built || strings.HasPrefix(sc.Text(), "paysandbox: building ")
	}
	assert.True(t, built, r.Stdout)
	assert.Equal(t, 200, merchantGET(t, r.vars(t, "env"), "/payments"))
}
