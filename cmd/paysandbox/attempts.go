package main

import (
	"net/url"

	"github.com/spf13/cobra"
)

var attemptTable = objectTable(false, "paymentAttemptId", "status", "clientSessionId", "expiresAt", "paymentId", "merchantPaymentId")

type attemptsListOptions struct {
	simpleOptions
	Status string
}

func newAttemptsListCmd(deps *cliDeps, runF func(*attemptsListOptions) error) *cobra.Command {
	o := &attemptsListOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the tenant's payment attempts, newest first",
		Example: "  paysandbox attempts list --status AWAITING_APPROVAL",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			q := url.Values{}
			if o.Status != "" {
				q.Set("status", o.Status)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/payment-attempts", Query: q},
				listTable("paymentAttemptId", "status", "expiresAt", "paymentId", "clientSessionId"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.Status, "status", "", "only attempts in this status (AWAITING_APPROVAL, APPROVED, ABORTED, EXPIRED)")
	return cmd
}

func newAttemptsGetCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "get ATTEMPT_ID",
		Short:   "Show a payment attempt",
		Example: "  paysandbox attempts get 0b6f3c1e-8d0f-4c1a-9d55-2f0e7c1b9a10",
		Args:    exactArgs("ATTEMPT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/payment-attempts/" + url.PathEscape(o.ID)}, attemptTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

// newAttemptsActionCmd builds `attempts expire|approve|abort ATTEMPT_ID`.
func newAttemptsActionCmd(deps *cliDeps, action string, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	short := map[string]string{
		"expire":  "Expire an awaiting attempt now (control plane)",
		"approve": "Approve an attempt as the merchant's backend does (POST /payment-attempts/{id}/approve)",
		"abort":   "Abort an attempt as the merchant's backend does (POST /payment-attempts/{id}/abort)",
	}[action]
	cmd := &cobra.Command{
		Use:     action + " ATTEMPT_ID",
		Short:   short,
		Example: "  paysandbox attempts " + action + " \"$(paysandbox attempts list --status AWAITING_APPROVAL -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"data\"][0][\"paymentAttemptId\"])')\"",
		Args:    exactArgs("ATTEMPT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			path := "/payment-attempts/" + url.PathEscape(o.ID) + "/" + action
			if action == "expire" {
				path = "/_sandbox" + path
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: path}, attemptTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}
