package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const walkthroughMark = "<!-- walkthrough -->"

// walkthrough is a shell block of the README that a test runs.
type walkthrough struct {
	Line int // of the opening fence
	Body string
}

// readmeWalkthroughs extracts every ```sh block that the line
// "<!-- walkthrough -->" immediately precedes.
func readmeWalkthroughs(t *testing.T, readme []byte) []walkthrough {
	t.Helper()
	var out []walkthrough
	sc := bufio.NewScanner(bytes.NewReader(readme))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	prev, n := "", 0
	var cur *walkthrough
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.Body += line + "\n"
		case strings.TrimSpace(line) == "```sh" && strings.TrimSpace(prev) == walkthroughMark:
			cur = &walkthrough{Line: n}
		}
		prev = line
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "a walkthrough block is not closed")
	return out
}

// TestReadmeWalkthroughs runs every marked README shell block with bash
// against a real server on a free port (PAYSANDBOX_URL), so that what a
// newcomer pastes keeps working. Each block fails on the first failing
// command (set -euo pipefail).
func TestReadmeWalkthroughs(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README walkthroughs need %s, which is not installed (.ci/run installs it with apt-get)", tool)
		}
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	blocks := readmeWalkthroughs(t, readme)
	require.NotEmpty(t, blocks, "the README has no %s blocks", walkthroughMark)

	cfg := testConfig()
	cfg.RequestTimeout = 10 * time.Second
	app, err := Open(cfg, AppOptions{LogOut: io.Discard}) // the real clock: walkthroughs wait for background work
	require.NoError(t, err)
	require.NoError(t, app.Start())
	t.Cleanup(func() { _ = app.Close() })

	env := append(os.Environ(), "PAYSANDBOX_URL="+app.URL(), "PATH="+fastPython3(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, b := range blocks {
		t.Run("README.md:"+strconv.Itoa(b.Line), func(t *testing.T) {
			t.Parallel()                    // each block works in a tenant of its own
			for run := 1; run <= 2; run++ { // re-runnable: the second run meets the first one's data
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+b.Body)
				cmd.Env = env
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				cancel()
				require.NoError(t, err, "run %d of the block at README.md:%d failed:\n%s", run, b.Line, out.String())
			}
		})
	}
}

// fastPython3 returns a directory whose python3 is the interpreter itself:
// a version manager's python3 (pyenv's shim is a bash script) can take a
// second or more per start on a loaded machine, and the walkthroughs start
// python3 for every JSON field they read. Where python3 is the interpreter
// already, the link changes nothing.
func fastPython3(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	require.NoError(t, err, "python3 -c 'import sys; print(sys.executable)'")
	dir := t.TempDir()
	require.NoError(t, os.Symlink(strings.TrimSpace(string(out)), filepath.Join(dir, "python3")))
	return dir
}

// TestReadmeWalkthroughExtraction: the marker must immediately precede the
// fence; other blocks are left alone.
func TestReadmeWalkthroughExtraction(t *testing.T) {
	md := "intro\n<!-- walkthrough -->\n```sh\necho one\n```\n\n```sh\necho skipped\n```\n<!-- walkthrough -->\n\n```sh\necho not adjacent\n```\n<!-- walkthrough -->\n```sh\necho two\necho three\n```\n"
	got := readmeWalkthroughs(t, []byte(md))
	require.Len(t, got, 2)
	assert.Equal(t, walkthrough{Line: 3, Body: "echo one\n"}, got[0])
	assert.Equal(t, "echo two\necho three\n", got[1].Body)
}

// TestReadmeAnchors: every README.md#anchor the code points users at (in
// recoverySuggestions, for example) is a heading of the README.
func TestReadmeAnchors(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	anchors := map[string]bool{}
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "#") {
			anchors[githubAnchor(strings.TrimLeft(line, "# "))] = true
		}
	}
	ref := regexp.MustCompile(`README\.md#([a-z0-9-]+)`)
	found := 0
	err = filepath.WalkDir(filepath.Join("..", ".."), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "data") {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range ref.FindAllStringSubmatch(string(src), -1) {
			found++
			assert.True(t, anchors[m[1]], "%s points at README.md#%s, which is no heading of the README", path, m[1])
		}
		return nil
	})
	require.NoError(t, err)
	assert.NotZero(t, found, "the 422 recoverySuggestion points at the README")
}

// githubAnchor is the id GitHub gives a heading.
func githubAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
