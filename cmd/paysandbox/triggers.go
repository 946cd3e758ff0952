package main

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/simulator"
)

type triggerDisputeOptions struct {
	simpleOptions
	Reason string
	Amount int64 // 0: the whole payment
}

func newTriggerDisputeCmd(deps *cliDeps, runF func(*triggerDisputeOptions) error) *cobra.Command {
	o := &triggerDisputeOptions{}
	cmd := &cobra.Command{
		Use:   "dispute PAYMENT_ID",
		Short: "Open a dispute on a payment now (sends DISPUTE.OPENED)",
		Example: "  paysandbox trigger dispute xYz12AbC\n" +
			"  paysandbox trigger dispute xYz12AbC --reason PRODUCT_NOT_RECEIVED --amount 500 --output json",
		Args: exactArgs("PAYMENT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if cmd.Flags().Changed("amount") && o.Amount <= 0 {
				return usageErrorf("--amount must be positive (minor units)")
			}
			if runF != nil {
				return runF(o)
			}
			body := map[string]any{}
			if o.Reason != "" {
				body["reason"] = o.Reason
				if !slices.Contains(simulator.DisputeReasons, o.Reason) {
					fmt.Fprintf(cmd.ErrOrStderr(), "paysandbox: reason %q is kept as given (the vendor's reason is free text), but the shipped scenarios and the dashboard use %s\n",
						o.Reason, strings.Join(simulator.DisputeReasons, ", "))
				}
			}
			if o.Amount > 0 {
				body["amount"] = o.Amount
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/payments/" + url.PathEscape(o.ID) + "/dispute", Body: body},
				objectTable(true, "disputeId", "paymentId"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.Reason, "reason", "", "dispute reason: free text; the shipped scenarios and the dashboard use "+strings.Join(simulator.DisputeReasons, ", ")+" (default "+simulator.DisputeReasons[0]+")")
	cmd.Flags().Int64Var(&o.Amount, "amount", 0, "disputed amount in minor units (default the whole payment)")
	return cmd
}

type triggerSettleOptions struct{ simpleOptions }

func newTriggerSettleCmd(deps *cliDeps, runF func(*triggerSettleOptions) error) *cobra.Command {
	o := &triggerSettleOptions{}
	cmd := &cobra.Command{
		Use:     "settle PAYMENT_ID",
		Short:   "Settle a SETTLING payment now",
		Example: "  paysandbox trigger settle xYz12AbC",
		Args:    exactArgs("PAYMENT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/payments/" + url.PathEscape(o.ID) + "/settle"}, paymentTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

type trigger3DSOptions struct {
	simpleOptions
	Result string
}

func newTrigger3DSCmd(deps *cliDeps, runF func(*trigger3DSOptions) error) *cobra.Command {
	o := &trigger3DSOptions{}
	cmd := &cobra.Command{
		Use:   "3ds PAYMENT_ID",
		Short: "Complete a payment's 3DS challenge and resume it",
		Example: "  paysandbox trigger 3ds xYz12AbC\n" +
			"  paysandbox trigger 3ds xYz12AbC --result AUTH_FAILED",
		Args: exactArgs("PAYMENT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if o.Result != "AUTH_SUCCESS" && o.Result != "AUTH_FAILED" {
				return usageErrorf("--result %q is not AUTH_SUCCESS or AUTH_FAILED", o.Result)
			}
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/payments/" + url.PathEscape(o.ID) + "/3ds",
				Body: map[string]string{"result": o.Result}}, paymentTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.Result, "result", "AUTH_SUCCESS", "the shopper's result: AUTH_SUCCESS | AUTH_FAILED")
	return cmd
}
