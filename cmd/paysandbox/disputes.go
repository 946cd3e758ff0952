package main

import (
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/simulator"
)

func newDisputesCmd(deps *cliDeps) *cobra.Command {
	return newParentCmd("disputes", "List disputes and move them through their lifecycle",
		"  paysandbox disputes list --payment xYz12AbC\n  paysandbox disputes set-status DISPUTE_ID WON",
		newDisputesListCmd(deps, nil), newDisputesSetStatusCmd(deps, nil))
}

type disputesListOptions struct {
	simpleOptions
	PaymentID string
}

func newDisputesListCmd(deps *cliDeps, runF func(*disputesListOptions) error) *cobra.Command {
	o := &disputesListOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the tenant's disputes",
		Example: "  paysandbox disputes list --payment xYz12AbC",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			q := url.Values{}
			if o.PaymentID != "" {
				q.Set("paymentId", o.PaymentID)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/disputes", Query: q},
				listTable("disputeId", "paymentId", "status", "type", "amount", "reason"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.PaymentID, "payment", "", "only disputes of this payment")
	return cmd
}

// disputeMoves are the statuses a dispute can be moved to (the kernel's
// DisputeMoves): STATUS is checked and completed against them.
var disputeMoves = simulator.Names(simulator.DisputeMoves)

type disputesSetStatusOptions struct {
	simpleOptions
	Status string
	Type   string
}

func newDisputesSetStatusCmd(deps *cliDeps, runF func(*disputesSetStatusOptions) error) *cobra.Command {
	o := &disputesSetStatusOptions{}
	cmd := &cobra.Command{
		Use:     "set-status DISPUTE_ID STATUS",
		Short:   "Move a dispute (" + strings.Join(disputeMoves, ", ") + "); sends DISPUTE.STATUS",
		Example: "  paysandbox disputes set-status 7c9e6679-7425-40de-944b-e07fc1f90ae7 WON",
		Args:    exactArgs("DISPUTE_ID", "STATUS"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID, o.Status = args[0], args[1]
			if !contains(disputeMoves, o.Status) {
				return usageErrorf("STATUS %q is not one of %v", o.Status, disputeMoves)
			}
			if runF != nil {
				return runF(o)
			}
			body := map[string]string{"status": o.Status}
			if o.Type != "" {
				body["type"] = o.Type
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/disputes/" + url.PathEscape(o.ID) + "/status", Body: body},
				objectTable(true, "disputeId", "paymentId", "status"))
		},
	}
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 1 { // DISPUTE_ID is given: complete STATUS
			return disputeMoves, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.Type, "type", "", "the dispute type to report: "+strings.Join(simulator.DisputeTypes, ", ")+" (unset: the dispute keeps its own)")
	_ = cmd.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(simulator.DisputeTypes, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
