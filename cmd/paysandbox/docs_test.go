package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/app"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/cli/ and the configuration table of docs/configuration.md")

const regenerateDocs = "go generate ./cmd/paysandbox   (or: go test ./cmd/paysandbox -run '^TestGeneratedDocs$' -update-docs)"

// Where the generated reference lives, from this package's directory.
var (
	cliDocsDir        = filepath.Join("..", "..", "docs", "cli")
	configurationPage = filepath.Join("..", "..", "docs", "configuration.md")
)

// The configuration table sits between these lines of docs/configuration.md.
const (
	configTableBegin = "<!-- config-table:begin: generated from the serve flags and the config defaults; run go generate ./cmd/paysandbox -->"
	configTableEnd   = "<!-- config-table:end -->"
)

// TestGeneratedDocs: docs/cli/ is byte for byte what cobra's doc generator
// makes of the commands, and the configuration table of
// docs/configuration.md is what configTable makes of the table of settings
// (configKeys). With -update-docs it rewrites both.
func TestGeneratedDocs(t *testing.T) {
	// Some flags take their default from the environment (PAYSANDBOX_URL,
	// PAYSANDBOX_API_KEY, ...): the pages show the defaults of a clean one.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "PAYSANDBOX_") {
			t.Setenv(k, "")
		}
	}

	gen := t.TempDir()
	require.NoError(t, writeCLIDocs(gen))
	table, err := configTable(configKeys)
	require.NoError(t, err)

	if *updateDocs {
		require.NoError(t, os.RemoveAll(cliDocsDir))
		require.NoError(t, os.MkdirAll(cliDocsDir, 0o755))
		files, err := os.ReadDir(gen)
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(gen, f.Name()))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(cliDocsDir, f.Name()), b, 0o644))
		}
		page, err := os.ReadFile(configurationPage)
		require.NoError(t, err)
		updated, err := replaceBetween(string(page), configTableBegin, configTableEnd, table)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(configurationPage, []byte(updated), 0o644))
	}

	t.Run("cli", func(t *testing.T) {
		want := readDir(t, gen)
		got := readDir(t, cliDocsDir)
		for name := range got {
			_, ok := want[name]
			assert.True(t, ok, "docs/cli/%s is no page of a command; regenerate: %s", name, regenerateDocs)
		}
		for name, body := range want {
			have, ok := got[name]
			if !assert.True(t, ok, "docs/cli/%s is missing; regenerate: %s", name, regenerateDocs) {
				continue
			}
			assert.Equal(t, body, have, "docs/cli/%s differs from what the commands generate; regenerate: %s", name, regenerateDocs)
		}
	})
	t.Run("configuration", func(t *testing.T) {
		page, err := os.ReadFile(configurationPage)
		require.NoError(t, err)
		got, err := between(string(page), configTableBegin, configTableEnd)
		require.NoError(t, err)
		assert.Equal(t, table, got, "the configuration table of docs/configuration.md differs from configKeys; regenerate: %s", regenerateDocs)
	})
}

// writeCLIDocs writes one markdown page per command into dir, with cobra's
// own generator. The generator's date line is off so the pages are stable.
func writeCLIDocs(dir string) error {
	root := newRootCmd(nil, nil)
	var noDate func(*cobra.Command)
	noDate = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			noDate(sub)
		}
	}
	noDate(root)
	return doc.GenMarkdownTree(root, dir)
}

// configTable renders the table of every serve flag, environment variable
// and config key with its default and meaning, one row per row of keys, in
// their order. It refuses a table it cannot render faithfully.
func configTable(keys []configKey) (string, error) {
	var b strings.Builder
	b.WriteString("| Flag | Environment | Config key | Default | Meaning |\n|---|---|---|---|---|\n")
	row := func(flagName, env, key, def, meaning string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", flagName, env, key, def, strings.ReplaceAll(meaning, "|", `\|`))
	}
	var problems []string
	seenKey, seenFlag := map[string]bool{}, map[string]bool{}
	for _, k := range keys {
		name := k.Key
		if name == "" {
			name = "--" + k.Flag
		}
		if k.Key != "" && seenKey[k.Key] || k.Flag != "" && seenFlag[k.Flag] {
			problems = append(problems, fmt.Sprintf("%s is in the table twice", name))
		}
		seenKey[k.Key], seenFlag[k.Flag] = true, true
		if k.Usage == "" {
			problems = append(problems, fmt.Sprintf("%s has no usage: say what it does", name))
		}
		if k.Flag != "" {
			switch k.Default.(type) {
			case string, []string, time.Duration, int, int64, bool:
			default:
				problems = append(problems, fmt.Sprintf("%s: a flag cannot take a default of type %T", name, k.Default))
			}
		}
		dashed := strings.ReplaceAll(k.Key, "_", "-")
		switch {
		case k.Key == "": // --config names the file; it is no key of it
			if k.Flag == "" {
				problems = append(problems, "a row has neither key nor flag")
			}
			row("`--"+k.Flag+"`", "`"+k.envName()+"`", "(none)", "(none)", k.Usage+k.More)
		case k.Off:
			if k.Default != true || k.Flag != "no-"+dashed {
				problems = append(problems, fmt.Sprintf("--%s turns %s off: its flag is --no-%s and its default true (it is %v)", k.Flag, k.Key, dashed, k.Default))
			}
			row("`--"+k.Flag+"`", "`"+k.envName()+"=false`", "`"+k.Key+": false`", "`true`", k.Usage+k.More)
		default:
			flagName, env := "(none)", "`"+k.envName()+"`"
			if k.Flag != "" {
				flagName = "`--" + k.Flag + "`"
				if k.Flag != dashed {
					problems = append(problems, fmt.Sprintf("the flag of %s is --%s, not --%s", k.Key, dashed, k.Flag))
				}
			}
			if k.FileOnly {
				env = "(config file only)"
			}
			row(flagName, env, "`"+k.Key+"`", showDefault(k), k.Usage+k.More)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return "", fmt.Errorf("the configuration table cannot be generated:\n%s", strings.Join(problems, "\n"))
	}
	return b.String(), nil
}

// showDefault renders a row's default for the table.
func showDefault(k configKey) string {
	if k.Shown != "" {
		return k.Shown
	}
	switch d := k.Default.(type) {
	case []string:
		if len(d) == 0 {
			return "(none)"
		}
		return "`" + strings.Join(d, ",") + "`"
	case []any:
		if len(d) == 0 {
			return "(none)"
		}
		return fmt.Sprintf("`%v`", d)
	case string:
		if d == "" {
			return "(none)"
		}
	case time.Duration:
		return "`" + app.ShortDuration(d) + "`"
	}
	return fmt.Sprintf("`%v`", k.Default)
}

// between returns what lies between the lines begin and end of s.
func between(s, begin, end string) (string, error) {
	i := strings.Index(s, begin+"\n")
	j := strings.Index(s, "\n"+end)
	if i < 0 || j < i {
		return "", fmt.Errorf("markers %q and %q not found in order", begin, end)
	}
	return s[i+len(begin)+1 : j+1], nil
}

// replaceBetween puts body between the lines begin and end of s.
func replaceBetween(s, begin, end, body string) (string, error) {
	i := strings.Index(s, begin+"\n")
	j := strings.Index(s, "\n"+end)
	if i < 0 || j < i {
		return "", fmt.Errorf("markers %q and %q not found in order", begin, end)
	}
	return s[:i+len(begin)+1] + body + s[j+1:], nil
}

// readDir reads every file of dir by name.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return map[string]string{}
	}
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = string(b)
	}
	return out
}

// TestConfigTableGenerator: the generator renders every row of configKeys
// and refuses a row it cannot describe, so the table can only be
// regenerated, never drift.
func TestConfigTableGenerator(t *testing.T) {
	table, err := configTable(configKeys)
	require.NoError(t, err)
	for _, want := range []string{"| `--addr` | `PAYSANDBOX_ADDR` | `addr` | `127.0.0.1:8080` |", "| `--no-default-tenant` | `PAYSANDBOX_DEFAULT_TENANT=false` | `default_tenant: false` | `true` |",
		"| `--config` | `PAYSANDBOX_CONFIG` | (none) | (none) | config file (YAML) |",
		"| `--request-timeout` | `PAYSANDBOX_REQUEST_TIMEOUT` | `request_timeout` | `90s` |", "| `--idle-timeout` | `PAYSANDBOX_IDLE_TIMEOUT` | `idle_timeout` | `60s` |",
		"| (none) | `PAYSANDBOX_WEBHOOK_TIMEOUT` | `webhook_timeout` | `10s` |", "| (none) | (config file only) | `tenants` | (none) |", `always \| everysecond \| never`} {
		assert.Contains(t, table, want)
	}
	assert.Equal(t, len(configKeys), strings.Count(table, "\n")-2, "one row per row of configKeys")

	with := func(k configKey) []configKey { return append(slices.Clone(configKeys), k) }
	tests := []struct {
		name string
		keys []configKey
		want string
	}{
		{"undescribed key", with(configKey{Key: "brand_new_key", Default: "x"}), "brand_new_key has no usage"},
		{"twice", with(configKey{Key: "addr", Flag: "addr", Default: "x", Usage: "u"}), "addr is in the table twice"},
		{"flag misnamed", with(configKey{Key: "brand_new_key", Flag: "brand-key", Default: "x", Usage: "u"}), "the flag of brand_new_key is --brand-new-key, not --brand-key"},
		{"off flag of a false default", with(configKey{Key: "brand_new_key", Flag: "no-brand-new-key", Off: true, Default: false, Usage: "u"}), "--no-brand-new-key turns brand_new_key off"},
		{"flag type", with(configKey{Key: "brand_new_key", Flag: "brand-new-key", Default: 1.5, Usage: "u"}), "brand_new_key: a flag cannot take a default of type float64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := configTable(tc.keys)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("defaults", func(t *testing.T) {
		tests := []struct {
			key  configKey
			want string
		}{
			{configKey{Default: []string{"127.0.0.0/8", "10.0.0.0/8"}}, "`127.0.0.0/8,10.0.0.0/8`"},
			{configKey{Default: []string{}}, "(none)"},
			{configKey{Default: []any{}}, "(none)"},
			{configKey{Default: ""}, "(none)"},
			{configKey{Default: "", Shown: "(built in)"}, "(built in)"},
			{configKey{Default: 90 * time.Second}, "`90s`"},
			{configKey{Default: 60 * time.Second}, "`60s`"},
			{configKey{Default: 5 * time.Minute}, "`5m`"},
			{configKey{Default: 7 * 24 * time.Hour}, "`168h`"},
			{configKey{Default: 1500 * time.Millisecond}, "`1.5s`"},
			{configKey{Default: int64(64 << 20)}, "`67108864`"},
		}
		for _, tc := range tests {
			assert.Equal(t, tc.want, showDefault(tc.key), "%v", tc.key.Default)
		}
	})
	t.Run("markers", func(t *testing.T) {
		page := "intro\n" + configTableBegin + "\nold\n" + configTableEnd + "\nafter\n"
		got, err := replaceBetween(page, configTableBegin, configTableEnd, "new\nrows\n")
		require.NoError(t, err)
		assert.Equal(t, "intro\n"+configTableBegin+"\nnew\nrows\n"+configTableEnd+"\nafter\n", got)
		body, err := between(got, configTableBegin, configTableEnd)
		require.NoError(t, err)
		assert.Equal(t, "new\nrows\n", body)
		_, err = between("no markers", configTableBegin, configTableEnd)
		assert.Error(t, err)
	})
}

// TestConfigurationNamesEveryVariable: docs/configuration.md names every
// PAYSANDBOX_* variable the program reads: one per config key, and every
// one the commands' code names (client defaults, the health check).
func TestConfigurationNamesEveryVariable(t *testing.T) {
	page, err := os.ReadFile(configurationPage)
	require.NoError(t, err)
	names := map[string]string{}
	for _, k := range configKeys {
		if !k.FileOnly {
			names[k.envName()] = "config key " + k.Key
		}
	}
	literal := regexp.MustCompile(`"(PAYSANDBOX_[A-Z0-9_]*[A-Z0-9])`)
	for p, src := range goSources(t) {
		for _, m := range literal.FindAllStringSubmatch(src, -1) {
			names[m[1]] = p
		}
	}
	require.Contains(t, names, "PAYSANDBOX_URL")
	for name, from := range names {
		assert.True(t, bytes.Contains(page, []byte("`"+name)), "docs/configuration.md names %s (from %s)", name, from)
	}
}
