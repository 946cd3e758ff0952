package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportFlags: --format and --fail-on are checked before any request
// (a usage error, exit 2); --fail-on takes a comma list or repeats.
func TestReportFlags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		failOn []string
	}{
		{"defaults", nil, exitOK, nil},
		{"comma list", []string{"--fail-on", "hints,webhooks"}, exitOK, []string{"hints", "webhooks"}},
		{"repeated", []string{"--fail-on", "migration", "--fail-on", "hints"}, exitOK, []string{"migration", "hints"}},
		{"unknown kind", []string{"--fail-on", "hints,bogus"}, exitUsage, nil},
		{"unknown format", []string{"--format", "xml"}, exitUsage, nil},
		{"table output is no format here", []string{"--output"}, exitUsage, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deps, _, errOut := testDeps(nil)
			var got *reportOptions
			cmd := newReportCmd(deps, func(o *reportOptions) error { got = o; return nil })
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			cmd.SetArgs(tc.args)
			code := reportError(errOut, cmd.Execute())
			require.Equal(t, tc.code, code, errOut.String())
			if code == exitOK {
				assert.Equal(t, tc.failOn, got.FailOn)
				assert.Equal(t, "json", got.Format)
			}
		})
	}
}

// TestReportCommand: report writes the report in the chosen format (to a
// file with --output); --fail-on exits 1 naming what it found when a named
// kind is present, 0 otherwise, and migration notes fail nothing unless
// named.
func TestReportCommand(t *testing.T) {
	a := newTestApp(t).asNewTenant()
	code, out, errOut := cliRun(t, a, nil, "report", "--fail-on", "hints,webhooks,migration")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"tenantId"`)

	a.req("GET", "/payments", nil, "X-API-VERSION:") // missing-api-version
	a.req("POST", "/payment-attempts/00000000-0000-4000-8000-000000000001/approve", nil, "X-API-VERSION: 2.2")

	code, _, errOut = cliRun(t, a, nil, "report", "--fail-on", "webhooks")
	assert.Equal(t, exitOK, code, "nothing exhausted: %s", errOut)
	code, _, errOut = cliRun(t, a, nil, "report")
	assert.Equal(t, exitOK, code, "a migration note fails nothing unless named: %s", errOut)

	file := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut = cliRun(t, a, nil, "report", "--format", "junit", "--output", file, "--fail-on", "hints")
	assert.Equal(t, exitError, code)
	assert.Empty(t, out, "the report went to the file")
	assert.Contains(t, errOut, "Error: ReportFailed: hints: 1 raised (missing-api-version x1)")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	var doc struct {
		Failures int `xml:"failures,attr"`
	}
	require.NoError(t, xml.Unmarshal(raw, &doc), "the report is written before failing")
	assert.Equal(t, 1, doc.Failures)

	code, _, errOut = cliRun(t, a, nil, "report", "--format", "markdown", "--fail-on", "migration")
	assert.Equal(t, exitError, code)
	assert.True(t, strings.HasPrefix(errOut, "Error: ReportFailed: migration: "), errOut)
}
