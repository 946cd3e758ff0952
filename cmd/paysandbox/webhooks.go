package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
)

// Client commands on the routes of SANDBOX.md section 8 that the webhooks
// and scenarios work serves: `webhooks ...`, `disputes ...` and the
// unregistered scenarios constructors (the lead registers them under the
// `scenarios` parent).

var eventListTable = listTable("id", "eventType", "paymentId", "status", "createdAt")

// newWebhooksCmd is the `webhooks` parent; `verify` and `listen` (standalone,
// no server) are added beside these when merged.
func newWebhooksCmd(deps *cliDeps, extra ...*cobra.Command) *cobra.Command {
	endpoint := newParentCmd("endpoint", "Set or show the tenant's webhook endpoint",
		"  paysandbox webhooks endpoint set http://localhost:9000/hooks",
		newWebhooksEndpointSetCmd(deps, nil), newWebhooksEndpointShowCmd(deps, nil))
	chaos := newWebhooksChaosCmd(deps, nil)
	chaos.AddCommand(newWebhooksChaosOffCmd(deps, nil))
	children := []*cobra.Command{
		newWebhooksListCmd(deps, nil), newWebhooksGetCmd(deps, nil), newWebhooksDeliverCmd(deps, nil),
		newWebhooksReplayCmd(deps, nil), endpoint, newWebhooksRotateSecretCmd(deps, nil), chaos, newWebhooksWaitCmd(deps, nil),
	}
	return newParentCmd("webhooks", "Inspect, deliver, replay and shape the tenant's webhooks",
		"  paysandbox webhooks list --payment xYz12AbC\n  paysandbox webhooks replay EVENT_ID",
		append(children, extra...)...)
}

type webhooksListOptions struct {
	simpleOptions
	PaymentID, Type, Status string
	Limit                   int
}

func newWebhooksListCmd(deps *cliDeps, runF func(*webhooksListOptions) error) *cobra.Command {
	o := &webhooksListOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the tenant's webhook events with their delivery status",
		Example: "  paysandbox webhooks list --payment xYz12AbC --type PAYMENT.STATUS",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			q := url.Values{}
			for k, v := range map[string]string{"paymentId": o.PaymentID, "type": o.Type, "status": o.Status} {
				if v != "" {
					q.Set(k, v)
				}
			}
			if o.Limit > 0 {
				q.Set("limit", strconv.Itoa(o.Limit))
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/webhooks/events", Query: q}, eventListTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.PaymentID, "payment", "", "only events of this payment")
	cmd.Flags().StringVar(&o.Type, "type", "", "only this event type (PAYMENT.STATUS, PAYMENT.REFUND, DISPUTE.OPENED, DISPUTE.STATUS)")
	cmd.Flags().StringVar(&o.Status, "status", "", "only this delivery status (PENDING, DELIVERED, EXHAUSTED)")
	cmd.Flags().IntVar(&o.Limit, "limit", 0, "at most this many events")
	return cmd
}

func newWebhooksGetCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "get EVENT_ID",
		Short:   "Show one event: the exact body sent and every delivery attempt",
		Example: "  paysandbox webhooks get 5d0c6a1e-3f7b-4e55-a1c2-0d9e8f7a6b5c --output json",
		Args:    exactArgs("EVENT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/webhooks/events/" + url.PathEscape(o.ID)},
				func(w io.Writer, v map[string]any) error {
					if err := objectTable(false, "id", "eventType", "paymentId", "status", "createdAt", "nextAttemptAt")(w, v); err != nil {
						return err
					}
					if att, ok := v["attempts"].([]any); ok && len(att) > 0 {
						fmt.Fprintln(w)
						// replay and chaos tell a replayed or chaos-made attempt from a scheduled one.
						return listTable("at", "statusCode", "latencyMs", "error", "replay", "chaos")(w, map[string]any{"data": att})
					}
					return nil
				})
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

func newWebhooksDeliverCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "deliver",
		Short:   "Try every pending delivery now",
		Example: "  paysandbox webhooks deliver",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/webhooks/deliver"}, objectTable(true, "delivered", "failed"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

func newWebhooksReplayCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "replay EVENT_ID",
		Short:   "Send an event again now (same X-Event-Id, new signedAt)",
		Example: "  paysandbox webhooks replay 5d0c6a1e-3f7b-4e55-a1c2-0d9e8f7a6b5c",
		Args:    exactArgs("EVENT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/webhooks/events/" + url.PathEscape(o.ID) + "/replay"},
				objectTable(true, "at", "statusCode", "latencyMs", "error"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

type webhooksEndpointOptions struct {
	simpleOptions
	URL string
}

func newWebhooksEndpointSetCmd(deps *cliDeps, runF func(*webhooksEndpointOptions) error) *cobra.Command {
	o := &webhooksEndpointOptions{}
	cmd := &cobra.Command{
		Use:     "set URL",
		Short:   "Set the tenant's webhook endpoint",
		Example: "  paysandbox webhooks endpoint set http://host.docker.internal:9000/hooks",
		Args:    exactArgs("URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.URL = args[0]
			if u, err := url2(o.URL); err != nil || u.Host == "" {
				return usageErrorf("URL %q is not an absolute http(s) URL", o.URL)
			}
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "PUT", Path: "/_sandbox/webhooks/endpoint", Body: map[string]string{"url": o.URL}},
				objectTable(true, "url"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

func newWebhooksEndpointShowCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "show",
		Short:   "Show the tenant's webhook endpoint",
		Example: "  paysandbox webhooks endpoint show",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/webhooks/endpoint"}, objectTable(true, "url"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

func newWebhooksRotateSecretCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "rotate-secret",
		Short:   "Rotate the signing secret (the old one signs X-Signature-Secondary for 24h)",
		Example: "  paysandbox webhooks rotate-secret --output json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/webhooks/rotate-secret"}, objectTable(true, "signingSecret"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

type webhooksChaosOptions struct {
	simpleOptions
	Duplicate float64
	Reorder   bool
	Delay     time.Duration
	Seed      int64
	set       map[string]bool
}

// newWebhooksChaosCmd is `webhooks chaos`: duplicate is the fraction of
// deliveries sent twice (0 to 1), reorder releases a payment's events out of
// order, delay holds each first attempt back, seed makes the chaos
// repeatable. Only the flags given are sent.
func newWebhooksChaosCmd(deps *cliDeps, runF func(*webhooksChaosOptions) error) *cobra.Command {
	o := &webhooksChaosOptions{}
	cmd := &cobra.Command{
		Use:   "chaos",
		Short: "Make deliveries duplicate, reorder or lag, seeded (see `chaos off`)",
		Example: "  paysandbox webhooks chaos --duplicate 0.2 --reorder --delay 5s --seed 42\n" +
			"  paysandbox webhooks chaos off",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unknown command %q for %q (did you mean `chaos off`?)", args[0], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.set = map[string]bool{}
			for _, f := range []string{"duplicate", "reorder", "delay", "seed"} {
				o.set[f] = cmd.Flags().Changed(f)
			}
			if !o.set["duplicate"] && !o.set["reorder"] && !o.set["delay"] {
				return usageErrorf("give at least one of --duplicate, --reorder, --delay (or run `chaos off`)")
			}
			if o.Duplicate < 0 || o.Duplicate > 1 {
				return usageErrorf("--duplicate must be a fraction from 0 to 1")
			}
			if o.Delay < 0 {
				return usageErrorf("--delay must not be negative")
			}
			if runF != nil {
				return runF(o)
			}
			body := map[string]any{}
			if o.set["duplicate"] {
				body["duplicate"] = o.Duplicate
			}
			if o.set["reorder"] {
				body["reorder"] = o.Reorder
			}
			if o.set["delay"] {
				body["delay"] = o.Delay.String()
			}
			if o.set["seed"] {
				body["seed"] = o.Seed
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "PUT", Path: "/_sandbox/webhooks/chaos", Body: body}, objectTable(true))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().Float64Var(&o.Duplicate, "duplicate", 0, "probability that a delivery is sent twice (0-1)")
	cmd.Flags().BoolVar(&o.Reorder, "reorder", false, "release each payment's events out of order (newest first)")
	cmd.Flags().DurationVar(&o.Delay, "delay", 0, "delay before each first attempt, on the tenant clock, e.g. 5s")
	cmd.Flags().Int64Var(&o.Seed, "seed", 0, "seed of the chaos (same seed, same chaos)")
	return cmd
}

func newWebhooksChaosOffCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "off",
		Short:   "Turn delivery chaos off",
		Example: "  paysandbox webhooks chaos off",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "PUT", Path: "/_sandbox/webhooks/chaos", Body: map[string]any{}}, objectTable(true))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

type webhooksWaitOptions struct {
	simpleOptions
	PaymentID, Type, Status string
	Timeout                 time.Duration
}

func newWebhooksWaitCmd(deps *cliDeps, runF func(*webhooksWaitOptions) error) *cobra.Command {
	o := &webhooksWaitOptions{}
	cmd := &cobra.Command{
		Use:   "wait --payment PAYMENT_ID",
		Short: "Wait until an event of a payment has a delivery status (exit 1 with WaitTimeout otherwise)",
		Example: "  paysandbox webhooks wait --payment xYz12AbC --type DISPUTE.OPENED\n" +
			"  paysandbox webhooks wait --payment xYz12AbC --status EXHAUSTED --timeout 30s",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.PaymentID == "" {
				return usageErrorf("--payment is required")
			}
			if o.Timeout < 0 || o.Timeout > 60*time.Second {
				return usageErrorf("--timeout must be from 0s to 60s")
			}
			if runF != nil {
				return runF(o)
			}
			q := url.Values{"paymentId": {o.PaymentID}, "status": {o.Status}, "timeout": {o.Timeout.String()}}
			if o.Type != "" {
				q.Set("type", o.Type)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/webhooks/wait", Query: q},
				objectTable(false, "id", "eventType", "paymentId", "status", "createdAt"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.PaymentID, "payment", "", "the payment whose event to wait for (required)")
	cmd.Flags().StringVar(&o.Type, "type", "", "the event type (default any)")
	cmd.Flags().StringVar(&o.Status, "status", "DELIVERED", "the delivery status to wait for")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 5*time.Second, "how long to wait, at most 60s")
	return cmd
}

// --- disputes ---

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

// disputeStatuses are the statuses a dispute can be moved to (SANDBOX.md section 8).
var disputeStatuses = []string{"CHALLENGED", "ACCEPTED", "WON", "LOST", "EXPIRED", "CANCELLED"}

type disputesSetStatusOptions struct {
	simpleOptions
	Status string
	Type   string
}

func newDisputesSetStatusCmd(deps *cliDeps, runF func(*disputesSetStatusOptions) error) *cobra.Command {
	o := &disputesSetStatusOptions{}
	cmd := &cobra.Command{
		Use:     "set-status DISPUTE_ID STATUS",
		Short:   "Move a dispute (CHALLENGED, ACCEPTED, WON, LOST, EXPIRED, CANCELLED); sends DISPUTE.STATUS",
		Example: "  paysandbox disputes set-status 7c9e6679-7425-40de-944b-e07fc1f90ae7 WON",
		Args:    exactArgs("DISPUTE_ID", "STATUS"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID, o.Status = args[0], args[1]
			if !contains(disputeStatuses, o.Status) {
				return usageErrorf("STATUS %q is not one of %v", o.Status, disputeStatuses)
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
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().StringVar(&o.Type, "type", "", "the dispute type to report (e.g. CHARGEBACK)")
	return cmd
}

// --- scenarios (unregistered: the lead adds them under h8's `scenarios`) ---

var explainTable = func(w io.Writer, v map[string]any) error {
	fmt.Fprintf(w, "matched: %s\n", cell(v["matched"]))
	if next, ok := v["next"].(map[string]any); ok {
		fmt.Fprintf(w, "next: one-shot %s for %s more payment(s) (paysandbox next --clear drops it)\n", cell(next["rule"]), cell(next["remaining"]))
	}
	fmt.Fprintln(w)
	return listTable("name", "matched", "reason")(w, map[string]any{"data": v["rules"]})
}

// scenarioRulesTable lists the rules in force: name, when, and the outcome
// keys (everything else of the rule), each as compact JSON.
func scenarioRulesTable(w io.Writer, v map[string]any) error {
	rules, _ := v["rules"].([]any)
	rows := make([]any, 0, len(rules))
	for _, r := range rules {
		m, _ := r.(map[string]any)
		outcome := map[string]any{}
		for k, x := range m {
			if k != "name" && k != "when" {
				outcome[k] = x
			}
		}
		rows = append(rows, map[string]any{"name": m["name"], "when": m["when"], "outcome": outcome})
	}
	fmt.Fprintf(w, "defaultProcessor: %s\n\n", cell(v["defaultProcessor"]))
	return listTable("name", "when", "outcome")(w, map[string]any{"data": rows})
}

func newScenariosListCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the scenario rules in force for the tenant",
		Example: "  paysandbox scenarios list --output json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			// The route answers YAML unless asked for JSON.
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/scenarios",
				Headers: map[string]string{"Accept": "application/json"}}, scenarioRulesTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

type scenariosExplainOptions struct {
	simpleOptions
	RequestFile string
	// A payment request built from flags (when neither PAYMENT_ID nor
	// --request is given).
	Amount     int64
	Currency   string
	Card       string
	OrderID    string
	CustomerID string
	Metadata   map[string]string
	Token      string
}

// explainBody is the POST /_sandbox/scenarios/explain body the flags describe.
func (o *scenariosExplainOptions) explainBody(set func(string) bool) map[string]any {
	body := map[string]any{}
	if set("amount") {
		body["amount"] = o.Amount
		body["currencyCode"] = o.Currency
	}
	if o.Card != "" {
		body["card"] = o.Card
	}
	if o.OrderID != "" {
		body["orderId"] = o.OrderID
	}
	if o.CustomerID != "" {
		body["customerId"] = o.CustomerID
	}
	if len(o.Metadata) > 0 {
		body["metadata"] = o.Metadata
	}
	if o.Token != "" {
		body["paymentMethodToken"] = o.Token
	}
	return body
}

func newScenariosExplainCmd(deps *cliDeps, runF func(*scenariosExplainOptions) error) *cobra.Command {
	o := &scenariosExplainOptions{}
	cmd := &cobra.Command{
		Use:   "explain [PAYMENT_ID | --request FILE | --amount N --card NUMBER ...]",
		Short: "Explain which rule a payment got, or which a payment request would get, and why",
		Example: "  paysandbox scenarios explain --amount 7050 --card 4111111111111111\n" +
			"  paysandbox scenarios explain --amount 1000 --metadata refund=fail\n" +
			"  paysandbox scenarios explain xYz12AbC\n" +
			"  echo '{\"amount\": 4051, \"currencyCode\": \"EUR\"}' | paysandbox scenarios explain --request -",
		Args: func(cmd *cobra.Command, args []string) error {
			flags := false
			for _, f := range []string{"amount", "card", "order-id", "customer-id", "metadata", "token"} {
				flags = flags || cmd.Flags().Changed(f)
			}
			ways := 0
			for _, b := range []bool{len(args) == 1, o.RequestFile != "", flags} {
				if b {
					ways++
				}
			}
			if len(args) > 1 || ways != 1 {
				return usageErrorf("give one of PAYMENT_ID, --request FILE, or request flags (--amount, --card, --order-id, --customer-id, --metadata, --token)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.ID = args[0]
			}
			if runF != nil {
				return runF(o)
			}
			if o.ID != "" {
				return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/payments/" + url.PathEscape(o.ID) + "/explain"}, explainTable)
			}
			var body any
			if o.RequestFile != "" {
				b, err := readFileArg(cmd, o.RequestFile)
				if err != nil {
					return err
				}
				body = b
			} else {
				body = o.explainBody(cmd.Flags().Changed)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/scenarios/explain", Body: body}, explainTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	f := cmd.Flags()
	f.StringVar(&o.RequestFile, "request", "", "a JSON payment request to explain (- for stdin)")
	f.Int64Var(&o.Amount, "amount", 0, "amount in minor units")
	f.StringVar(&o.Currency, "currency", "EUR", "currency code sent with --amount")
	f.StringVar(&o.Card, "card", "", "a card number (tokens hide it; rules match cards by number)")
	f.StringVar(&o.OrderID, "order-id", "", "orderId (rules match it as a glob)")
	f.StringVar(&o.CustomerID, "customer-id", "", "customerId")
	f.StringToStringVar(&o.Metadata, "metadata", nil, "metadata pairs, e.g. refund=fail,sandboxScenario=dispute-card")
	f.StringVar(&o.Token, "token", "", "a payment method token (its session fills in what the flags leave out)")
	return cmd
}

type scenariosApplyOptions struct {
	simpleOptions
	File  string
	Reset bool
}

func newScenariosApplyCmd(deps *cliDeps, runF func(*scenariosApplyOptions) error) *cobra.Command {
	o := &scenariosApplyOptions{}
	cmd := &cobra.Command{
		Use:   "apply FILE | --reset",
		Short: "Replace the tenant's scenario rules with a YAML file, or go back to the server's (--reset)",
		Example: "  paysandbox scenarios apply ./my-scenarios.yaml\n" +
			"  paysandbox scenarios apply --reset",
		Args: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == o.Reset || len(args) > 1 {
				return usageErrorf("give either FILE or --reset")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.File = args[0]
			}
			if runF != nil {
				return runF(o)
			}
			if o.Reset {
				return simpleRun(ctxOf(cmd), &o.Client, request{Method: "DELETE", Path: "/_sandbox/scenarios"}, objectTable(true))
			}
			body, err := readFileArg(cmd, o.File)
			if err != nil {
				return err
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "PUT", Path: "/_sandbox/scenarios", Body: body,
				Headers: map[string]string{"Content-Type": "application/yaml"}}, objectTable(true))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().BoolVar(&o.Reset, "reset", false, "go back to the rules the server was started with")
	return cmd
}

// readFileArg reads a file argument ("-" is stdin); a missing file is a usage error.
func readFileArg(cmd *cobra.Command, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(cmd.InOrStdin())
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, usageErrorf("cannot read %s: %v", name, err)
	}
	return b, nil
}
