package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

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

type paymentsListOptions struct {
	simpleOptions
	Status, Currency, Customer, Order, Last4, Processor, From, To, Cursor []string
	MethodType, Email, Merchant                                           []string
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
			return runPaymentsList(ctxOf(cmd), o)
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
	f.StringSliceVar(&o.Merchant, "merchant", nil, "processor merchant id (merchant_id)")
	f.StringSliceVar(&o.MethodType, "method-type", nil, "payment method type, e.g. PAYMENT_CARD (payment_method_type)")
	f.StringSliceVar(&o.Email, "email", nil, "customer's e-mail address, any case (customer_email_address)")
	f.StringSliceVar(&o.From, "from", nil, "from date, RFC 3339 (from_date)")
	f.StringSliceVar(&o.To, "to", nil, "to date, RFC 3339 (to_date)")
	f.StringSliceVar(&o.Cursor, "cursor", nil, "page cursor from a previous answer (cursor)")
	f.StringVar(&o.MinAmount, "min-amount", "", "minimum amount (min_amount)")
	f.StringVar(&o.MaxAmount, "max-amount", "", "maximum amount (max_amount)")
	f.IntVar(&o.Limit, "limit", 0, "page size, 1-100 (limit; default 100)")
	return cmd
}

// query is the GET /payments query of o's filters (empty ones left out).
func (o *paymentsListOptions) query() url.Values {
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
	add("merchant_id", o.Merchant)
	add("payment_method_type", o.MethodType)
	add("customer_email_address", o.Email)
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
	return q
}

// runPaymentsList asks GET /payments with o's filters and renders the page
// (a table, then "more: --cursor X" when there is a next page).
func runPaymentsList(ctx context.Context, o *paymentsListOptions) error {
	raw, err := o.Client.do(ctx, request{Method: "GET", Path: "/payments", Query: o.query()})
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
}

type paymentsGetOptions struct {
	simpleOptions
	Expand bool
}

func newPaymentsGetCmd(deps *cliDeps, runF func(*paymentsGetOptions) error) *cobra.Command {
	o := &paymentsGetOptions{}
	cmd := &cobra.Command{
		Use:     "get PAYMENT_ID",
		Short:   "Show a payment, in the API version it was made with unless --api-version says one",
		Example: "  paysandbox payments get xYz12AbC --output json\n  paysandbox payments get xYz12AbC --api-version 2.4",
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
			// A version the user chose is asked of the merchant API, as
			// an integration pinned to it would; otherwise the control
			// plane answers in the payment's own version, and the read
			// counts in no migration note.
			path := "/_sandbox/payments/" + url.PathEscape(o.ID)
			if o.Client.VersionSet {
				path = "/payments/" + url.PathEscape(o.ID)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: path, Query: q}, paymentTable)
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
