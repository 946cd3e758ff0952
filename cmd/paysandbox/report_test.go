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

// TestReportOutputAsFormat: --output table|json, as on the other client
// commands, prints to stdout in the human (markdown) or JSON form instead of
// writing a file named "table" or "json"; --format still wins.
func TestReportOutputAsFormat(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		format, file string
	}{
		{[]string{"--output", "table"}, "markdown", ""},
		{[]string{"-o", "json"}, "json", ""},
		{[]string{"--output", "json", "--format", "junit"}, "junit", ""},
		{[]string{"--output", "r.xml", "--format", "junit"}, "junit", "r.xml"},
	} {
		deps, _, errOut := testDeps(nil)
		var got *reportOptions
		cmd := newReportCmd(deps, func(o *reportOptions) error { got = o; return nil })
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		cmd.SetArgs(tc.args)
		require.Equal(t, exitOK, reportError(errOut, cmd.Execute()), errOut.String())
		assert.Equal(t, tc.format, got.Format, "%v", tc.args)
		assert.Equal(t, tc.file, got.File, "%v", tc.args)
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

// TestReportWebhooks: a receiver answering 500 until the events are
// exhausted shows in the report as a failing webhook case (and the
// webhook-non-2xx hint with its event ids), and --fail-on webhooks exits 1.
func TestReportWebhooks(t *testing.T) {
	a := startApp(t, testConfig()).asNewTenant()
	rc := newReceiver(t, answer(500))
	a.setEndpoint(rc.URL)
	pid := a.pay(1000, "4111111111111111").Str("id")
	var evs []map[string]any
	for range 3 { // one payment's events go one at a time
		a.advance("1ns")
		for _, d := range []string{"10s", "1m", "5m", "10m", "15m"} {
			a.advance(d)
		}
		evs = a.events(pid)
	}
	require.NotEmpty(t, evs)
	for _, ev := range evs {
		require.Equal(t, "EXHAUSTED", ev["status"])
	}

	r := a.must(200, "GET", "/_sandbox/report", nil)
	hooks := dig(r.JSON, "webhooks").([]any)
	require.Len(t, hooks, 1)
	assert.Equal(t, rc.URL, dig(hooks[0], "url"))
	assert.EqualValues(t, len(evs), dig(hooks[0], "exhausted"))
	assert.EqualValues(t, 5*len(evs), dig(hooks[0], "retried"))
	assert.EqualValues(t, 0, dig(hooks[0], "delivered"))
	assert.Len(t, dig(hooks[0], "exhaustedEvents"), len(evs))

	code, out, errOut := cliRun(t, a, nil, "report", "--format", "junit", "--fail-on", "webhooks")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "Error: ReportFailed: webhooks: ")
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal([]byte(out), &doc), out)
	failed := map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				failed[s.Name+" "+c.Name] = c.Failure.Text
			}
		}
	}
	assert.Contains(t, failed["paysandbox.webhooks deliveries to "+rc.URL], evs[0]["id"].(string))
	assert.Contains(t, failed["paysandbox.hints webhook-non-2xx"], evs[0]["id"].(string))
}
