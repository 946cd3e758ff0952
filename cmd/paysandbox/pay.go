package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// defaultPayCard is the test card `pay` uses unless --card says otherwise:
// the shipped rules authorize it.
const defaultPayCard = "4111111111111111"

type payOptions struct {
	Client   clientOptions
	Amount   int64
	Currency string
	Card     string
	Customer string
	Order    string // "" : a fresh order id per run
	Metadata map[string]string
	Manual   bool
}

// newPayCmd is `pay`: a client session, the card tokenised in it, and the
// payment, as a merchant's checkout and backend make them. The payment is
// printed whatever its status (a decline is an answer, not an error: exit 0);
// a 504 exits 1 naming the payment, which goes on and resolves later. With
// --manual the session is MANUAL (approvalMode) and the attempt is printed:
// the merchant approves it (`paysandbox attempts approve`).
func newPayCmd(deps *cliDeps, runF func(*payOptions) error) *cobra.Command {
	o := &payOptions{}
	cmd := &cobra.Command{
		Use:   "pay [--amount N] [--currency C] [--card NUMBER] [--manual]",
		Short: "Make a payment in one step: session, tokenised card, payment",
		Example: "  paysandbox pay --amount 1999 --currency EUR\n" +
			"  paysandbox pay --card 4000000000000002            # DECLINED, exit 0\n" +
			"  paysandbox pay --amount 5040 --order slow-1 -o json # 504: exit 1, names the payment\n" +
			"  paysandbox pay --manual                           # prints the attempt to approve",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Amount < 0 {
				return usageErrorf("--amount must not be negative (minor units)")
			}
			if runF != nil {
				return runF(o)
			}
			return runPay(ctxOf(cmd), o)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	f := cmd.Flags()
	f.Int64Var(&o.Amount, "amount", 1000, "amount in minor units")
	f.StringVar(&o.Currency, "currency", "EUR", "currency code")
	f.StringVar(&o.Card, "card", defaultPayCard, "test card number (the rules decide its outcome: paysandbox scenarios list)")
	f.StringVar(&o.Customer, "customer", "", "customerId")
	f.StringVar(&o.Order, "order", "", "orderId (default a fresh one per run)")
	f.StringToStringVar(&o.Metadata, "metadata", nil, "metadata pairs, e.g. refund=fail,sandboxScenario=dispute-card")
	f.BoolVar(&o.Manual, "manual", false, "MANUAL approval: create the attempt and print it instead of paying")
	return cmd
}

func runPay(ctx context.Context, o *payOptions) error {
	c := &o.Client
	order := o.Order
	if order == "" {
		order = "cli-" + uuid.NewString()[:8]
	}
	session := map[string]any{"orderId": order, "currencyCode": o.Currency, "amount": o.Amount}
	if o.Customer != "" {
		session["customerId"] = o.Customer
	}
	if len(o.Metadata) > 0 {
		session["metadata"] = o.Metadata
	}
	if o.Manual {
		session["approvalMode"] = "MANUAL"
	}
	raw, err := c.do(ctx, request{Method: "POST", Path: "/client-session", Body: session})
	if err != nil {
		return err
	}
	var cs struct {
		ClientToken string `json:"clientToken"`
	}
	if json.Unmarshal(raw, &cs) != nil || cs.ClientToken == "" {
		return &checkError{id: "BadAnswer", msg: "the client session answer has no clientToken"}
	}
	raw, err = c.do(ctx, request{Method: "POST", Path: "/client/payment-instruments",
		Headers: map[string]string{"X-Client-Token": cs.ClientToken},
		Body: map[string]any{"paymentInstrument": map[string]any{
			"number": o.Card, "cvv": "123", "expirationMonth": "12",
			"expirationYear": strconv.Itoa(time.Now().Year() + 5), "cardholderName": "Jane Doe",
		}}})
	if err != nil {
		return err
	}
	var tok struct {
		Token            string `json:"token"`
		PaymentAttemptID string `json:"paymentAttemptId"`
	}
	if json.Unmarshal(raw, &tok) != nil || tok.Token == "" {
		return &checkError{id: "BadAnswer", msg: "the tokenisation answer has no token"}
	}
	if o.Manual {
		if tok.PaymentAttemptID == "" {
			return &checkError{id: "BadAnswer", msg: "a MANUAL session's tokenisation answered no paymentAttemptId"}
		}
		return simpleRun(ctx, c, request{Method: "GET", Path: "/_sandbox/payment-attempts/" + url.PathEscape(tok.PaymentAttemptID)}, attemptTable)
	}
	// An idempotency key, as an integration should send: a retry of this
	// command is a new payment, so each run has its own.
	raw, err = c.do(ctx, request{Method: "POST", Path: "/payments", Body: map[string]string{"paymentMethodToken": tok.Token},
		Headers: map[string]string{"X-Idempotency-Key": "cli-pay-" + uuid.NewString()}})
	if err != nil {
		return c.timedOut(ctx, err, order)
	}
	return c.render(raw, paymentTable)
}

// timedOut names the payment a 504 (or a client-side timeout) left behind:
// the error body's paymentId, else the newest payment of the order. Other
// errors are returned as they are.
func (c *clientOptions) timedOut(ctx context.Context, err error, order string) error {
	var ae *apiError
	var ce *checkError
	switch {
	case errors.As(err, &ae) && ae.ErrorID == "RequestTimeout":
	case errors.As(err, &ce) && ce.id == "ConnectionError":
		ae = &apiError{ErrorID: "RequestTimeout", Description: "no answer from the sandbox (" + ce.msg + ")"}
	default:
		return err
	}
	var body struct {
		Error struct {
			PaymentID     string `json:"paymentId"`
			PaymentStatus string `json:"paymentStatus"`
		} `json:"error"`
	}
	_ = json.Unmarshal(ae.Body, &body)
	id, status := body.Error.PaymentID, body.Error.PaymentStatus
	if id == "" {
		raw, lerr := c.do(ctx, request{Method: "GET", Path: "/payments", Query: url.Values{"order_id": {order}, "limit": {"1"}}})
		var page struct {
			Data []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"data"`
		}
		if lerr == nil && json.Unmarshal(raw, &page) == nil && len(page.Data) > 0 {
			id, status = page.Data[0].ID, page.Data[0].Status
		}
	}
	if id == "" {
		return &apiError{ErrorID: ae.ErrorID, Description: ae.Description + "; no payment of order " + order + " was found"}
	}
	if status == "" {
		status = "PENDING"
	}
	return &apiError{Status: ae.Status, ErrorID: ae.ErrorID, Body: ae.Body, Description: fmt.Sprintf(
		"%s; payment %s is %s and goes on (paysandbox payments wait %s --status AUTHORIZED)", ae.Description, id, status, id)}
}
