package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/scenarios"
	"github.com/paysandbox/paysandbox/simulator"
)

// usageArgs is cobra.ExactArgs(n) whose failure is a usage error (exit 2).
func usageArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageErrorf("%v; usage: %s", err, cmd.UseLine())
		}
		return nil
	}
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
		Example: "  paysandbox scenarios validate scenarios.yaml\n" +
			"  paysandbox scenarios validate my-rules.yaml && paysandbox scenarios apply my-rules.yaml",
		Args: usageArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			data, err := os.ReadFile(opts.File)
			if err != nil {
				return err
			}
			// Like PUT /_sandbox/scenarios: processors and defaultProcessor
			// left out come from the built-in file.
			doc, err := scenarios.Load(opts.File, data, processors.DefaultDoc())
			var le *scenarios.Error
			if errors.As(err, &le) {
				for _, line := range le.Lines() {
					fmt.Fprintln(cmd.ErrOrStderr(), line)
				}
				return fmt.Errorf("%s: %s: %d problem(s)", simulator.CodeScenarioValidationError, opts.File, len(le.Problems))
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: valid (%d rules, %d processors, default %s)\n",
				opts.File, len(doc.Rules), len(doc.Processors), doc.DefaultProcessor)
			if !scenarios.HasProcessors(data) {
				fmt.Fprintln(cmd.OutOrStdout(), "  processors and defaultProcessor come from the built-in scenarios.yaml, as for a tenant's rules (a --scenarios file for serve needs its own)")
			}
			return nil
		},
	}
}

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
	Expiry     string // MM/YYYY, with Card
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
	if month, year, ok := strings.Cut(o.Expiry, "/"); ok {
		body["expirationMonth"], body["expirationYear"] = month, year
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
			"  paysandbox scenarios explain --card 4111111111111111 --expiry 01/2020\n" +
			"  paysandbox scenarios explain --amount 1000 --metadata refund=fail\n" +
			"  paysandbox scenarios explain xYz12AbC\n" +
			"  echo '{\"amount\": 4051, \"currencyCode\": \"EUR\"}' | paysandbox scenarios explain --request -",
		Args: func(cmd *cobra.Command, args []string) error {
			flags := false
			if o.Expiry != "" && !regexp.MustCompile(`^[0-9]{2}/[0-9]{4}$`).MatchString(o.Expiry) {
				return usageErrorf("--expiry must be MM/YYYY, e.g. 01/2020")
			}
			for _, f := range []string{"amount", "card", "order-id", "customer-id", "metadata", "token", "expiry"} {
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
	f.StringVar(&o.Expiry, "expiry", "", "the card's expiry, MM/YYYY (when.expired judges it against the tenant clock)")
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
