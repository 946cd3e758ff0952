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
		Short:   "Summarise what changes on API 2.4 for the requests made with 2.1-2.3, per kind",
		Example: "  paysandbox migration\n  paysandbox migration --output json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/migration"},
				func(w io.Writer, v map[string]any) error {
					rows, _ := v["items"].([]any)
					if len(rows) == 0 {
						_, err := fmt.Fprintln(w, "no migration notes: no request made with 2.1-2.3 behaved unlike 2.4")
						return err
					}
					for _, r := range rows {
						m, _ := r.(map[string]any)
						ids, _ := m["exampleRequestIds"].([]any)
						examples := make([]string, 0, len(ids))
						for _, id := range ids {
							examples = append(examples, cell(id))
						}
						fmt.Fprintf(w, "%s (%s, %s .. %s)\n  %s\n  ids: %s\n", cell(m["kind"]), cell(m["count"]), cell(m["firstSeen"]), cell(m["lastSeen"]), cell(m["description"]), strings.Join(examples, " "))
					}
					return nil
				})
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}
