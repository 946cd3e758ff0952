package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

type nextOptions struct {
	Client clientOptions
	Rule   string // "": show (or --clear)
	Times  int
	Clear  bool
}

// newNextCmd is `next [RULE]`: with RULE, the tenant's next --times created
// payments take that rule whatever their card or amount (POST
// /_sandbox/scenarios/next); without, what is pending; --clear drops it.
// The answer's holdsFor is how long the rule holds the request that creates
// a payment (a gateway timeout: up to the server's request timeout).
func newNextCmd(deps *cliDeps, runF func(*nextOptions) error) *cobra.Command {
	o := &nextOptions{}
	cmd := &cobra.Command{
		Use:   "next [RULE [--times N] | --clear]",
		Short: "Make the next payments take a scenario rule (one-shot), show it, or clear it",
		Example: "  paysandbox next generic-decline               # the next payment is declined, the retry succeeds\n" +
			"  paysandbox next gateway-timeout --times 3       # holdsFor: each payment's request waits this long for its 504\n" +
			"  paysandbox next                               # what is pending\n" +
			"  paysandbox next --clear",
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) > 1:
				return usageErrorf("%s takes at most one RULE (got %d)", cmd.CommandPath(), len(args))
			case len(args) == 1 && o.Clear:
				return usageErrorf("give either RULE or --clear")
			case len(args) == 0 && cmd.Flags().Changed("times"):
				return usageErrorf("--times needs a RULE")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Rule = args[0]
			}
			if runF != nil {
				return runF(o)
			}
			r := request{Method: "GET", Path: "/_sandbox/scenarios/next"}
			switch {
			case o.Clear:
				r.Method = "DELETE"
			case o.Rule != "":
				// The range of --times is the server's rule (a 422 at $.times).
				r.Method, r.Body = "POST", map[string]any{"rule": o.Rule, "times": o.Times}
			}
			return simpleRun(ctxOf(cmd), &o.Client, r, oneShotTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().IntVar(&o.Times, "times", 1, "how many created payments take the rule (1-100)")
	cmd.Flags().BoolVar(&o.Clear, "clear", false, "drop the pending one-shot")
	return cmd
}

// oneShotTable prints {rule, remaining, holdsFor}, or that nothing is
// pending.
func oneShotTable(w io.Writer, v map[string]any) error {
	if v["rule"] == nil {
		_, err := fmt.Fprintln(w, "nothing pending: payments follow the rules")
		return err
	}
	return objectTable(false, "rule", "remaining", "holdsFor")(w, v)
}
