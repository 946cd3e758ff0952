package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/webhooks"
)

// The user documentation: README.md, CHANGELOG.md and every page under
// docs/.
const (
	repoRoot        = "../.."
	walkthroughMark = "<!-- walkthrough -->"
	readmeMaxLines  = 400
)

// docPages lists the user documentation, as slash paths from the
// repository root, sorted.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "CHANGELOG.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !d.IsDir() && strings.HasSuffix(rel, ".md") {
			pages = append(pages, rel)
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(pages)
	return pages
}

// readPage reads a page by its slash path from the repository root.
func readPage(t *testing.T, page string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(page)))
	require.NoError(t, err)
	return b
}

// walkthrough is a shell block of a page that a test runs.
type walkthrough struct {
	Page string
	Line int // of the opening fence
	Body string
}

// walkthroughs extracts every ```sh block that the line
// "<!-- walkthrough -->" immediately precedes.
func walkthroughs(t *testing.T, page string, md []byte) []walkthrough {
	t.Helper()
	var out []walkthrough
	sc := bufio.NewScanner(bytes.NewReader(md))
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
			cur = &walkthrough{Page: page, Line: n}
		}
		prev = line
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "a walkthrough block of %s is not closed", page)
	return out
}

// TestDocWalkthroughs runs every marked shell block of the README and the
// docs with bash against a real server on a free port (PAYSANDBOX_URL), so
// that what a reader pastes keeps working. Each block fails on the first
// failing command (set -euo pipefail), and runs twice: the second run meets
// the first one's data.
func TestDocWalkthroughs(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the walkthroughs need %s, which is not installed (.ci/run installs it with apt-get)", tool)
		}
	}
	var blocks []walkthrough
	perPage := map[string]int{}
	for _, page := range docPages(t) {
		got := walkthroughs(t, page, readPage(t, page))
		perPage[page] = len(got)
		blocks = append(blocks, got...)
	}
	require.NotZero(t, perPage["README.md"], "the README has no %s block", walkthroughMark)
	// Each page keeps at least its count of walkthrough blocks: a page
	// losing its blocks is a lost check, not a tidier page.
	for page, want := range map[string]int{"docs/scenarios.md": 9, "docs/walkthroughs.md": 3, "docs/qa-cookbook.md": 7, "docs/webhooks.md": 1, "docs/sharing.md": 1} {
		assert.GreaterOrEqual(t, perPage[page], want, "%s has fewer %s blocks than it must", page, walkthroughMark)
	}

	cfg := testConfig()
	cfg.RequestTimeout = 10 * time.Second
	app, err := Open(cfg, AppOptions{LogOut: io.Discard}) // the real clock: walkthroughs wait for background work
	require.NoError(t, err)
	require.NoError(t, app.Start())
	t.Cleanup(func() { _ = app.Close() })

	// The blocks call the CLI as `paysandbox` (this test binary, cliOnPath).
	path := strings.Join([]string{fastPython3(t), cliOnPath(t), os.Getenv("PATH")}, string(os.PathListSeparator))
	env := append(os.Environ(), "PAYSANDBOX_URL="+app.URL(), "PATH="+path, cliOnPathEnv)
	for _, b := range blocks {
		t.Run(b.Page+":"+strconv.Itoa(b.Line), func(t *testing.T) {
			t.Parallel()                    // each block works in a tenant of its own
			for run := 1; run <= 2; run++ { // re-runnable: the second run meets the first one's data
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+b.Body)
				cmd.Env = env
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				cancel()
				require.NoError(t, err, "run %d of the block at %s:%d failed:\n%s", run, b.Page, b.Line, out.String())
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

// TestWalkthroughExtraction: the marker must immediately precede the
// fence; other blocks are left alone.
func TestWalkthroughExtraction(t *testing.T) {
	md := "intro\n<!-- walkthrough -->\n```sh\necho one\n```\n\n```sh\necho skipped\n```\n<!-- walkthrough -->\n\n```sh\necho not adjacent\n```\n<!-- walkthrough -->\n```sh\necho two\necho three\n```\n"
	got := walkthroughs(t, "x.md", []byte(md))
	require.Len(t, got, 2)
	assert.Equal(t, walkthrough{Page: "x.md", Line: 3, Body: "echo one\n"}, got[0])
	assert.Equal(t, "echo two\necho three\n", got[1].Body)
}

// markdown is what the link check needs of a page: its anchors and its
// links, both outside code.
type markdown struct {
	Anchors map[string]bool
	Links   []mdLink
	Split   []int // lines where a bracket opens and does not close
}

type mdLink struct {
	Line   int
	Target string
}

var (
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	htmlID     = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	headingRE  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
)

// parseMarkdown finds the headings (as GitHub's anchors, duplicates
// numbered -1, -2, ...) and the links of md, skipping fenced code.
func parseMarkdown(md string) markdown {
	m := markdown{Anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	for i, line := range strings.Split(md, "\n") {
		trim := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trim, fence) && strings.Trim(trim, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			fence = trim[:3]
			continue
		}
		for _, id := range htmlID.FindAllStringSubmatch(line, -1) {
			m.Anchors[id[1]] = true
		}
		if h := headingRE.FindStringSubmatch(line); h != nil {
			a := githubAnchor(h[2])
			if n := seen[a]; n > 0 {
				m.Anchors[a+"-"+strconv.Itoa(n)] = true
			} else {
				m.Anchors[a] = true
			}
			seen[a]++
		}
		text := codeSpan.ReplaceAllString(line, "")
		if open := strings.LastIndex(line, "["); open >= 0 && !strings.Contains(line[open:], "]") && strings.Count(line[:open], "`")%2 == 0 {
			m.Split = append(m.Split, i+1) // a link's text may go on on the next line, where no check sees it
		}
		for _, l := range inlineLink.FindAllStringSubmatch(text, -1) {
			m.Links = append(m.Links, mdLink{Line: i + 1, Target: l[1]})
		}
		if l := refLink.FindStringSubmatch(text); l != nil {
			m.Links = append(m.Links, mdLink{Line: i + 1, Target: l[1]})
		}
	}
	return m
}

// githubAnchor is the id GitHub gives a heading: lower case, links reduced
// to their text, punctuation dropped, spaces as hyphens.
func githubAnchor(h string) string {
	h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// resolveLink checks one relative link target of page (a slash path from
// the repository root) against the files and anchors it names; "" is fine.
func resolveLink(page, target string, parsed func(string) (markdown, error)) string {
	if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	dest := page
	if file != "" {
		dest = path.Clean(path.Join(path.Dir(page), file))
		if dest == ".." || strings.HasPrefix(dest, "../") || path.IsAbs(file) {
			return fmt.Sprintf("%s leaves the repository: readers have only the repository", target)
		}
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(dest))); err != nil {
			return fmt.Sprintf("%s: no such file %s", target, dest)
		}
	}
	if anchor == "" {
		return ""
	}
	if !strings.HasSuffix(dest, ".md") {
		return fmt.Sprintf("%s: an anchor into %s, which is no markdown page", target, dest)
	}
	md, err := parsed(dest)
	if err != nil {
		return fmt.Sprintf("%s: %v", target, err)
	}
	if !md.Anchors[anchor] {
		return fmt.Sprintf("%s: %s has no heading with the anchor #%s", target, dest, anchor)
	}
	return ""
}

// TestDocLinks: every relative link and #anchor of the README, the
// changelog and the docs resolves, and so does every page anchor the code
// points users at (the recoverySuggestions of the error catalogue and the
// handlers).
func TestDocLinks(t *testing.T) {
	cache := map[string]markdown{}
	parsed := func(page string) (markdown, error) {
		if m, ok := cache[page]; ok {
			return m, nil
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(page)))
		if err != nil {
			return markdown{}, err
		}
		cache[page] = parseMarkdown(string(b))
		return cache[page], nil
	}
	links := 0
	for _, page := range docPages(t) {
		md, err := parsed(page)
		require.NoError(t, err)
		for _, line := range md.Split {
			t.Errorf("%s:%d: a [ that does not close on its line: keep a link's text on one line, so that this check sees the link", page, line)
		}
		for _, l := range md.Links {
			links++
			if problem := resolveLink(page, l.Target, parsed); problem != "" {
				t.Errorf("%s:%d: %s", page, l.Line, problem)
			}
		}
	}
	assert.Greater(t, links, 100, "the pages link to each other")

	ref := regexp.MustCompile(`(README\.md|docs/[A-Za-z0-9_/-]+\.md)#([A-Za-z0-9_-]+)`)
	found := 0
	for p, src := range goSources(t) {
		for _, m := range ref.FindAllStringSubmatch(src, -1) {
			found++
			if problem := resolveLink("", m[1]+"#"+m[2], parsed); problem != "" {
				t.Errorf("%s points users at %s", p, problem)
			}
		}
	}
	assert.NotZero(t, found, "the 422 recoverySuggestion points at the docs")
}

// TestDocLinkResolution pins the link check itself: GitHub's anchors, code
// that is not a link, files outside the repository.
func TestDocLinkResolution(t *testing.T) {
	md := parseMarkdown("# The API\n## Make the next payment ...\n## Session -> tokenise -> vault\n## `paysandbox pay`\n## Notes\n## Notes\n" +
		"[a](#the-api) `[not](a-link.md)` [b](other.md#x)\n```sh\n# not a heading\n[c](inside-code.md)\n```\n[d]: ref.md\n")
	for _, a := range []string{"the-api", "make-the-next-payment-", "session---tokenise---vault", "paysandbox-pay", "notes", "notes-1"} {
		assert.True(t, md.Anchors[a], "anchor %s", a)
	}
	assert.False(t, md.Anchors["not-a-heading"])
	var targets []string
	for _, l := range md.Links {
		targets = append(targets, l.Target)
	}
	assert.Equal(t, []string{"#the-api", "other.md#x", "ref.md"}, targets)

	split := parseMarkdown("see [the\nnext](x.md) page\n`{\"data\": [{\"kind\"`\n")
	assert.Equal(t, []int{1}, split.Split, "a link's text broken over lines is reported; a bracket in code is not")

	pages := map[string]markdown{"docs/api.md": parseMarkdown("# Errors\n")}
	parsed := func(p string) (markdown, error) {
		if m, ok := pages[p]; ok {
			return m, nil
		}
		return markdown{}, fmt.Errorf("not read")
	}
	tests := []struct{ page, target, problem string }{
		{"README.md", "docs/api.md#errors", ""},
		{"README.md", "docs/api.md#nope", "has no heading with the anchor #nope"},
		{"docs/webhooks.md", "api.md#errors", ""},
		{"docs/webhooks.md", "../README.md", ""},
		{"docs/webhooks.md", "missing.md", "no such file docs/missing.md"},
		{"README.md", "../shared/spec/SANDBOX.md", "leaves the repository"},
		{"README.md", "https://example.com/x#y", ""},
		{"README.md", "go.mod#x", "no markdown page"},
	}
	for _, tc := range tests {
		got := resolveLink(tc.page, tc.target, parsed)
		if tc.problem == "" {
			assert.Empty(t, got, "%s in %s", tc.target, tc.page)
		} else {
			assert.Contains(t, got, tc.problem, "%s in %s", tc.target, tc.page)
		}
	}
}

// TestDocPages: the README stays a front page (under 400 lines) with a map
// of every docs page, and no page sends readers to a file they do not have
// or speaks of the project's history instead of the product.
func TestDocPages(t *testing.T) {
	readme := string(readPage(t, "README.md"))
	assert.Less(t, strings.Count(readme, "\n"), readmeMaxLines, "the README is a newcomer's first ten minutes: move reference material to docs/")
	for _, page := range docPages(t) {
		if !strings.HasPrefix(page, "docs/") || strings.HasPrefix(page, "docs/cli/") {
			continue
		}
		assert.True(t, strings.Contains(readme, "("+page+")"), "the README's documentation map links %s", page)
	}
	assert.True(t, strings.Contains(readme, "(docs/cli/paysandbox.md)"), "the README's map links the CLI reference")

	history := regexp.MustCompile(`(?i)\b(issue|phase) \d+|\bSANDBOX\.md|interface-spec|\.\./shared/spec`)
	for _, page := range docPages(t) {
		for i, line := range strings.Split(string(readPage(t, page)), "\n") {
			if m := history.FindString(line); m != "" {
				t.Errorf("%s:%d says %q: docs state the product, not its history or files readers lack", page, i+1, m)
			}
		}
	}
}

// goSources maps the path of every non-test Go file of the repository to its
// source (outside .git, data and testdata).
func goSources(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "data" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		out[p] = string(src)
		return err
	})
	require.NoError(t, err)
	return out
}

// TestScalingDocShowsTheTestedConfigs: docs/scaling.md prints the proxy
// configurations scripts/scaling-smoke runs, verbatim.
func TestScalingDocShowsTheTestedConfigs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "scaling.md"))
	require.NoError(t, err)
	for _, f := range []string{"nginx.conf", "haproxy.cfg"} {
		conf, err := os.ReadFile(filepath.Join("..", "..", "scripts", "scaling", f))
		require.NoError(t, err)
		assert.Contains(t, string(doc), strings.TrimRight(string(conf), "\n")+"\n```", "docs/scaling.md shows scripts/scaling/%s as it is", f)
	}
}

// TestVersionsDocPrintsTheTables: docs/versions.md prints every row of the
// kernel's version differences and the webhooks' table as the code has them.
func TestVersionsDocPrintsTheTables(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "versions.md"))
	require.NoError(t, err)
	doc := string(b)
	for _, d := range simulator.VersionDifferences {
		assert.Contains(t, doc, "| `"+d.Kind+"` | "+string(d.Until)+" | "+d.Description, "docs/versions.md has the row of %s", d.Kind)
	}
	assert.Contains(t, doc, strings.TrimRight(webhooks.DifferencesMarkdown(), "\n"), "docs/versions.md prints webhooks.DifferencesMarkdown()")
}
