package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator/clock"
)

func TestScenariosValidateCommand(t *testing.T) {
	dir := t.TempDir()
	tenantDoc := filepath.Join(dir, "tenant.yaml")
	require.NoError(t, os.WriteFile(tenantDoc, []byte("rules:\n  - { name: big, when: { amount: { min: 9000 } }, authorize: { status: DECLINED } }\n"), 0o644))
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("processors:\n  - { name: A, processorMerchantId: a }\nrules:\n  - name: x\n    when: { amount: { min: 9, max: 1 } }\n    latency: soon\n"), 0o644))
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"the shipped file", []string{"scenarios", "validate", "../../scenarios.yaml"}, 0, "../../scenarios.yaml: valid (24 rules, 3 processors, default STRIPE)\n", ""},
		{"problems on stderr with lines", []string{"scenarios", "validate", bad}, 1, "",
			bad + ":5: amount min 9 is greater than max 1, so the rule can never match\n" +
				bad + ":6: latency \"soon\" is not a duration like 30s, 1500ms or 2h\n"},
		{"a tenant's rules: processors from the built-in file", []string{"scenarios", "validate", tenantDoc}, 0,
			tenantDoc + ": valid (1 rules, 3 processors, default STRIPE)\n  processors and defaultProcessor come from the built-in scenarios.yaml, as for a tenant's rules (a --scenarios file for serve needs its own)\n", ""},
		{"missing file", []string{"scenarios", "validate", filepath.Join(dir, "nope.yaml")}, 1, "", "no such file"},
		{"no file", []string{"scenarios", "validate"}, 2, "", "accepts 1 arg(s)"},
		{"two files", []string{"scenarios", "validate", "a", "b"}, 2, "", "usage: paysandbox scenarios validate FILE"},
		{"unknown subcommand", []string{"scenarios", "bogus"}, 2, "", "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runCLI(tt.args, defaultDeps(&out, &errOut))
			assert.Equal(t, tt.code, code, "stderr: %s", errOut.String())
			assert.Equal(t, tt.out, out.String())
			assert.True(t, strings.Contains(errOut.String(), tt.err), "stderr %q lacks %q", errOut.String(), tt.err)
		})
	}
}

// TestScenariosFileAndReload: --scenarios replaces the built-in rules; a
// missing or invalid file stops the start; a reload with a bad file keeps
// the old rules.
func TestScenariosFileAndReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sc.yaml")
	require.NoError(t, os.WriteFile(file, []byte("processors:\n  - { name: ACME, processorMerchantId: acme }\nrules:\n  - { name: all-declined, authorize: { status: DECLINED } }\n"), 0o644))

	cfg := testConfig()
	cfg.Scenarios = filepath.Join(dir, "missing.yaml")
	_, err := Open(cfg, AppOptions{})
	require.ErrorContains(t, err, "missing.yaml")
	cfg.Scenarios = filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(cfg.Scenarios, []byte("rules:\n  - name: x\n    bogus: 1\n"), 0o644))
	_, err = Open(cfg, AppOptions{})
	require.ErrorContains(t, err, `bad.yaml:1: processors is missing`)
	require.ErrorContains(t, err, `bad.yaml:3: unknown key "bogus" in rule "x"`)

	cfg.Scenarios = file
	a := startApp(t, cfg)
	p := a.payFull(1000, visa, nil)
	assert.Equal(t, "DECLINED", p.Str("status"))
	assert.Equal(t, "ACME", txns(p.JSON)[0]["processorName"])

	require.NoError(t, os.WriteFile(file, []byte("rules: [\n"), 0o644))
	require.Error(t, a.ReloadScenarios())
	assert.Equal(t, "DECLINED", a.payFull(1000, visa, nil).Str("status"), "the old rules stay")
	require.NoError(t, os.WriteFile(file, []byte("processors:\n  - { name: ACME, processorMerchantId: acme }\nrules: []\n"), 0o644))
	require.NoError(t, a.ReloadScenarios())
	assert.Equal(t, "AUTHORIZED", a.payFull(1000, visa, nil).Str("status"))
}

// TestScenarioTenantRulesSurviveRestart: a tenant's rules are stored with it.
func TestScenarioTenantRulesSurviveRestart(t *testing.T) {
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "db")
	clk := clock.NewManual(testEpoch)
	a, stop := startOn(t, cfg, clk)
	require.Equal(t, 200, a.putRules("rules:\n  - { name: nope, authorize: { status: FAILED } }\n").Status)
	stop()
	b, _ := startOn(t, cfg, clk)
	assert.Equal(t, "FAILED", b.payFull(1000, visa, nil).Str("status"))
}
