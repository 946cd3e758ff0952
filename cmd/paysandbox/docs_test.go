package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// keyDoc documents a config key beyond what its flag says. A key without a
// flag needs Meaning (the table has nowhere else to take it from).
type keyDoc struct {
	Meaning  string // for keys without a flag
	More     string // appended to the flag's usage
	Default  string // shown instead of the default's value (for "" that means something)
	FileOnly bool   // structured: only the config file can set it
}

// configKeyDocs: what the table says about keys beyond the flag usage
// strings. Every key here must exist (a stale entry fails the test).
var configKeyDocs = map[string]keyDoc{
	"scenarios":       {Default: "(built in)", More: "; a missing or invalid file stops the start with every problem as `file:line: sentence`; `SIGHUP` reloads it (a bad file is logged and the old rules stay)"},
	"request_timeout": {More: "; the work goes on. Accepts milliseconds (`250ms`) for CI; `0` disables"},
	"fsync":           {More: "; with `everysecond` each commit is written to the file before the response, so `kill -9` loses nothing (only a power cut can lose the last second)"},
	"log_format":      {More: "; one line per request: method, path, status, latency, tenant, and errorId + diagnosticsId on errors"},
	"read_timeout":    {More: ", counted from its first byte; long-polls and held requests are not cut once the body is in"},
	"default_tenant":  {More: "; on a store that has it from an earlier start its key is removed (its data stays)"},
	"tenants":         {Meaning: "tenants defined in the config file, (re)applied at every start (see [Tenants in the config file](#tenants-in-the-config-file))", FileOnly: true},

	"webhook_timeout":         {Meaning: "how long a webhook receiver may take to answer a delivery"},
	"webhook_retention_count": {Meaning: "delivered and exhausted webhook events kept per tenant (pending ones are never pruned)"},
	"webhook_retention_age":   {Meaning: "how long delivered and exhausted webhook events are kept, on the tenant's clock"},
}

// TestGeneratedDocs: docs/cli/ is byte for byte what cobra's doc generator
// makes of the commands, and the configuration table of
// docs/configuration.md is what configTable makes of the serve flags and
// the defaults. With -update-docs it rewrites both.
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
	table, err := configTable(defaults, configKeyDocs)
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
		assert.Equal(t, table, got, "the configuration table of docs/configuration.md differs from the flags and defaults; regenerate: %s", regenerateDocs)
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
// and config key with its default, from serveFlags, defs (config.go's
// defaults) and docs (configKeyDocs).
func configTable(defs map[string]any, docs map[string]keyDoc) (string, error) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SortFlags = false
	serveFlags(fs)

	var b strings.Builder
	b.WriteString("| Flag | Environment | Config key | Default | Meaning |\n|---|---|---|---|---|\n")
	row := func(flagName, env, key, def, meaning string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", flagName, env, key, def, strings.ReplaceAll(meaning, "|", `\|`))
	}
	var problems []string
	covered := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) {
		key := strings.ReplaceAll(f.Name, "-", "_")
		env := "`PAYSANDBOX_" + strings.ToUpper(key) + "`"
		if f.Name == "config" { // names the file; not a key of it
			row("`--config`", env, "(none)", "(none)", f.Usage)
			return
		}
		if inverted, ok := strings.CutPrefix(key, "no_"); ok && f.Value.Type() == "bool" {
			if d, isKey := defs[inverted]; isKey { // --no-X sets X: false
				covered[inverted] = true
				if d != true {
					problems = append(problems, fmt.Sprintf("--%s turns %s off, but its default is %v, not true", f.Name, inverted, d))
				}
				row("`--"+f.Name+"`", "`PAYSANDBOX_"+strings.ToUpper(inverted)+"=false`", "`"+inverted+": false`", "`true`", f.Usage+docs[inverted].More)
				return
			}
		}
		d, ok := defs[key]
		if !ok {
			problems = append(problems, fmt.Sprintf("--%s has no default in the defaults map of config.go (config key %s)", f.Name, key))
			return
		}
		covered[key] = true
		if msg := sameDefault(f, d); msg != "" {
			problems = append(problems, msg)
		}
		kd := docs[key]
		row("`--"+f.Name+"`", env, "`"+key+"`", showDefault(d, kd), f.Usage+kd.More)
	})
	var rest []string
	for k := range defs {
		if !covered[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		kd := docs[k]
		if kd.Meaning == "" {
			problems = append(problems, fmt.Sprintf("config key %s has no flag: describe it in configKeyDocs (cmd/paysandbox/docs_test.go)", k))
			continue
		}
		env := "`PAYSANDBOX_" + strings.ToUpper(k) + "`"
		if kd.FileOnly {
			env = "(config file only)"
		}
		row("(none)", env, "`"+k+"`", showDefault(defs[k], kd), kd.Meaning)
	}
	for k := range docs {
		if _, ok := defs[k]; !ok {
			problems = append(problems, fmt.Sprintf("configKeyDocs describes %s, which is no config key", k))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return "", fmt.Errorf("the configuration table cannot be generated:\n%s", strings.Join(problems, "\n"))
	}
	return b.String(), nil
}

// showDefault renders a default of the defaults map for the table.
func showDefault(d any, kd keyDoc) string {
	if kd.Default != "" {
		return kd.Default
	}
	if list, ok := listOf(d); ok {
		if len(list) == 0 {
			return "(none)"
		}
		return "`" + strings.Join(list, ",") + "`"
	}
	if v, ok := d.(string); ok && v == "" {
		return "(none)"
	}
	return fmt.Sprintf("`%v`", d)
}

// listOf returns the elements of a list default as text.
func listOf(d any) ([]string, bool) {
	switch v := d.(type) {
	case []string:
		return v, true
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			out[i] = fmt.Sprint(e)
		}
		return out, true
	}
	return nil, false
}

// sameDefault reports (as a problem) a flag whose own default is not the
// defaults map's: the map is what serve uses, the flag is what --help shows.
func sameDefault(f *pflag.Flag, d any) string {
	want, have := fmt.Sprint(d), f.DefValue
	if list, ok := listOf(d); ok { // pflag shows a list as [a,b]
		want, have = strings.Join(list, ","), strings.TrimSuffix(strings.TrimPrefix(have, "["), "]")
	}
	if f.Value.Type() == "duration" {
		if s, ok := d.(string); ok {
			if dur, err := time.ParseDuration(s); err == nil {
				want = dur.String()
			}
		}
	}
	if have != want {
		return fmt.Sprintf("--%s defaults to %q, but the defaults map says %q", f.Name, f.DefValue, want)
	}
	return ""
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

// TestConfigTableGenerator: the generator refuses a key it cannot describe
// and a flag whose default disagrees with the defaults map, so the table
// can only be regenerated, never drift.
func TestConfigTableGenerator(t *testing.T) {
	table, err := configTable(defaults, configKeyDocs)
	require.NoError(t, err)
	for _, want := range []string{"| `--addr` | `PAYSANDBOX_ADDR` | `addr` | `127.0.0.1:8080` |", "| `--no-default-tenant` | `PAYSANDBOX_DEFAULT_TENANT=false` | `default_tenant: false` | `true` |",
		"| (none) | `PAYSANDBOX_WEBHOOK_TIMEOUT` | `webhook_timeout` | `10s` |", "| (none) | (config file only) | `tenants` | (none) |", `always \| everysecond \| never`} {
		assert.Contains(t, table, want)
	}
	assert.Equal(t, len(defaults)+1, strings.Count(table, "\n")-2, "one row per config key, plus --config")

	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for k, v := range defaults {
			m[k] = v
		}
		m[k] = v
		return m
	}
	tests := []struct {
		name string
		defs map[string]any
		docs map[string]keyDoc
		want string
	}{
		{"undescribed key", with("brand_new_key", "x"), configKeyDocs, "config key brand_new_key has no flag"},
		{"defaults disagree", with("addr", ":9999"), configKeyDocs, `--addr defaults to "127.0.0.1:8080", but the defaults map says ":9999"`},
		{"duration disagrees", with("request_timeout", "60s"), configKeyDocs, `--request-timeout defaults to "1m30s", but the defaults map says "1m0s"`},
		{"stale description", defaults, map[string]keyDoc{"gone_key": {Meaning: "x"}, "webhook_timeout": {Meaning: "x"}, "webhook_retention_count": {Meaning: "x"}, "webhook_retention_age": {Meaning: "x"}, "tenants": {Meaning: "x"}}, "configKeyDocs describes gone_key, which is no config key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := configTable(tc.defs, tc.docs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("lists", func(t *testing.T) {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.StringSlice("trusted", []string{"127.0.0.0/8", "10.0.0.0/8"}, "")
		fs.StringSlice("allow", nil, "")
		assert.Empty(t, sameDefault(fs.Lookup("trusted"), []string{"127.0.0.0/8", "10.0.0.0/8"}))
		assert.Empty(t, sameDefault(fs.Lookup("allow"), []any{}))
		assert.NotEmpty(t, sameDefault(fs.Lookup("trusted"), []string{"127.0.0.0/8"}))
		assert.Equal(t, "`127.0.0.0/8,10.0.0.0/8`", showDefault([]string{"127.0.0.0/8", "10.0.0.0/8"}, keyDoc{}))
		assert.Equal(t, "(none)", showDefault([]any{}, keyDoc{}))
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
	for k := range defaults {
		if !configKeyDocs[k].FileOnly {
			names["PAYSANDBOX_"+strings.ToUpper(k)] = "config key " + k
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
