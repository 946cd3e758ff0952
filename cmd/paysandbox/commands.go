package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// addClientCommands registers the client commands on root, with the usage
// rules every command follows (flag errors are usage errors, exit 2).
func addClientCommands(root *cobra.Command, deps *cliDeps) {
	root.SetFlagErrorFunc(flagError)
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		newParentCmd("trigger", "Trigger production events on a payment: a dispute, a settlement, a 3DS result",
			"  paysandbox trigger dispute PAYMENT_ID --reason FRAUDULENT",
			newTriggerDisputeCmd(deps, nil), newTriggerSettleCmd(deps, nil), newTrigger3DSCmd(deps, nil)),
		newParentCmd("attempts", "List, read, expire, approve or abort payment attempts (MANUAL sessions)",
			"  paysandbox attempts list --status AWAITING_APPROVAL",
			newAttemptsListCmd(deps, nil), newAttemptsGetCmd(deps, nil), newAttemptsActionCmd(deps, "expire", nil),
			newAttemptsActionCmd(deps, "approve", nil), newAttemptsActionCmd(deps, "abort", nil)),
		newParentCmd("payments", "List, read and wait for payments",
			"  paysandbox payments wait PAYMENT_ID --status SETTLED",
			newPaymentsListCmd(deps, nil), newPaymentsGetCmd(deps, nil), newPaymentsWaitCmd(deps, nil)),
		newParentCmd("clock", "Show or move the tenant's clock",
			"  paysandbox clock advance 24h",
			newClockShowCmd(deps, nil), newClockAdvanceCmd(deps, nil)),
		newParentCmd("tenants", "Create tenants; list and delete them with the admin key; export and import snapshots",
			"  set -a; eval \"$(paysandbox tenants create --ttl 2h --output env)\"; set +a\n  paysandbox tenants export --output ci-tenant.json",
			newTenantsCreateCmd(deps, nil), newTenantsListCmd(deps, nil), newTenantsDeleteCmd(deps, nil),
			newTenantsExportCmd(deps, nil), newTenantsImportCmd(deps, nil), newTenantsAcceptLossCmd(deps, nil)),
		newParentCmd("scenarios", "Check, list, explain and apply the scenario rules that decide processor outcomes",
			"  paysandbox scenarios validate scenarios.yaml\n  paysandbox scenarios apply my-rules.yaml",
			newScenariosValidateCmd(nil), newScenariosListCmd(deps, nil), newScenariosExplainCmd(deps, nil), newScenariosApplyCmd(deps, nil)),
		newWebhooksCmd(deps, newWebhooksVerifyCmd(deps), newWebhooksListenCmd()),
		newDisputesCmd(deps),
		newResetCmd(deps, nil),
		newPayCmd(deps, nil),
		newNextCmd(deps, nil),
		newRequestsCmd(deps, nil),
		newHintsCmd(deps, nil),
		newMigrationCmd(deps, nil),
		newOpenAPICmd(deps, nil),
		newReportCmd(deps, nil),
		newCompletionCmd(),
	)
}

// simpleOptions are the options of a command that sends one request and
// renders its answer.
type simpleOptions struct {
	Client clientOptions
	ID     string // the positional id, when the command takes one
}

// simpleRun sends r and renders the answer with table.
func simpleRun(ctx context.Context, c *clientOptions, r request, table func(io.Writer, map[string]any) error) error {
	raw, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	return c.render(raw, table)
}

// flagError is a flag parse error as a usage error, in the flag's terms
// rather than Go's parser's (pflag's message ends in "strconv.ParseInt:
// parsing ...: invalid syntax").
func flagError(_ *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) {
		return &usageError{msg: err.Error()}
	}
	f := bad.GetFlag()
	var num *strconv.NumError
	switch {
	case errors.As(err, &num) && (num.Func == "ParseInt" || num.Func == "ParseUint"):
		if errors.Is(num.Err, strconv.ErrRange) {
			return &usageError{msg: fmt.Sprintf("--%s %q is out of range", f.Name, bad.GetValue())}
		}
		msg := fmt.Sprintf("--%s %q is not a whole number", f.Name, bad.GetValue())
		if strings.Contains(f.Usage, "minor units") {
			msg += " of minor units (1000 is 10.00 EUR)"
		}
		return &usageError{msg: msg}
	case errors.As(err, &num) && num.Func == "ParseBool":
		return &usageError{msg: fmt.Sprintf("--%s %q is not true or false", f.Name, bad.GetValue())}
	case f.Value.Type() == "duration":
		return &usageError{msg: fmt.Sprintf("--%s %q is not a duration such as 500ms, 30s or 2m", f.Name, bad.GetValue())}
	}
	return &usageError{msg: err.Error()}
}

func ctxOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
