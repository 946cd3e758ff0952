package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func newHintsCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "hints",
		Short:   "Summarise the integration mistakes the journal saw, per kind, with a fix",
		Example: "  paysandbox hints\n  paysandbox hints --output json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/hints"},
				func(w io.Writer, v map[string]any) error {
					rows, _ := v["data"].([]any)
					if len(rows) == 0 {
						_, err := fmt.Fprintln(w, "no hints: nothing production would punish was seen")
						return err
					}
					for _, r := range rows {
						m, _ := r.(map[string]any)
						ids, _ := m["latestRequestIds"].([]any)
						if len(ids) == 0 {
							ids, _ = m["latestEventIds"].([]any)
						}
						latest := make([]string, 0, len(ids))
						for _, id := range ids {
							latest = append(latest, cell(id))
						}
						fmt.Fprintf(w, "%s (%s)\n  last: %s\n  fix:  %s\n  ids:  %s\n", cell(m["kind"]), cell(m["count"]), cell(m["lastMessage"]), cell(m["fix"]), strings.Join(latest, " "))
					}
					return nil
				})
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}
