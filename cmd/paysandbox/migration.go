package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func newMigrationCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "migration",
		Short:   "Summarise what changes on API 2.4 for the requests made with 2.1-2.3 (per kind and variant) and for the tenant's webhook bodies",
		Example: "  paysandbox migration\n  paysandbox migration --output json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/migration"}, migrationTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

// migrationTable prints GET /_sandbox/migration: the older versions' dates,
// each note with its variants, and what the webhook bodies lack.
func migrationTable(w io.Writer, v map[string]any) error {
	day := func(x any) string { return strings.SplitN(cell(x), "T", 2)[0] }
	fmt.Fprintf(w, "API 2.1-2.3: deprecated since %s, sunset %s (production answers 410 after it)\n", day(v["deprecation"]), day(v["sunset"]))
	rows, _ := v["items"].([]any)
	if len(rows) == 0 {
		fmt.Fprintln(w, "no migration notes: no request made with 2.1-2.3 behaved unlike 2.4")
	}
	for _, r := range rows {
		m, _ := r.(map[string]any)
		fmt.Fprintf(w, "%s (%s, %s .. %s)\n  %s\n", cell(m["kind"]), cell(m["count"]), cell(m["firstSeen"]), cell(m["lastSeen"]), cell(m["description"]))
		vs, _ := m["variants"].([]any)
		for _, x := range vs {
			vr, _ := x.(map[string]any)
			fmt.Fprintf(w, "  %s x %s\n", cell(vr["count"]), cell(vr["description"]))
		}
		fmt.Fprintf(w, "  ids: %s\n", strings.Join(cellsOf(m["exampleRequestIds"]), " "))
	}
	wh, _ := v["webhooks"].(map[string]any)
	diffs, _ := wh["differences"].([]any)
	if len(diffs) == 0 {
		_, err := fmt.Fprintf(w, "webhook bodies: version %s, as 2.4's\n", cell(wh["version"]))
		return err
	}
	fmt.Fprintf(w, "webhook bodies: version %s, unlike 2.4's:\n", cell(wh["version"]))
	for _, x := range diffs {
		d, _ := x.(map[string]any)
		fmt.Fprintf(w, "  %s %s: %s\n", cell(d["member"]), cell(d["kind"]), cell(d["why"]))
	}
	return nil
}

// cellsOf is a JSON array's items as cells.
func cellsOf(v any) []string {
	xs, _ := v.([]any)
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, cell(x))
	}
	return out
}
