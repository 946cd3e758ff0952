package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/dashboard"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
)

// TestOpenAPIDashboardPages: the pages the document lists under the
// Dashboard tag are the dashboard's own (its entry, the checkout and the 3DS
// challenge page that the API's challengeUrl names): httpapi documents them
// without importing the dashboard.
func TestOpenAPIDashboardPages(t *testing.T) {
	b, err := httpapi.OpenAPIDocument(simulator.CurrentAPIVersion, httpapi.OpenAPIJSON, version)
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]struct {
			Tags []string `json:"tags"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	var pages []string
	for path, item := range doc.Paths {
		for _, op := range item {
			if len(op.Tags) == 1 && op.Tags[0] == "Dashboard" {
				pages = append(pages, path)
			}
		}
	}
	assert.ElementsMatch(t, []string{dashboard.Prefix + "/", dashboard.Prefix + "/checkout", dashboard.ChallengePagePath}, pages)
}

// TestOpenAPICmdFlags: the openapi command's flags, through runF.
func TestOpenAPICmdFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     openAPIOptions
		wantCode int
	}{
		{name: "defaults", want: openAPIOptions{Version: "2.4", Format: "json", Output: "-"}},
		{name: "all flags", args: []string{"--version", "2.2", "--format", "yaml", "-o", "doc.yaml", "--url", "http://sandbox:9000"},
			want: openAPIOptions{Version: "2.2", Format: "yaml", Output: "doc.yaml", URL: "http://sandbox:9000"}},
		{name: "unknown version", args: []string{"--version", "3.0"}, wantCode: exitUsage},
		{name: "unknown format", args: []string{"--format", "xml"}, wantCode: exitUsage},
		{name: "bad url", args: []string{"--url", "localhost:8080"}, wantCode: exitUsage},
		{name: "an argument", args: []string{"extra"}, wantCode: exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _, _ := testDeps(nil)
			var got *openAPIOptions
			cmd := newOpenAPICmd(d, func(o *openAPIOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(d.Out)
			cmd.SetErr(d.Err)
			cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
			err := cmd.Execute()
			if tc.wantCode != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.wantCode, exitCodeOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, *got)
		})
	}
}

// TestOpenAPICmd: without a server the command prints this binary's
// document; --output writes it to a file; --url fetches the one a running
// sandbox serves, and an unknown version there is an API error (exit 1).
func TestOpenAPICmd(t *testing.T) {
	want := func(v simulator.APIVersion, format string) string {
		b, err := httpapi.OpenAPIDocument(v, format, currentBuild().Version)
		require.NoError(t, err)
		return string(b)
	}
	t.Setenv("PAYSANDBOX_URL", "http://127.0.0.1:1") // never dialled without --url
	run := func(args ...string) (int, string, string) {
		d, out, errOut := testDeps(nil)
		code := runCLI(append([]string{"openapi"}, args...), d)
		return code, out.String(), errOut.String()
	}
	code, out, errOut := run()
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, want(simulator.V24, "json"), out)

	code, out, _ = run("--version", "2.1", "--format", "yaml")
	require.Equal(t, 0, code)
	assert.Equal(t, want(simulator.V21, "yaml"), out)

	file := filepath.Join(t.TempDir(), "openapi.yaml")
	code, out, _ = run("--format", "yaml", "--output", file)
	require.Equal(t, 0, code)
	assert.Empty(t, out)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, want(simulator.V24, "yaml"), string(b))

	a := newTestApp(t)
	code, out, errOut = run("--url", a.URL(), "--version", "2.3")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, want(simulator.V23, "json"), out)
}
