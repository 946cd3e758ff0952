package main

import "github.com/spf13/cobra"

func newResetCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "reset",
		Short:   "Delete the tenant's data, clock offset, jobs, events and journal (keys and settings stay)",
		Example: "  PAYSANDBOX_API_KEY=sk_... paysandbox reset",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/reset"}, objectTable(true, "tenantId", "status"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}
