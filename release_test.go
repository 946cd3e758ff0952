package paysandbox_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is what the tests read of .goreleaser.yaml.
type goreleaserConfig struct {
	Builds []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		NameTemplate string `yaml:"name_template"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
	} `yaml:"checksum"`
	Release struct {
		GitHub struct {
			Owner string `yaml:"owner"`
			Name  string `yaml:"name"`
		} `yaml:"github"`
	} `yaml:"release"`
}

func readGoreleaser(t *testing.T) goreleaserConfig {
	t.Helper()
	b, err := os.ReadFile(".goreleaser.yaml")
	require.NoError(t, err)
	var c goreleaserConfig
	require.NoError(t, yaml.Unmarshal(b, &c))
	return c
}

// TestReleaseBuildFlags: the release archives (.goreleaser.yaml) and the
// image (the Dockerfile) are built alike: no cgo, -trimpath and the same
// -ldflags, stamping the same variables, whose values the release workflow
// makes equal (the tag, the full commit, the commit's date).
func TestReleaseBuildFlags(t *testing.T) {
	c := readGoreleaser(t)
	require.Len(t, c.Builds, 1, "one build: the paysandbox binary")
	b := c.Builds[0]
	assert.Equal(t, "./cmd/paysandbox", b.Main)
	assert.Equal(t, "paysandbox", b.Binary)
	assert.Contains(t, b.Env, "CGO_ENABLED=0")
	assert.Equal(t, []string{"-trimpath"}, b.Flags)
	require.Len(t, b.Ldflags, 1)
	// GoReleaser's template values, as the Dockerfile's build args.
	asArgs := strings.NewReplacer("v{{ .Version }}", "${VERSION}", "{{ .FullCommit }}", "${COMMIT}", "{{ .CommitDate }}", "${BUILD_DATE}")
	goreleaser := asArgs.Replace(b.Ldflags[0])

	d, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	docker := regexp.MustCompile(`-ldflags "([^"]+)"`).FindAllStringSubmatch(string(d), -1)
	require.Len(t, docker, 1, "the Dockerfile has one go build with -ldflags")
	assert.Equal(t, docker[0][1], goreleaser, "the -ldflags of .goreleaser.yaml and the Dockerfile")
	assert.Regexp(t, `go build -trimpath\b`, string(d))
	assert.Regexp(t, `(?m)^ENV CGO_ENABLED=0\b`, string(d))

	// Each build arg the flags use is one the release workflow passes.
	w, err := os.ReadFile(".github/workflows/release.yml")
	require.NoError(t, err)
	for _, m := range regexp.MustCompile(`\$\{(\w+)\}`).FindAllStringSubmatch(docker[0][1], -1) {
		assert.Regexp(t, `(?m)^\s+`+m[1]+`=\$\{\{ steps\.stamp\.outputs\.\w+ \}\}$`, string(w), "release.yml passes the build arg %s", m[1])
	}
}

// TestReleaseArtifacts: archives for Linux and macOS on amd64 and arm64,
// named as the GitHub Action (action.yml) downloads them, with their
// checksums in checksums.txt, released to the repository named in the
// configuration (the checks run in clones without a remote).
func TestReleaseArtifacts(t *testing.T) {
	c := readGoreleaser(t)
	require.Len(t, c.Builds, 1)
	assert.ElementsMatch(t, []string{"linux", "darwin"}, c.Builds[0].Goos)
	assert.ElementsMatch(t, []string{"amd64", "arm64"}, c.Builds[0].Goarch)
	require.Len(t, c.Archives, 1)
	assert.Equal(t, "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}", c.Archives[0].NameTemplate)
	assert.Equal(t, "checksums.txt", c.Checksum.NameTemplate)
	assert.Equal(t, "paysandbox", c.Release.GitHub.Owner)
	assert.Equal(t, "paysandbox", c.Release.GitHub.Name)
}

// TestReleaseNotes: scripts/release-notes prints a tag's CHANGELOG.md
// section (the release's text) and fails for a tag without one.
func TestReleaseNotes(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	changelog := filepath.Join(t.TempDir(), "CHANGELOG.md")
	require.NoError(t, os.WriteFile(changelog, []byte("# Changelog\n\n## Unreleased\n\n- next\n\n"+
		"## v0.2.0 (2026-12-01)\n\n### Added\n\n- a\n- b\n\n## [0.1.0] - 2026-11-29\n\n- first\n\n## 0.0.9\n\n"), 0o644))
	tests := []struct {
		tag, want, err string
	}{
		{tag: "v0.2.0", want: "### Added\n\n- a\n- b\n"},
		{tag: "v0.1.0", want: "- first\n"},
		{tag: "0.1.0", want: "- first\n"},
		{tag: "v0.3.0", err: `has no section "## v0.3.0"`},
		{tag: "v0.0.9", err: `the section "## v0.0.9" of ` + changelog + ` is empty`},
	}
	for _, tc := range tests {
		t.Run(tc.tag, func(t *testing.T) {
			cmd := exec.Command(bash, "scripts/release-notes", tc.tag, changelog)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, stderr.String(), tc.err)
				assert.Empty(t, out)
				return
			}
			require.NoError(t, err, stderr.String())
			assert.Equal(t, tc.want, string(out))
		})
	}
}

// actionMetadata is what TestActionFiles and TestActionMetadata read of an
// action.yml.
type actionMetadata struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			If    string            `yaml:"if"`
			Run   string            `yaml:"run"`
			Uses  string            `yaml:"uses"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			With  map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// TestActionFiles checks what actionlint (v1.7) does not of the repository's
// action metadata files (action.yml at the root and under action/): the
// steps of a composite action. actionlint checks an action's metadata and
// the inputs a workflow gives it only through a workflow that uses it, so
// each must be used by one under .github/workflows.
func TestActionFiles(t *testing.T) {
	var files []string
	for _, name := range []string{"action.yml", "action.yaml"} {
		if _, err := os.Stat(name); err == nil {
			files = append(files, name)
		}
	}
	if _, err := os.Stat("action"); err == nil {
		require.NoError(t, filepath.WalkDir("action", func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (d.Name() == "action.yml" || d.Name() == "action.yaml") {
				files = append(files, path)
			}
			return err
		}))
	}
	if len(files) == 0 {
		t.Skip("the repository has no action metadata file")
	}
	workflows, err := filepath.Glob(".github/workflows/*.y*ml")
	require.NoError(t, err)
	var uses []string
	for _, w := range workflows {
		b, err := os.ReadFile(w)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*(\./\S*)`).FindAllStringSubmatch(string(b), -1) {
			uses = append(uses, filepath.Clean(m[1]))
		}
	}
	expr := regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			assert.Contains(t, uses, filepath.Dir(f), "no workflow uses %s, so actionlint does not check it", f)
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			var a actionMetadata
			require.NoError(t, yaml.Unmarshal(b, &a))
			assert.NotEmpty(t, a.Name, "name")
			assert.NotEmpty(t, a.Description, "description")
			for name, in := range a.Inputs {
				assert.NotEmpty(t, in.Description, "input %s has no description", name)
			}
			if a.Runs.Using != "composite" {
				return
			}
			ids := map[string]bool{}
			for i, s := range a.Runs.Steps {
				at := s.ID
				if at == "" {
					at = fmt.Sprintf("step %d", i+1)
				}
				assert.False(t, ids[s.ID] && s.ID != "", "%s: the id is used twice", at)
				ids[s.ID] = true
				assert.True(t, (s.Run == "") != (s.Uses == ""), "%s: run or uses, not both", at)
				if s.Run != "" {
					assert.NotEmpty(t, s.Shell, "%s: a composite action's run step names its shell", at)
					// Inputs reach a script through env, never spliced into its text.
					assert.NotRegexp(t, `\$\{\{`, s.Run, "%s: an expression in run", at)
				}
				var texts []string
				if s.If != "" {
					texts = append(texts, "${{ "+s.If+" }}")
				}
				for _, v := range s.Env {
					texts = append(texts, v)
				}
				for _, v := range s.With {
					texts = append(texts, v)
				}
				for _, text := range texts {
					checkInputRefs(t, at, text, a, expr)
				}
			}
			for name, o := range a.Outputs {
				assert.NotEmpty(t, o.Description, "output %s has no description", name)
				for _, m := range regexp.MustCompile(`steps\.([\w-]+)\.outputs`).FindAllStringSubmatch(o.Value, -1) {
					assert.True(t, ids[m[1]], "output %s names step %q, which the action does not have", name, m[1])
				}
			}
		})
	}
}

// checkInputRefs fails for an inputs.NAME in text's expressions that the
// action does not declare.
func checkInputRefs(t *testing.T, at, text string, a actionMetadata, expr *regexp.Regexp) {
	t.Helper()
	for _, e := range expr.FindAllStringSubmatch(text, -1) {
		for _, m := range regexp.MustCompile(`\binputs\.([\w-]+)`).FindAllStringSubmatch(e[1], -1) {
			_, ok := a.Inputs[m[1]]
			assert.True(t, ok, "%s: inputs.%s is not an input of the action", at, m[1])
		}
	}
}

// TestActionMetadata: action.yml, its scripts and the inputs tables of
// docs/ci.md name the same inputs. Each input but mode reaches the script
// of the mode its description names as INPUT_<NAME>, and every INPUT_ a
// script reads is passed; each output is a value start writes to
// GITHUB_OUTPUT; each input has a row in the docs whose default, when it
// is one code span, is the action's.
func TestActionMetadata(t *testing.T) {
	b, err := os.ReadFile("action.yml")
	require.NoError(t, err)
	var meta actionMetadata
	require.NoError(t, yaml.Unmarshal(b, &meta))
	require.Equal(t, "composite", meta.Runs.Using)
	require.Contains(t, meta.Inputs, "mode")

	inputRef := regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`)
	passed := map[string]string{} // input -> the mode whose script gets it
	for _, step := range meta.Runs.Steps {
		if step.ID != "start" && step.ID != "finish" {
			continue
		}
		assert.Equal(t, map[string]string{"start": "inputs.mode == 'start'", "finish": "always() && inputs.mode == 'finish'"}[step.ID], step.If)
		assert.Equal(t, `bash "$GITHUB_ACTION_PATH/action/`+step.ID+`.sh"`, step.Run)
		src, err := os.ReadFile(filepath.Join("action", step.ID+".sh"))
		require.NoError(t, err)
		read := map[string]bool{}
		for _, v := range regexp.MustCompile(`INPUT_[A-Z_]+`).FindAllString(string(src), -1) {
			read[v] = true
		}
		for name, value := range step.Env {
			if !strings.HasPrefix(name, "INPUT_") {
				continue
			}
			m := inputRef.FindStringSubmatch(value)
			require.NotNil(t, m, "%s: %s is not an input", step.ID, name)
			assert.Equal(t, "INPUT_"+strings.ToUpper(strings.ReplaceAll(m[1], "-", "_")), name, "the variable of input %s", m[1])
			assert.True(t, read[name], "%s.sh reads %s", step.ID, name)
			delete(read, name)
			assert.Empty(t, passed[m[1]], "input %s goes to one mode", m[1])
			passed[m[1]] = step.ID
			assert.True(t, strings.HasPrefix(meta.Inputs[m[1]].Description, step.ID+": "), "the description of %s says it is for %s", m[1], step.ID)
		}
		assert.Empty(t, read, "%s.sh reads variables action.yml does not pass", step.ID)
		if step.ID == "start" {
			for name, out := range meta.Outputs {
				assert.Equal(t, "${{ steps.start.outputs."+name+" }}", out.Value)
				assert.Contains(t, string(src), `echo "`+name+`=`, "start.sh writes output %s", name)
			}
		}
	}
	for name := range meta.Inputs {
		if name != "mode" {
			assert.NotEmpty(t, passed[name], "input %s reaches a script", name)
		}
	}

	doc, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|([^|]*)\\|")
	span := regexp.MustCompile("^`([^`]*)`$")
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		in, ok := meta.Inputs[m[1]]
		if !ok {
			continue
		}
		documented[m[1]] = true
		if d := span.FindStringSubmatch(strings.TrimSpace(m[2])); d != nil {
			assert.Equal(t, in.Default, d[1], "docs/ci.md: the default of %s", m[1])
		} else {
			assert.Empty(t, in.Default, "docs/ci.md: the default of %s is %q", m[1], in.Default)
		}
	}
	for name := range meta.Inputs {
		if name != "mode" {
			assert.True(t, documented[name], "docs/ci.md has a row for input %s", name)
		}
	}
}
