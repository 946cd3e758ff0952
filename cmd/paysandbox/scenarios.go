package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/scenarios"
	"github.com/paysandbox/paysandbox/simulator"
)

// usageArgs is cobra.ExactArgs(n) whose failure is a usage error (exit 2).
func usageArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageErrorf("%v; usage: %s", err, cmd.UseLine())
		}
		return nil
	}
}

type scenariosValidateOptions struct {
	File string
}

// newScenariosValidateCmd checks a scenarios file offline (no server): exit 0
// and "FILE: N rules, M processors" when valid; exit 1 with one
// "FILE:LINE: sentence" per problem on stderr otherwise; exit 2 on usage.
func newScenariosValidateCmd(runF func(*scenariosValidateOptions) error) *cobra.Command {
	opts := &scenariosValidateOptions{}
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a scenarios file (no server needed): every problem with its line",
		Example: "  paysandbox scenarios validate scenarios.yaml\n" +
			"  paysandbox scenarios validate my-rules.yaml && paysandbox scenarios apply my-rules.yaml",
		Args: usageArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			data, err := os.ReadFile(opts.File)
			if err != nil {
				return err
			}
			// Like PUT /_sandbox/scenarios: processors and defaultProcessor
			// left out come from the built-in file.
			doc, err := scenarios.Load(opts.File, data, processors.DefaultDoc())
			var le *scenarios.Error
			if errors.As(err, &le) {
				for _, line := range le.Lines() {
					fmt.Fprintln(cmd.ErrOrStderr(), line)
				}
				return fmt.Errorf("%s: %s: %d problem(s)", simulator.CodeScenarioValidationError, opts.File, len(le.Problems))
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: valid (%d rules, %d processors, default %s)\n",
				opts.File, len(doc.Rules), len(doc.Processors), doc.DefaultProcessor)
			if !scenarios.HasProcessors(data) {
				fmt.Fprintln(cmd.OutOrStdout(), "  processors and defaultProcessor come from the built-in scenarios.yaml, as for a tenant's rules (a --scenarios file for serve needs its own)")
			}
			return nil
		},
	}
}
