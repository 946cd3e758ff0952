package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Report formats and the kinds --fail-on names.
var (
	reportFormats = []string{"json", "junit", "markdown"}
	reportKinds   = []string{"hints", "webhooks", "migration"}
)

type reportOptions struct {
	Client clientOptions
	Format string
	File   string   // --output: where the report goes ("" or "-": stdout)
	FailOn []string // kinds that fail the command when present
}

func newReportCmd(deps *cliDeps, runF func(*reportOptions) error) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Write the tenant's CI report (routes, rules, webhooks, hints, migration notes) as JSON, JUnit XML or markdown",
		Long: "Write the tenant's CI report (GET /_sandbox/report): requests by route and status, the scenario rules\n" +
			"that matched and those that never did, webhook deliveries per endpoint, the hints raised and the\n" +
			"migration notes of API 2.1-2.3. --fail-on exits 1 when one of the named kinds is present (hints\n" +
			"raised, webhook events exhausted, migration notes); the report is written first.",
		Example: "  paysandbox report --format junit --output paysandbox-junit.xml --fail-on hints,webhooks\n" +
			"  paysandbox report --format markdown >> \"$GITHUB_STEP_SUMMARY\"",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// --output table|json as on every other client command: stdout,
			// in the human (markdown) or the JSON form, not a file so named
			if o.File == "table" || o.File == "json" {
				if !cmd.Flags().Changed("format") {
					o.Format = map[string]string{"table": "markdown", "json": "json"}[o.File]
				}
				o.File = ""
			}
			if !contains(reportFormats, o.Format) {
				return usageErrorf("--format %q is not %s", o.Format, strings.Join(reportFormats, ", "))
			}
			var kinds []string
			for _, k := range o.FailOn {
				for _, k := range strings.Split(k, ",") {
					k = strings.TrimSpace(k)
					if k == "" {
						continue
					}
					if !contains(reportKinds, k) {
						return usageErrorf("--fail-on %q is not one of %s", k, strings.Join(reportKinds, ", "))
					}
					kinds = append(kinds, k)
				}
			}
			o.FailOn = kinds
			if runF != nil {
				return runF(o)
			}
			return runReport(cmd, o)
		},
	}
	addConnectionFlags(cmd, &o.Client, deps)
	fs := cmd.Flags()
	fs.StringVar(&o.Format, "format", "json", "report format: "+strings.Join(reportFormats, " | "))
	fs.StringVarP(&o.File, "output", "o", "", "write the report to this file (default: stdout); table or json print to stdout as on the other commands (markdown or JSON unless --format says)")
	fs.StringSliceVar(&o.FailOn, "fail-on", nil, "exit 1 when any of these kinds is present: "+strings.Join(reportKinds, ", ")+" (comma-separated or repeated)")
	return cmd
}

func runReport(cmd *cobra.Command, o *reportOptions) error {
	ctx := ctxOf(cmd)
	get := func(format string) ([]byte, error) {
		return o.Client.do(ctx, request{Method: "GET", Path: "/_sandbox/report", Query: url.Values{"format": {format}}})
	}
	raw, err := get(o.Format)
	if err != nil {
		return err
	}
	out := raw
	if o.Format == "json" {
		var buf bytes.Buffer
		if err := json.Indent(&buf, bytes.TrimSpace(raw), "", "  "); err != nil {
			return &checkError{id: "BadAnswer", msg: "the sandbox answered something that is not JSON"}
		}
		buf.WriteByte('\n')
		out = buf.Bytes()
	}
	if o.File == "" || o.File == "-" {
		if _, err := o.Client.deps.Out.Write(out); err != nil {
			return err
		}
	} else if err := os.WriteFile(o.File, out, 0o644); err != nil {
		return &checkError{id: "WriteError", msg: err.Error()}
	}
	if len(o.FailOn) == 0 {
		return nil
	}
	if o.Format != "json" {
		if raw, err = get("json"); err != nil {
			return err
		}
	}
	return reportFailures(raw, o.FailOn)
}

// reportFailures is the failed check naming what the report holds of the
// given kinds (nil: none of them is present).
func reportFailures(raw []byte, kinds []string) error {
	var r struct {
		Summary struct {
			Hints             int64 `json:"hints"`
			WebhooksExhausted int64 `json:"webhooksExhausted"`
			MigrationNotes    int64 `json:"migrationNotes"`
		} `json:"summary"`
		Hints []struct {
			Kind  string `json:"kind"`
			Count int64  `json:"count"`
		} `json:"hints"`
		Migration []struct {
			Kind string `json:"kind"`
		} `json:"migration"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return &checkError{id: "BadAnswer", msg: "the sandbox's report is not JSON"}
	}
	var found []string
	for _, k := range kinds {
		switch {
		case k == "hints" && r.Summary.Hints > 0:
			var names []string
			for _, h := range r.Hints {
				names = append(names, fmt.Sprintf("%s x%d", h.Kind, h.Count))
			}
			found = append(found, fmt.Sprintf("hints: %d raised (%s)", r.Summary.Hints, strings.Join(names, ", ")))
		case k == "webhooks" && r.Summary.WebhooksExhausted > 0:
			found = append(found, fmt.Sprintf("webhooks: %d event(s) exhausted their delivery attempts", r.Summary.WebhooksExhausted))
		case k == "migration" && r.Summary.MigrationNotes > 0:
			var names []string
			for _, m := range r.Migration {
				names = append(names, m.Kind)
			}
			found = append(found, fmt.Sprintf("migration: %d request(s) behave differently on 2.4 (%s)", r.Summary.MigrationNotes, strings.Join(names, ", ")))
		}
	}
	if len(found) == 0 {
		return nil
	}
	return &checkError{id: "ReportFailed", msg: strings.Join(found, "; ")}
}
