package main

import (
	"github.com/spf13/cobra"
)

type completionOptions struct{ Shell string }

// newCompletionCmd prints a shell completion script (cobra's default command
// is off so that this one, with its examples, is the only one).
func newCompletionCmd() *cobra.Command {
	o := &completionOptions{}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script",
		Example: "  source <(paysandbox completion bash)\n" +
			"  paysandbox completion zsh > \"${fpath[1]}/_paysandbox\"\n" +
			"  paysandbox completion fish > ~/.config/fish/completions/paysandbox.fish",
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || !contains([]string{"bash", "zsh", "fish"}, args[0]) {
				return usageErrorf("completion takes one shell: bash, zsh or fish")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Shell = args[0]
			root, out := cmd.Root(), cmd.OutOrStdout()
			switch o.Shell {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			default:
				return root.GenFishCompletion(out, true)
			}
		},
	}
}
