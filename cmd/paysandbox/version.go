package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func versionString() string {
	return fmt.Sprintf("paysandbox %s (commit %s, built %s)", version, commit, date)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionString())
			return err
		},
	}
}
