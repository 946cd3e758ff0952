package main

import (
	"io"

	"github.com/spf13/cobra"
)

// newRootCmd builds the command tree; no package-level commands, no init().
func newRootCmd(out, errOut io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "paysandbox",
		Short:         "A sandbox of the payment orchestration API v2.4 for merchant integrations",
		SilenceUsage:  true,
		SilenceErrors: false,
	}
	root.SetOut(out)
	root.SetErr(errOut)
	root.AddCommand(
		newServeCmd(nil),
		newVersionCmd(),
		newHealthcheckCmd(nil),
		newBenchCmd(nil),
	)
	addClientCommands(root, defaultDeps(out, errOut))
	return root
}
