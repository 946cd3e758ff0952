package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// testDeps are client deps with the given environment and buffers.
func testDeps(env map[string]string) (*cliDeps, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &cliDeps{Out: out, Err: errOut, Getenv: func(k string) string { return env[k] }}, out, errOut
}

// TestCLIFlags is the flag-parsing table of the client commands (cli/cli
// style): each command runs through its runF, which records the options;
// usage errors exit 2.
func TestCLIFlags(t *testing.T) {
	type build func(d *cliDeps, got *any) *cobra.Command
	tests := []struct {
		name     string
		cmd      build
		args     []string
		env      map[string]string
		want     func(t *testing.T, o any)
		wantCode int // 0: parsed; else exitCodeOf the error
	}{
		{name: "defaults: url, key, output",
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newClockShowCmd(d, func(o *simpleOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				c := o.(*simpleOptions).Client
				assert.Equal(t, []string{defaultURL, simulator.DefaultAPIKey, "table"}, []string{c.URL, c.APIKey, c.Output})
			}},
		{name: "env PAYSANDBOX_URL and PAYSANDBOX_API_KEY",
			env: map[string]string{"PAYSANDBOX_URL": "http://sandbox:9000", "PAYSANDBOX_API_KEY": "sk_env"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newClockShowCmd(d, func(o *simpleOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				c := o.(*simpleOptions).Client
				assert.Equal(t, []string{"http://sandbox:9000", "sk_env"}, []string{c.URL, c.APIKey})
			}},
		{name: "flags win over env",
			env:  map[string]string{"PAYSANDBOX_URL": "http://sandbox:9000", "PAYSANDBOX_API_KEY": "sk_env"},
			args: []string{"--url", "http://other:1", "--api-key", "sk_flag", "-o", "json"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newClockShowCmd(d, func(o *simpleOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				c := o.(*simpleOptions).Client
				assert.Equal(t, []string{"http://other:1", "sk_flag", "json"}, []string{c.URL, c.APIKey, c.Output})
			}},
		{name: "bad --output", args: []string{"--output", "xml"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newClockShowCmd(d, func(o *simpleOptions) error { *got = o; return nil })
			}},
		{name: "bad --url", args: []string{"--url", "localhost:8080"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newClockShowCmd(d, func(o *simpleOptions) error { *got = o; return nil })
			}},
		{name: "unknown flag", args: []string{"--bogus"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newClockShowCmd(d, func(o *simpleOptions) error { *got = o; return nil })
			}},
		{name: "trigger dispute", args: []string{"pay1", "--reason", "fraud", "--amount", "500"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTriggerDisputeCmd(d, func(o *triggerDisputeOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*triggerDisputeOptions)
				assert.Equal(t, "pay1", x.ID)
				assert.Equal(t, "fraud", x.Reason)
				assert.EqualValues(t, 500, x.Amount)
			}},
		{name: "trigger dispute without id", wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTriggerDisputeCmd(d, func(o *triggerDisputeOptions) error { *got = o; return nil })
			}},
		{name: "trigger dispute --amount 0", args: []string{"pay1", "--amount", "0"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTriggerDisputeCmd(d, func(o *triggerDisputeOptions) error { *got = o; return nil })
			}},
		{name: "trigger settle", args: []string{"pay1"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTriggerSettleCmd(d, func(o *triggerSettleOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) { assert.Equal(t, "pay1", o.(*triggerSettleOptions).ID) }},
		{name: "trigger 3ds default result", args: []string{"pay1"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTrigger3DSCmd(d, func(o *trigger3DSOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) { assert.Equal(t, "AUTH_SUCCESS", o.(*trigger3DSOptions).Result) }},
		{name: "trigger 3ds bad result", args: []string{"pay1", "--result", "MAYBE"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTrigger3DSCmd(d, func(o *trigger3DSOptions) error { *got = o; return nil })
			}},
		{name: "attempts list --status", args: []string{"--status", "AWAITING_APPROVAL"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newAttemptsListCmd(d, func(o *attemptsListOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) { assert.Equal(t, "AWAITING_APPROVAL", o.(*attemptsListOptions).Status) }},
		{name: "attempts approve", args: []string{"att-1"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newAttemptsActionCmd(d, "approve", func(o *simpleOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) { assert.Equal(t, "att-1", o.(*simpleOptions).ID) }},
		{name: "attempts expire with two ids", args: []string{"a", "b"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newAttemptsActionCmd(d, "expire", func(o *simpleOptions) error { *got = o; return nil })
			}},
		{name: "payments list filters", args: []string{"--status", "AUTHORIZED,SETTLED", "--currency", "EUR", "--order", "o-1", "--limit", "5", "--min-amount", "10",
			"--email", "Ann@example.com", "--merchant", "acct_a", "--method-type", "PAYMENT_CARD"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newPaymentsListCmd(d, func(o *paymentsListOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*paymentsListOptions)
				assert.Equal(t, []string{"AUTHORIZED", "SETTLED"}, x.Status)
				assert.Equal(t, []string{"EUR"}, x.Currency)
				assert.Equal(t, []string{"o-1"}, x.Order)
				assert.Equal(t, 5, x.Limit)
				assert.Equal(t, "10", x.MinAmount)
				q := x.query()
				assert.Equal(t, "Ann@example.com", q.Get("customer_email_address"))
				assert.Equal(t, "acct_a", q.Get("merchant_id"))
				assert.Equal(t, "PAYMENT_CARD", q.Get("payment_method_type"))
			}},
		{name: "payments list --limit 500", args: []string{"--limit", "500"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newPaymentsListCmd(d, func(o *paymentsListOptions) error { *got = o; return nil })
			}},
		{name: "payments get --events", args: []string{"pay1", "--events"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newPaymentsGetCmd(d, func(o *paymentsGetOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) { assert.True(t, o.(*paymentsGetOptions).Expand) }},
		{name: "payments wait", args: []string{"pay1", "--status", "SETTLED", "--timeout", "10s"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newPaymentsWaitCmd(d, func(o *paymentsWaitOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*paymentsWaitOptions)
				assert.Equal(t, "SETTLED", x.Status)
				assert.Equal(t, 10*time.Second, x.Timeout)
			}},
		{name: "payments wait without --status", args: []string{"pay1"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newPaymentsWaitCmd(d, func(o *paymentsWaitOptions) error { *got = o; return nil })
			}},
		{name: "payments wait --timeout 2m", args: []string{"pay1", "--status", "SETTLED", "--timeout", "2m"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newPaymentsWaitCmd(d, func(o *paymentsWaitOptions) error { *got = o; return nil })
			}},
		{name: "clock advance", args: []string{"36h"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newClockAdvanceCmd(d, func(o *clockAdvanceOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) { assert.Equal(t, 36*time.Hour, o.(*clockAdvanceOptions).Duration) }},
		{name: "clock advance not a duration", args: []string{"tomorrow"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newClockAdvanceCmd(d, func(o *clockAdvanceOptions) error { *got = o; return nil })
			}},
		{name: "clock advance negative", args: []string{"--", "-1h"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newClockAdvanceCmd(d, func(o *clockAdvanceOptions) error { *got = o; return nil })
			}},
		{name: "tenants create", args: []string{"--ttl", "2h", "--scopes", "transactions:retrieve,transactions:authorize", "--output", "env", "--webhook-url", "http://x/h"},
			env: map[string]string{"PAYSANDBOX_ADMIN_KEY": "adm"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsCreateCmd(d, func(o *tenantsCreateOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*tenantsCreateOptions)
				assert.Equal(t, 2*time.Hour, x.TTL)
				assert.Equal(t, []string{"transactions:retrieve", "transactions:authorize"}, x.Scopes)
				assert.Equal(t, "env", x.Client.Output)
				assert.Equal(t, "adm", x.AdminKey)
				assert.Equal(t, "http://x/h", x.WebhookURL)
			}},
		{name: "--output env only on tenants create", args: []string{"--output", "env"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsListCmd(d, func(o *tenantsAdminOptions) error { *got = o; return nil })
			}},
		{name: "tenants export", args: []string{"--include-secrets", "--output", "t.json.gz"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsExportCmd(d, func(o *tenantsExportOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*tenantsExportOptions)
				assert.True(t, x.IncludeSecrets)
				assert.Equal(t, "t.json.gz", x.File)
			}},
		{name: "tenants export writes stdout by default", args: []string{},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsExportCmd(d, func(o *tenantsExportOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*tenantsExportOptions)
				assert.False(t, x.IncludeSecrets)
				assert.Equal(t, "-", x.File)
			}},
		{name: "tenants import", args: []string{"t.json", "--admin-key", "adm", "-o", "env"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsImportCmd(d, func(o *tenantsImportOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*tenantsImportOptions)
				assert.Equal(t, []string{"t.json", "adm", "env"}, []string{x.File, x.AdminKey, x.Client.Output})
			}},
		{name: "tenants import needs its file", args: []string{}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsImportCmd(d, func(o *tenantsImportOptions) error { *got = o; return nil })
			}},
		{name: "tenants delete", args: []string{"t_1", "--admin-key", "adm"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsDeleteCmd(d, func(o *tenantsAdminOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*tenantsAdminOptions)
				assert.Equal(t, []string{"t_1", "adm"}, []string{x.ID, x.AdminKey})
			}},
		{name: "tenants accept-loss", args: []string{"t_1", "--admin-key", "adm"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsAcceptLossCmd(d, func(o *tenantsAdminOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*tenantsAdminOptions)
				assert.Equal(t, []string{"t_1", "adm"}, []string{x.ID, x.AdminKey})
			}},
		{name: "tenants accept-loss needs its tenant", args: []string{}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsAcceptLossCmd(d, func(o *tenantsAdminOptions) error { *got = o; return nil })
			}},
		{name: "tenants export --allow-skipped", args: []string{"--allow-skipped"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newTenantsExportCmd(d, func(o *tenantsExportOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) { assert.True(t, o.(*tenantsExportOptions).AllowSkipped) }},
		{name: "requests", args: []string{"--limit", "5", "--payment", "pay1", "--status", "4xx", "--since", "2026-11-22T07:30:00Z"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newRequestsCmd(d, func(o *requestsOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*requestsOptions)
				assert.Equal(t, 5, x.Limit)
				assert.Equal(t, []string{"pay1", "4xx", "2026-11-22T07:30:00Z"}, []string{x.PaymentID, x.Status, x.Since})
			}},
		{name: "requests --since not RFC 3339", args: []string{"--since", "yesterday"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newRequestsCmd(d, func(o *requestsOptions) error { *got = o; return nil })
			}},
		{name: "reset takes no args", args: []string{"now"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newResetCmd(d, func(o *simpleOptions) error { *got = o; return nil })
			}},
		{name: "webhooks list", args: []string{"--payment", "pay1", "--type", "PAYMENT.STATUS", "--status", "EXHAUSTED", "--limit", "3"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newWebhooksListCmd(d, func(o *webhooksListOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*webhooksListOptions)
				assert.Equal(t, []string{"pay1", "PAYMENT.STATUS", "EXHAUSTED"}, []string{x.PaymentID, x.Type, x.Status})
				assert.Equal(t, 3, x.Limit)
			}},
		{name: "webhooks chaos", args: []string{"--duplicate", "0.5", "--seed", "7"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newWebhooksChaosCmd(d, func(o *webhooksChaosOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*webhooksChaosOptions)
				assert.Equal(t, 0.5, x.Duplicate)
				assert.EqualValues(t, 7, x.Seed)
				assert.Equal(t, map[string]bool{"duplicate": true, "reorder": false, "delay": false, "seed": true}, x.set)
			}},
		{name: "webhooks chaos with nothing", wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newWebhooksChaosCmd(d, func(o *webhooksChaosOptions) error { *got = o; return nil })
			}},
		{name: "webhooks chaos fraction above 1", args: []string{"--duplicate", "2"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newWebhooksChaosCmd(d, func(o *webhooksChaosOptions) error { *got = o; return nil })
			}},
		{name: "webhooks endpoint set", args: []string{"http://localhost:9000/hooks"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newWebhooksEndpointSetCmd(d, func(o *webhooksEndpointOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				assert.Equal(t, "http://localhost:9000/hooks", o.(*webhooksEndpointOptions).URL)
			}},
		{name: "webhooks endpoint set not a URL", args: []string{"hooks"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newWebhooksEndpointSetCmd(d, func(o *webhooksEndpointOptions) error { *got = o; return nil })
			}},
		{name: "webhooks wait needs --payment", wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newWebhooksWaitCmd(d, func(o *webhooksWaitOptions) error { *got = o; return nil })
			}},
		{name: "disputes set-status", args: []string{"d-1", "WON", "--type", "CHARGEBACK"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newDisputesSetStatusCmd(d, func(o *disputesSetStatusOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*disputesSetStatusOptions)
				assert.Equal(t, []string{"d-1", "WON", "CHARGEBACK"}, []string{x.ID, x.Status, x.Type})
			}},
		{name: "disputes set-status bad status", args: []string{"d-1", "MAYBE"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newDisputesSetStatusCmd(d, func(o *disputesSetStatusOptions) error { *got = o; return nil })
			}},
		{name: "scenarios explain from flags", args: []string{"--amount", "4051", "--card", "4111111111111111", "--currency", "USD"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newScenariosExplainCmd(d, func(o *scenariosExplainOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*scenariosExplainOptions)
				assert.Equal(t, map[string]any{"amount": int64(4051), "currencyCode": "USD", "card": "4111111111111111"},
					x.explainBody(func(f string) bool { return f == "amount" }))
			}},
		{name: "scenarios explain --expiry", args: []string{"--card", "4111111111111111", "--expiry", "01/2020"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newScenariosExplainCmd(d, func(o *scenariosExplainOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) {
				x := o.(*scenariosExplainOptions)
				assert.Equal(t, map[string]any{"card": "4111111111111111", "expirationMonth": "01", "expirationYear": "2020"},
					x.explainBody(func(string) bool { return false }))
			}},
		{name: "scenarios explain --expiry 1/20", args: []string{"--card", "4111111111111111", "--expiry", "1/20"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newScenariosExplainCmd(d, func(o *scenariosExplainOptions) error { *got = o; return nil })
			}},
		{name: "scenarios explain: flags and a payment id together", args: []string{"pay1", "--amount", "1"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newScenariosExplainCmd(d, func(o *scenariosExplainOptions) error { *got = o; return nil })
			}},
		{name: "scenarios explain needs one of id or --request", wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newScenariosExplainCmd(d, func(o *scenariosExplainOptions) error { *got = o; return nil })
			}},
		{name: "scenarios apply --reset", args: []string{"--reset"},
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newScenariosApplyCmd(d, func(o *scenariosApplyOptions) error { *got = o; return nil })
			},
			want: func(t *testing.T, o any) { assert.True(t, o.(*scenariosApplyOptions).Reset) }},
		{name: "scenarios apply with both", args: []string{"f.yaml", "--reset"}, wantCode: exitUsage,
			cmd: func(d *cliDeps, got *any) *cobra.Command {
				return newScenariosApplyCmd(d, func(o *scenariosApplyOptions) error { *got = o; return nil })
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			deps, _, _ := testDeps(tc.env)
			var got any
			cmd := tc.cmd(deps, &got)
			cmd.SetArgs(tc.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			cmd.SilenceErrors = true
			err := cmd.Execute()
			if tc.wantCode != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.wantCode, exitCodeOf(err), "%v", err)
				assert.Nil(t, got, "runF must not run")
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got, "runF ran")
			if tc.want != nil {
				tc.want(t, got)
			}
		})
	}
}

// TestCLIClockAdvancePastTTL: advancing a tenant's clock past its ttl does
// not expire it (the ttl runs on the wall clock); the wall clock does.
func TestCLIClockAdvancePastTTL(t *testing.T) {
	a := newTestApp(t)
	code, out, errOut := cliRun(t, a, nil, "tenants", "create", "--ttl", "1h", "-o", "json")
	require.Equal(t, 0, code, errOut)
	var tenant map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &tenant))
	env := map[string]string{"PAYSANDBOX_API_KEY": tenant["apiKey"].(string)}

	code, out, errOut = cliRun(t, a, env, "clock", "advance", "48h")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "expire")
	code, _, errOut = cliRun(t, a, env, "clock", "show")
	require.Equal(t, 0, code, errOut)

	a.Clock.Advance(time.Hour)
	code, _, errOut = cliRun(t, a, env, "clock", "show")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "Error: Unauthorized: The API key belonged to tenant "+tenant["tenantId"].(string)+", which expired at 2026-11-22T08:30:00.000000Z")
}

// TestEveryCommandHasHelpWithExample: --help of every command shows an example.
func TestEveryCommandHasHelpWithExample(t *testing.T) {
	deps, _, _ := testDeps(nil)
	root := newRootCmd(io.Discard, io.Discard)
	extra := newParentCmd("scenarios", "scenario rules", "  paysandbox scenarios list",
		newScenariosListCmd(deps, nil), newScenariosExplainCmd(deps, nil), newScenariosApplyCmd(deps, nil))
	var walk func(c *cobra.Command)
	client := map[string]bool{"serve": true, "bench": true, "healthcheck": true} // skipped: the commands that are not API clients
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if client[sub.Name()] || sub.Name() == "help" {
				continue
			}
			assert.NotEmpty(t, sub.Example, "%s has no example", sub.CommandPath())
			walk(sub)
		}
	}
	walk(root)
	walk(extra)
}

// cliRun runs the real command line against the test app in a.
func cliRun(t *testing.T, a *testApp, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("PAYSANDBOX_URL", a.URL())
	t.Setenv("PAYSANDBOX_API_KEY", a.Key)
	for k, v := range env {
		t.Setenv(k, v)
	}
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	code = runCLI(args, &cliDeps{Out: out, Err: errOut})
	return code, out.String(), errOut.String()
}

// TestCLIBehaviour runs the client commands against a real in-process
// server: exit codes, one JSON document with --output json, tables, and
// errors on stderr as "Error: <errorId>: <description>".
func TestCLIBehaviour(t *testing.T) {
	a := newTestApp(t)
	tenantID, _ := a.useNewTenant()
	pid := a.pay(1000, numOK).Str("id")
	awaiting := freshAttempt(a, numOK)
	toApprove := freshAttempt(a, numOK)
	toAbort := freshAttempt(a, numOK)
	toExpire := freshAttempt(a, numOK)
	challenged := a.pay(1000, numChallenge).Str("id")
	pinned := a.req("POST", "/payment-attempts/"+awaiting+"/approve", nil, "X-API-VERSION: 2.2") // 404 on 2.2: a migration note
	require.Equal(t, 404, pinned.Status)

	jsonOf := func(t *testing.T, s string) map[string]any {
		var v map[string]any
		dec := json.NewDecoder(strings.NewReader(s))
		require.NoError(t, dec.Decode(&v), "stdout: %s", s)
		_, err := dec.Token()
		require.ErrorIs(t, err, io.EOF, "exactly one JSON document on stdout")
		return v
	}
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		check    func(t *testing.T, stdout string)
		stderr   string // substring of stderr ("" means stderr is empty)
	}{
		{name: "payments get json", args: []string{"payments", "get", pid, "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, pid, jsonOf(t, s)["id"]) }},
		{name: "payments get table", args: []string{"payments", "get", pid},
			check: func(t *testing.T, s string) {
				assert.Regexp(t, `(?m)^id\s+`+pid+`$`, s)
				assert.Regexp(t, `(?m)^status\s+AUTHORIZED$`, s)
				assert.Regexp(t, `(?m)^SALE\s+STRIPE\s+AUTHORIZED\s+1000\s+txn_`, s, "its transactions, one row each")
				assert.NotContains(t, s, "AUTHORIZATION_SUCCEEDED", "events only with --events")
			}},
		{name: "payments get table with events", args: []string{"payments", "get", pid, "--events"},
			check: func(t *testing.T, s string) {
				assert.Regexp(t, `(?m)^1 SALE\s+\S+\s+AUTHORIZATION_SUCCEEDED\s+1000\s`, s)
			}},
		{name: "payments get unknown", args: []string{"payments", "get", "nope"}, wantCode: 1,
			stderr: "Error: PaymentError: The payment could not be found\n"},
		{name: "payments list with filters", args: []string{"payments", "list", "--status", "AUTHORIZED", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Len(t, jsonOf(t, s)["data"], 1, "the 3DS payment is PENDING") }},
		{name: "payments list table is aligned", args: []string{"payments", "list", "--status", "AUTHORIZED"},
			check: func(t *testing.T, s string) {
				lines := strings.Split(strings.TrimSpace(s), "\n")
				require.Len(t, lines, 2)
				assert.Equal(t, strings.Index(lines[0], "STATUS"), strings.Index(lines[1], "AUTHORIZED"))
			}},
		{name: "payments wait met", args: []string{"payments", "wait", pid, "--status", "AUTHORIZED", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "AUTHORIZED", jsonOf(t, s)["status"]) }},
		{name: "payments wait timed out", args: []string{"payments", "wait", pid, "--status", "SETTLED", "--timeout", "0s", "-o", "json"}, wantCode: 1,
			stderr: "Error: WaitTimeout: ", check: func(t *testing.T, s string) { assert.Empty(t, s, "nothing on stdout on failure") }},
		{name: "attempts list", args: []string{"attempts", "list", "--status", "AWAITING_APPROVAL", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Len(t, jsonOf(t, s)["data"], 4) }},
		{name: "attempts get", args: []string{"attempts", "get", awaiting},
			check: func(t *testing.T, s string) { assert.Contains(t, s, "AWAITING_APPROVAL") }},
		{name: "attempts approve", args: []string{"attempts", "approve", toApprove, "-o", "json"},
			check: func(t *testing.T, s string) { assert.NotEmpty(t, jsonOf(t, s)["merchantPaymentId"]) }},
		{name: "attempts abort", args: []string{"attempts", "abort", toAbort, "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "ABORTED", jsonOf(t, s)["status"]) }},
		{name: "attempts expire", args: []string{"attempts", "expire", toExpire, "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "EXPIRED", jsonOf(t, s)["status"]) }},
		{name: "attempts expire twice", args: []string{"attempts", "expire", toAbort}, wantCode: 1, stderr: "Error: InvalidPaymentAttemptTransition: "},
		{name: "attempts get not a uuid", args: []string{"attempts", "get", "x"}, wantCode: 1,
			stderr: "Error: RequestValidationError: We were unable to validate your request, please check your payload against the validationErrors listed ($.id: "},
		{name: "trigger dispute", args: []string{"trigger", "dispute", pid, "--reason", "FRAUDULENT", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, pid, jsonOf(t, s)["paymentId"]) }},
		{name: "trigger settle of an AUTHORIZED payment", args: []string{"trigger", "settle", pid}, wantCode: 1, stderr: "Error: "},
		{name: "trigger 3ds", args: []string{"trigger", "3ds", challenged, "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "AUTHORIZED", jsonOf(t, s)["status"]) }},
		{name: "clock show", args: []string{"clock", "show", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "2026-11-22T07:30:00.000000Z", jsonOf(t, s)["now"]) }},
		{name: "clock advance", args: []string{"clock", "advance", "24h", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "2026-11-23T07:30:00.000000Z", jsonOf(t, s)["now"]) }},
		{name: "clock advance usage", args: []string{"clock", "advance", "soon"}, wantCode: 2, stderr: "Error: UsageError: "},
		{name: "requests", args: []string{"requests", "--limit", "2", "-o", "json"},
			check: func(t *testing.T, s string) {
				es := jsonOf(t, s)["data"].([]any)
				require.Len(t, es, 2)
				assert.Equal(t, tenantID, es[0].(map[string]any)["tenantId"])
			}},
		{name: "requests of a payment, table", args: []string{"requests", "--payment", pid},
			check: func(t *testing.T, s string) { assert.Contains(t, s, "/payments/"+pid) }},
		{name: "hints", args: []string{"hints", "-o", "json"},
			check: func(t *testing.T, s string) {
				assert.NotEmpty(t, jsonOf(t, s)["data"], "a.pay sends no idempotency key")
			}},
		{name: "scenarios list json (the route answers YAML unless asked)", args: []string{"scenarios", "list", "-o", "json"},
			check: func(t *testing.T, s string) { assert.NotEmpty(t, jsonOf(t, s)["rules"]) }},
		{name: "scenarios list table", args: []string{"scenarios", "list"},
			check: func(t *testing.T, s string) {
				assert.Regexp(t, `(?m)^generic-decline\s+\{"card":\["4000000000000002"`, s)
				assert.Contains(t, s, `{"threeDS":"challenge"}`)
			}},
		{name: "migration", args: []string{"migration", "-o", "json"},
			check: func(t *testing.T, s string) {
				items := jsonOf(t, s)["items"].([]any)
				require.Len(t, items, 1)
				assert.Equal(t, "payment-attempts-route", items[0].(map[string]any)["kind"])
				assert.Equal(t, []any{pinned.Header.Get("X-Request-Id")}, items[0].(map[string]any)["exampleRequestIds"])
			}},
		{name: "migration table", args: []string{"migration"},
			check: func(t *testing.T, s string) {
				assert.Regexp(t, `^API 2\.1-2\.3: deprecated since 2026-06-01, sunset 2027-06-01 \(production answers 410 after it\)\n`+
					`payment-attempts-route \(1, \S+ \.\. \S+\)\n  /payment-attempts/\* answers 404 NotFound .*\n  1 x POST /payment-attempts/:id/approve answers 404 on 2\.2; 2\.4 serves it\n  ids: \S+\n`+
					`webhook bodies: version 2\.4, as 2\.4's\n$`, s)
			}},
		{name: "hints table", args: []string{"hints"},
			check: func(t *testing.T, s string) { assert.Contains(t, s, "missing-idempotency-key (") }},
		{name: "tenants create env", args: []string{"tenants", "create", "--ttl", "1h", "-o", "env"},
			check: func(t *testing.T, s string) {
				assert.Regexp(t, `^PAYSANDBOX_URL=http://127\.0\.0\.1:\d+\nPAYSANDBOX_API_KEY=sk_\S+\nPAYSANDBOX_TENANT_ID=t_\S+\nPAYSANDBOX_SIGNING_SECRET=whsec_\S+\n$`, s)
			}},
		{name: "tenants list without an admin key", args: []string{"tenants", "list"}, wantCode: 1,
			stderr: "Error: Unauthorized: Tenant administration is off: this sandbox has no admin key\n"},
		{name: "wrong key from env", args: []string{"clock", "show"}, env: map[string]string{"PAYSANDBOX_API_KEY": "wrong"}, wantCode: 1,
			stderr: "Error: Unauthorized: The API key is not valid\n"},
		{name: "no server", args: []string{"clock", "show", "--url", "http://127.0.0.1:1"}, wantCode: 1, stderr: "Error: ConnectionError: "},
		{name: "unknown command", args: []string{"payments", "refund"}, wantCode: 2, stderr: "Error: UsageError: unknown command"},
		{name: "unknown flag", args: []string{"payments", "list", "--orderId", "x"}, wantCode: 2, stderr: "Error: UsageError: unknown flag: --orderId"},
		{name: "version json", args: []string{"version", "-o", "json"},
			check: func(t *testing.T, s string) {
				v := jsonOf(t, s)
				assert.Equal(t, "dev", v["version"])
				assert.NotEmpty(t, v["go"])
			}},
		{name: "completion bash", args: []string{"completion", "bash"},
			check: func(t *testing.T, s string) { assert.Contains(t, s, "bash completion") }},
		{name: "completion zsh", args: []string{"completion", "zsh"}, check: func(t *testing.T, s string) { assert.Contains(t, s, "#compdef paysandbox") }},
		{name: "completion fish", args: []string{"completion", "fish"}, check: func(t *testing.T, s string) { assert.Contains(t, s, "complete -c paysandbox") }},
		{name: "completion powershell", args: []string{"completion", "powershell"}, wantCode: 2, stderr: "Error: UsageError: "},
		{name: "reset", args: []string{"reset", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "RESET", jsonOf(t, s)["status"]) }},
		{name: "after reset the payment is gone", args: []string{"payments", "get", pid}, wantCode: 1, stderr: "Error: PaymentError: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cliRun(t, a, tc.env, tc.args...)
			assert.Equal(t, tc.wantCode, code, "stdout: %s\nstderr: %s", stdout, stderr)
			if tc.stderr == "" {
				assert.Empty(t, stderr)
			} else {
				assert.True(t, strings.HasPrefix(stderr, tc.stderr), "stderr %q does not start with %q", stderr, tc.stderr)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one error line")
			}
			if tc.check != nil {
				tc.check(t, stdout)
			}
		})
	}
}

// TestCLITenantsAdmin: tenants list and delete with the admin key from the
// environment.
func TestCLITenantsAdmin(t *testing.T) {
	cfg := testConfig()
	cfg.AdminKey = "adm"
	a := startApp(t, cfg)
	admin := map[string]string{"PAYSANDBOX_ADMIN_KEY": "adm"}
	code, out, stderr := cliRun(t, a, admin, "tenants", "create", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var created map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &created))
	id := created["tenantId"].(string)

	code, out, _ = cliRun(t, a, admin, "tenants", "list")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^TENANTID\s+CREATEDAT`, out)
	assert.Contains(t, out, id)
	code, _, stderr = cliRun(t, a, map[string]string{"PAYSANDBOX_ADMIN_KEY": "wrong"}, "tenants", "list")
	assert.Equal(t, 1, code)
	assert.Equal(t, "Error: Unauthorized: A valid X-Admin-Key is required for tenant administration\n", stderr)
	code, out, _ = cliRun(t, a, admin, "tenants", "delete", id, "-o", "json")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, `"status": "DELETED"`)
	code, _, stderr = cliRun(t, a, admin, "tenants", "delete", id)
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(stderr, "Error: NotFound: "), stderr)
}

// TestDisputeStatusCompletion: disputes set-status completes STATUS with
// the statuses a dispute can be moved to and --type with the dispute types,
// both the kernel's lists.
func TestDisputeStatusCompletion(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"STATUS", []string{"disputes", "set-status", "d-1", ""}, simulator.Names(simulator.DisputeMoves)},
		{"DISPUTE_ID", []string{"disputes", "set-status", ""}, []string{}},
		{"--type", []string{"disputes", "set-status", "d-1", "WON", "--type", ""}, simulator.DisputeTypes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			root := newRootCmd(&out, io.Discard)
			root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, tc.args...))
			require.NoError(t, root.Execute())
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			require.NotEmpty(t, lines)
			assert.Equal(t, tc.want, lines[:len(lines)-1], "the completions, before the directive line")
		})
	}
	assert.Equal(t, []string{"CHALLENGED", "ACCEPTED", "WON", "LOST", "EXPIRED", "CANCELLED"}, simulator.Names(simulator.DisputeMoves))
}
