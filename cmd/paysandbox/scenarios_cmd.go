package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/scenarios"
)

// exitError carries the process exit status of a failed command (1: a
// failed check or API error, 2: a usage error).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitCode is the exit status for an error returned by Execute.
func exitCode(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return 1
}

// usageArgs is cobra.ExactArgs(n) whose failure exits 2.
func usageArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("%w\nUsage: %s", err, cmd.UseLine())}
		}
		return nil
	}
}

// newScenariosCmd is the `scenarios` parent; its client subcommands (list,
// explain, apply) are added next to validate.
func newScenariosCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "Check and manage the scenario rules that decide processor outcomes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return &exitError{code: 2, err: fmt.Errorf("a subcommand is required\n%s", cmd.UsageString())}
		},
	}
	cmd.AddCommand(newScenariosValidateCmd(nil))
	return cmd
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
		Args:  usageArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			data, err := os.ReadFile(opts.File)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			doc, err := scenarios.Load(opts.File, data, nil)
			var le *scenarios.Error
			if errors.As(err, &le) {
				for _, line := range le.Lines() {
					fmt.Fprintln(cmd.ErrOrStderr(), line)
				}
				return &exitError{code: 1, err: fmt.Errorf("%s: %d problem(s)", opts.File, len(le.Problems))}
			}
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: valid (%d rules, %d processors, default %s)\n",
				opts.File, len(doc.Rules), len(doc.Processors), doc.DefaultProcessor)
			return nil
		},
	}
}
