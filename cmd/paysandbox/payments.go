package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// addClientCommands registers the client commands on root, with the usage
// rules every command follows (flag errors are usage errors, exit 2).
func addClientCommands(root *cobra.Command, deps *cliDeps) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		newParentCmd("trigger", "Trigger production events on a payment: a dispute, a settlement, a 3DS result",
			"  paysandbox trigger dispute PAYMENT_ID --reason fraud",
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
		newParentCmd("tenants", "Create tenants; list and delete them with the admin key",
			"  set -a; eval \"$(paysandbox tenants create --ttl 2h --output env)\"; set +a",
			newTenantsCreateCmd(deps, nil), newTenantsListCmd(deps, nil), newTenantsDeleteCmd(deps, nil)),
		newParentCmd("scenarios", "Check, list, explain and apply the scenario rules that decide processor outcomes",
			"  paysandbox scenarios validate scenarios.yaml\n  paysandbox scenarios apply my-rules.yaml",
			newScenariosValidateCmd(nil), newScenariosListCmd(deps, nil), newScenariosExplainCmd(deps, nil), newScenariosApplyCmd(deps, nil)),
		newWebhooksCmd(deps, newWebhooksVerifyCmd(deps.Getenv), newWebhooksListenCmd()),
		newDisputesCmd(deps),
		newResetCmd(deps, nil),
		newPayCmd(deps, nil),
		newNextCmd(deps, nil),
		newRequestsCmd(deps, nil),
		newHintsCmd(deps, nil),
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

func ctxOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

var paymentFields = objectTable(false, "id", "status", "amount", "currencyCode", "orderId", "customerId", "date", "dateUpdated",
	"processor.name", "processor.amountCaptured", "processor.amountRefunded", "statusReason.type", "statusReason.declineType",
	"statusReason.code", "requiredAction.name", "requiredAction.challengeUrl")

// paymentTable prints a payment's fields, then its transactions (one row
// each) and, when the answer has them (--events), the transactions' events.
func paymentTable(w io.Writer, v map[string]any) error {
	if err := paymentFields(w, v); err != nil {
		return err
	}
	txs, _ := v["transactions"].([]any)
	if len(txs) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	if err := listTable("type", "processorName", "processorStatus", "amount", "processorTransactionId", "authorizationCode", "date")(w, map[string]any{"data": txs}); err != nil {
		return err
	}
	var events []any
	for i, tx := range txs {
		m, _ := tx.(map[string]any)
		evs, _ := m["events"].([]any)
		for _, e := range evs {
			if em, ok := e.(map[string]any); ok {
				row := map[string]any{"transaction": fmt.Sprintf("%d %v", i+1, m["type"])}
				for k, x := range em {
					row[k] = x
				}
				events = append(events, row)
			}
		}
	}
	if len(events) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return listTable("transaction", "id", "type", "amount", "date")(w, map[string]any{"data": events})
}

var attemptTable = objectTable(false, "paymentAttemptId", "status", "clientSessionId", "expiresAt", "paymentId", "merchantPaymentId")

// --- trigger ---

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
			"  paysandbox trigger dispute xYz12AbC --reason fraud --amount 500 --output json",
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
			}
			if o.Amount > 0 {
				body["amount"] = o.Amount
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/payments/" + url.PathEscape(o.ID) + "/dispute", Body: body},
				objectTable(true, "disputeId", "paymentId"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.Reason, "reason", "", "dispute reason (e.g. fraud)")
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

// --- attempts ---

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

// --- payments ---

type paymentsListOptions struct {
	simpleOptions
	Status, Currency, Customer, Order, Last4, Processor, From, To, Cursor []string
	MinAmount, MaxAmount                                                  string
	Limit                                                                 int
}

func newPaymentsListCmd(deps *cliDeps, runF func(*paymentsListOptions) error) *cobra.Command {
	o := &paymentsListOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List payments, newest first, with GET /payments filters",
		Example: "  paysandbox payments list --status AUTHORIZED,SETTLED --limit 10\n" +
			"  paysandbox payments list --order order-1 --output json",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Limit < 0 || o.Limit > 100 {
				return usageErrorf("--limit must be from 1 to 100")
			}
			if runF != nil {
				return runF(o)
			}
			q := url.Values{}
			add := func(name string, vals []string) {
				if len(vals) > 0 {
					q.Set(name, strings.Join(vals, ","))
				}
			}
			add("status", o.Status)
			add("currency_code", o.Currency)
			add("customer_id", o.Customer)
			add("order_id", o.Order)
			add("last_4_digits", o.Last4)
			add("processor", o.Processor)
			add("from_date", o.From)
			add("to_date", o.To)
			add("cursor", o.Cursor)
			if o.MinAmount != "" {
				q.Set("min_amount", o.MinAmount)
			}
			if o.MaxAmount != "" {
				q.Set("max_amount", o.MaxAmount)
			}
			if o.Limit > 0 {
				q.Set("limit", strconv.Itoa(o.Limit))
			}
			raw, err := o.Client.do(ctxOf(cmd), request{Method: "GET", Path: "/payments", Query: q})
			if err != nil {
				return err
			}
			return o.Client.render(raw, func(w io.Writer, v map[string]any) error {
				if err := listTable("id", "status", "amount", "currencyCode", "orderId", "date")(w, v); err != nil {
					return err
				}
				if next, _ := v["nextCursor"].(string); next != "" {
					fmt.Fprintf(w, "more: --cursor %s\n", next)
				}
				return nil
			})
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	f := cmd.Flags()
	f.StringSliceVar(&o.Status, "status", nil, "status filter (status), comma list")
	f.StringSliceVar(&o.Currency, "currency", nil, "currency filter (currency_code)")
	f.StringSliceVar(&o.Customer, "customer", nil, "customer filter (customer_id)")
	f.StringSliceVar(&o.Order, "order", nil, "order id (order_id)")
	f.StringSliceVar(&o.Last4, "last4", nil, "card's last 4 digits (last_4_digits)")
	f.StringSliceVar(&o.Processor, "processor", nil, "processor name (processor)")
	f.StringSliceVar(&o.From, "from", nil, "from date, RFC 3339 (from_date)")
	f.StringSliceVar(&o.To, "to", nil, "to date, RFC 3339 (to_date)")
	f.StringSliceVar(&o.Cursor, "cursor", nil, "page cursor from a previous answer (cursor)")
	f.StringVar(&o.MinAmount, "min-amount", "", "minimum amount (min_amount)")
	f.StringVar(&o.MaxAmount, "max-amount", "", "maximum amount (max_amount)")
	f.IntVar(&o.Limit, "limit", 0, "page size, 1-100 (limit; default 100)")
	return cmd
}

type paymentsGetOptions struct {
	simpleOptions
	Expand bool
}

func newPaymentsGetCmd(deps *cliDeps, runF func(*paymentsGetOptions) error) *cobra.Command {
	o := &paymentsGetOptions{}
	cmd := &cobra.Command{
		Use:     "get PAYMENT_ID",
		Short:   "Show a payment (GET /payments/{id})",
		Example: "  paysandbox payments get xYz12AbC --output json",
		Args:    exactArgs("PAYMENT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			q := url.Values{}
			if o.Expand {
				q.Set("expand", "transactions.events")
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/payments/" + url.PathEscape(o.ID), Query: q}, paymentTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().BoolVar(&o.Expand, "events", false, "include transactions.events (expand)")
	return cmd
}

type paymentsWaitOptions struct {
	simpleOptions
	Status  string
	Timeout time.Duration
}

func newPaymentsWaitCmd(deps *cliDeps, runF func(*paymentsWaitOptions) error) *cobra.Command {
	o := &paymentsWaitOptions{}
	cmd := &cobra.Command{
		Use:   "wait PAYMENT_ID --status STATUS",
		Short: "Wait until a payment has a status (exit 1 with WaitTimeout otherwise)",
		Example: "  paysandbox payments wait xYz12AbC --status SETTLED --timeout 10s\n" +
			"  paysandbox payments wait xYz12AbC --status AUTHORIZED || paysandbox requests --payment xYz12AbC",
		Args: exactArgs("PAYMENT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if o.Status == "" {
				return usageErrorf("--status is required (e.g. --status SETTLED)")
			}
			if o.Timeout < 0 || o.Timeout > 60*time.Second {
				return usageErrorf("--timeout must be from 0s to 60s")
			}
			if runF != nil {
				return runF(o)
			}
			q := url.Values{"paymentId": {o.ID}, "status": {o.Status}, "timeout": {o.Timeout.String()}}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/wait", Query: q}, paymentTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.Status, "status", "", "the status to wait for (required)")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 5*time.Second, "how long to wait, at most 60s")
	return cmd
}

// --- clock ---

func newClockShowCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "show",
		Short:   "Show the tenant's clock",
		Example: "  paysandbox clock show",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/clock"}, objectTable(true, "now"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

type clockAdvanceOptions struct {
	simpleOptions
	Duration time.Duration
}

func newClockAdvanceCmd(deps *cliDeps, runF func(*clockAdvanceOptions) error) *cobra.Command {
	o := &clockAdvanceOptions{}
	cmd := &cobra.Command{
		Use:   "advance DURATION",
		Short: "Move the tenant's clock forward and run everything due (expiries, settlements, webhook retries)",
		Long: "Move the tenant's clock forward and run everything due on it: client-token and attempt expiries,\n" +
			"scheduled authorizations, settlements, disputes and webhook retries. The tenant's own ttl runs on\n" +
			"the wall clock, so advancing by days never expires the tenant.",
		Example: "  paysandbox clock advance 15m\n" +
			"  paysandbox clock advance 24h --output json",
		Args: exactArgs("DURATION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := time.ParseDuration(args[0])
			if err != nil || d <= 0 {
				return usageErrorf("DURATION %q is not a positive duration like 90s, 15m or 24h", args[0])
			}
			o.Duration = d
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/clock/advance", Body: map[string]string{"duration": d.String()}},
				func(w io.Writer, v map[string]any) error {
					if err := objectTable(false, "now")(w, v); err != nil {
						return err
					}
					fired, _ := v["fired"].([]any)
					if len(fired) == 0 {
						return nil
					}
					fmt.Fprintln(w)
					if err := listTable("kind", "at", "paymentId", "attemptId", "eventId")(w, map[string]any{"data": fired}); err != nil {
						return err
					}
					if n := countPending(fired); n > 0 {
						fmt.Fprintf(w, "\n%d webhook attempt(s) were still in flight when the advance stopped waiting for them (serve --advance-wait);\n"+
							"they finish on their own: paysandbox webhooks list shows their outcome.\n", n)
					}
					return nil
				})
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

// --- tenants ---

type tenantsCreateOptions struct {
	simpleOptions
	AdminKey   string
	TTL        time.Duration
	Scopes     []string
	WebhookURL string
}

func adminKeyFlag(cmd *cobra.Command, p *string, deps *cliDeps) {
	cmd.Flags().StringVar(p, "admin-key", deps.Getenv("PAYSANDBOX_ADMIN_KEY"), "the sandbox's admin key, when it has one (env PAYSANDBOX_ADMIN_KEY)")
}

func adminHeaders(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"X-Admin-Key": key}
}

func newTenantsCreateCmd(deps *cliDeps, runF func(*tenantsCreateOptions) error) *cobra.Command {
	o := &tenantsCreateOptions{}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a tenant with its own data, clock, key and signing secret",
		Example: "  paysandbox tenants create --ttl 2h\n" +
			"  set -a; eval \"$(paysandbox tenants create --ttl 1h --output env)\"; set +a   # PAYSANDBOX_API_KEY for the next commands\n" +
			"  paysandbox tenants create --output env >> \"$GITHUB_ENV\"",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("ttl") && o.TTL <= 0 {
				return usageErrorf("--ttl must be a positive duration like 2h")
			}
			if runF != nil {
				return runF(o)
			}
			body := map[string]any{}
			if o.TTL > 0 {
				body["ttl"] = o.TTL.String()
			}
			if cmd.Flags().Changed("scopes") {
				body["scopes"] = append([]string{}, o.Scopes...)
			}
			if o.WebhookURL != "" {
				body["webhookUrl"] = o.WebhookURL
			}
			raw, err := o.Client.do(ctxOf(cmd), request{Method: "POST", Path: "/_sandbox/tenants", Body: body, Headers: adminHeaders(o.AdminKey)})
			if err != nil {
				return err
			}
			if o.Client.Output == "env" {
				return o.Client.renderEnv(raw)
			}
			return o.Client.render(raw, objectTable(true, "tenantId", "apiKey", "signingSecret", "expiresAt"))
		},
	}
	addClientFlags(cmd, &o.Client, deps, "table", "json", "env")
	adminKeyFlag(cmd, &o.AdminKey, deps)
	cmd.Flags().DurationVar(&o.TTL, "ttl", 0, "delete the tenant and its data after this long on the wall clock (advancing the tenant's clock never expires it), e.g. 2h")
	cmd.Flags().StringSliceVar(&o.Scopes, "scopes", nil, "the key's scopes, comma list (default every scope)")
	cmd.Flags().StringVar(&o.WebhookURL, "webhook-url", "", "the tenant's webhook endpoint")
	return cmd
}

// renderEnv prints a new tenant as KEY=value lines, for eval, $GITHUB_ENV or
// docker --env-file.
func (o *clientOptions) renderEnv(raw []byte) error {
	var t struct {
		TenantID, APIKey, SigningSecret string
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return &checkError{id: "BadAnswer", msg: "the sandbox answered something that is not a tenant"}
	}
	_, err := fmt.Fprintf(o.deps.Out, "PAYSANDBOX_URL=%s\nPAYSANDBOX_API_KEY=%s\nPAYSANDBOX_TENANT_ID=%s\nPAYSANDBOX_SIGNING_SECRET=%s\n",
		o.URL, t.APIKey, t.TenantID, t.SigningSecret)
	return err
}

type tenantsAdminOptions struct {
	simpleOptions
	AdminKey string
}

func newTenantsListCmd(deps *cliDeps, runF func(*tenantsAdminOptions) error) *cobra.Command {
	o := &tenantsAdminOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List every tenant (admin key)",
		Example: "  paysandbox tenants list --admin-key \"$PAYSANDBOX_ADMIN_KEY\"",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/tenants", Headers: adminHeaders(o.AdminKey)},
				listTable("tenantId", "createdAt", "expiresAt", "webhookUrl", "fromConfig"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	adminKeyFlag(cmd, &o.AdminKey, deps)
	return cmd
}

func newTenantsDeleteCmd(deps *cliDeps, runF func(*tenantsAdminOptions) error) *cobra.Command {
	o := &tenantsAdminOptions{}
	cmd := &cobra.Command{
		Use:     "delete TENANT_ID",
		Short:   "Delete a tenant and all its data (admin key)",
		Example: "  paysandbox tenants delete t_0123456789abcdef",
		Args:    exactArgs("TENANT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "DELETE", Path: "/_sandbox/tenants/" + url.PathEscape(o.ID), Headers: adminHeaders(o.AdminKey)},
				objectTable(true, "tenantId", "status"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	adminKeyFlag(cmd, &o.AdminKey, deps)
	return cmd
}

// --- reset, requests, hints ---

func newResetCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "reset",
		Short:   "Delete the tenant's data, clock offset, jobs, events and journal (keys and settings stay)",
		Example: "  PAYSANDBOX_API_KEY=sk_... paysandbox reset",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/reset"}, objectTable(true, "tenantId", "status"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

type requestsOptions struct {
	simpleOptions
	Limit     int
	PaymentID string
	Status    string
	Since     string
}

func newRequestsCmd(deps *cliDeps, runF func(*requestsOptions) error) *cobra.Command {
	o := &requestsOptions{}
	cmd := &cobra.Command{
		Use:   "requests",
		Short: "Show the tenant's request journal, newest first, with hints",
		Example: "  paysandbox requests --limit 20\n" +
			"  paysandbox requests --payment xYz12AbC --status 4xx --output json",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Limit < 0 {
				return usageErrorf("--limit must be positive")
			}
			if o.Since != "" {
				if _, err := time.Parse(time.RFC3339Nano, o.Since); err != nil {
					return usageErrorf("--since %q is not an RFC 3339 time like 2026-11-22T07:30:00Z", o.Since)
				}
			}
			if runF != nil {
				return runF(o)
			}
			q := url.Values{}
			if o.Limit > 0 {
				q.Set("limit", strconv.Itoa(o.Limit))
			}
			for k, v := range map[string]string{"paymentId": o.PaymentID, "status": o.Status, "since": o.Since} {
				if v != "" {
					q.Set(k, v)
				}
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/requests", Query: q}, journalTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().IntVar(&o.Limit, "limit", 20, "at most this many entries")
	cmd.Flags().StringVar(&o.PaymentID, "payment", "", "only requests about this payment")
	cmd.Flags().StringVar(&o.Status, "status", "", "only this HTTP status (422) or class (4xx)")
	cmd.Flags().StringVar(&o.Since, "since", "", "only requests at or after this RFC 3339 time")
	return cmd
}

// journalTable shows one line per request, its hints below it.
func journalTable(w io.Writer, v map[string]any) error {
	rows, _ := v["data"].([]any)
	for _, r := range rows {
		m, _ := r.(map[string]any)
		if hs, ok := m["hints"].([]any); ok && len(hs) > 0 {
			kinds := make([]string, 0, len(hs))
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				kinds = append(kinds, cell(hm["kind"]))
			}
			m["hintKinds"] = strings.Join(kinds, ",")
		}
	}
	return listTable("at", "method", "path", "status", "latencyMs", "requestId", "hintKinds")(w, v)
}

func newHintsCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "hints",
		Short:   "Summarise the integration mistakes the journal saw, per kind, with a fix",
		Example: "  paysandbox hints\n  paysandbox hints --output json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/hints"},
				func(w io.Writer, v map[string]any) error {
					rows, _ := v["data"].([]any)
					if len(rows) == 0 {
						_, err := fmt.Fprintln(w, "no hints: nothing production would punish was seen")
						return err
					}
					for _, r := range rows {
						m, _ := r.(map[string]any)
						ids, _ := m["latestRequestIds"].([]any)
						if len(ids) == 0 {
							ids, _ = m["latestEventIds"].([]any)
						}
						latest := make([]string, 0, len(ids))
						for _, id := range ids {
							latest = append(latest, cell(id))
						}
						fmt.Fprintf(w, "%s (%s)\n  last: %s\n  fix:  %s\n  ids:  %s\n", cell(m["kind"]), cell(m["count"]), cell(m["lastMessage"]), cell(m["fix"]), strings.Join(latest, " "))
					}
					return nil
				})
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

// countPending counts the items of a clock advance's fired list that are
// webhook attempts still in flight ("pending": true).
func countPending(fired []any) int {
	n := 0
	for _, f := range fired {
		if m, _ := f.(map[string]any); m["pending"] == true {
			n++
		}
	}
	return n
}
