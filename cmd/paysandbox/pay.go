package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/app"
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
	// NoteAfter is how long the payment request goes without an answer
	// before pay says on stderr how long the sandbox holds it, and why.
	NoteAfter time.Duration
	// Reach is the --url and --api-key flags as typed (empty when they came
	// from the environment or their defaults): the follow-up commands pay
	// suggests carry them, so they reach the same tenant.
	Reach string
}

// payNoteAfter is NoteAfter's value: a payment that takes longer is held by
// a rule, or the sandbox is in trouble.
const payNoteAfter = 2 * time.Second

// maxWait is the longest long-poll the sandbox answers
// (/_sandbox/wait's timeout, `payments wait --timeout`).
const maxWait = 60 * time.Second

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
			o.NoteAfter, o.Reach = payNoteAfter, typedReach(cmd, &o.Client)
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
	stop := c.noteHold(ctx, o.NoteAfter, order)
	raw, err = c.do(ctx, request{Method: "POST", Path: "/payments", Body: map[string]string{"paymentMethodToken": tok.Token},
		Headers: map[string]string{"X-Idempotency-Key": "cli-pay-" + uuid.NewString()}})
	stop()
	if err != nil {
		return c.timedOut(ctx, err, order, o.Reach)
	}
	return c.render(raw, paymentTable)
}

// typedReach is the --url and --api-key flags of cmd as the user typed them
// (" --url U --api-key K", each only when typed), for the commands a
// message suggests.
func typedReach(cmd *cobra.Command, c *clientOptions) string {
	var b strings.Builder
	if cmd.Flags().Changed("url") {
		b.WriteString(" --url " + shellQuote(c.URL))
	}
	if cmd.Flags().Changed("api-key") {
		b.WriteString(" --api-key " + shellQuote(c.APIKey))
	}
	return b.String()
}

// shellQuote is s as one word of a POSIX shell command line.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// holdExplanation is what pay reads of GET /_sandbox/payments/{id}/explain.
type holdExplanation struct {
	Matched string `json:"matched"`
	Reason  string `json:"reason"`
	// InForce is the rule the rules in force give the payment: its rule
	// while a rule's latency runs and it is not decided yet.
	InForce struct {
		Matched string `json:"matched"`
	} `json:"rulesInForce"`
	HoldsFor string `json:"holdsFor"`
	Timeout  *struct {
		ResolveTo  string `json:"resolveTo"`
		ResolvesIn string `json:"resolvesIn"`
	} `json:"timeout"`
}

// explainPayment reads how payment id's rule holds requests; ok false when
// the sandbox does not say.
func (c *clientOptions) explainPayment(ctx context.Context, id string) (ex holdExplanation, ok bool) {
	raw, err := c.do(ctx, request{Method: "GET", Path: "/_sandbox/payments/" + url.PathEscape(id) + "/explain"})
	return ex, err == nil && json.Unmarshal(raw, &ex) == nil
}

// noteHold prints on stderr, once the payment request has gone after (> 0)
// without an answer, how long the sandbox holds it and why: the rule of the
// order's newest payment, which the sandbox stores before it holds the
// request. stop ends the watch and returns once any note is printed, so a
// note never interleaves with the answer; a note still being looked up
// when the answer comes is dropped.
func (c *clientOptions) noteHold(ctx context.Context, after time.Duration, order string) (stop func()) {
	if after <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tm := time.NewTimer(after)
		defer tm.Stop()
		select {
		case <-tm.C:
		case <-ctx.Done():
			return
		}
		note := c.holdNote(ctx, after, order)
		if ctx.Err() == nil {
			fmt.Fprintln(c.deps.Err, note)
		}
	}()
	return func() { cancel(); <-done }
}

// holdNote is noteHold's note.
func (c *clientOptions) holdNote(ctx context.Context, after time.Duration, order string) string {
	waiting := fmt.Sprintf("paysandbox: no answer after %s", after)
	id := c.newestPayment(ctx, order)
	if id == "" {
		return waiting + "; the sandbox answers within its request timeout (serve --request-timeout, default " + app.ShortDuration(defaultOf("request_timeout").(time.Duration)) + ")"
	}
	ex, ok := c.explainPayment(ctx, id)
	if ex.Matched == "" && ex.InForce.Matched != "" {
		ex.Matched, ex.Reason = ex.InForce.Matched, "not decided until its latency ends"
	}
	switch {
	case !ok || ex.Matched == "" || ex.HoldsFor == "" || ex.HoldsFor == "0s":
		return waiting + "; no scenario rule holds this payment, so the sandbox is slow to answer (paysandbox requests shows what it is doing)"
	case ex.Timeout != nil:
		return fmt.Sprintf("%s: the sandbox holds this request up to %s. Rule %s (%s) is a gateway timeout: it answers 504 after its holdFor, else the server's request timeout, and the payment becomes %s %s later on the tenant clock.",
			waiting, ex.HoldsFor, ex.Matched, ex.Reason, ex.Timeout.ResolveTo, wholeSeconds(ex.Timeout.ResolvesIn))
	default:
		return fmt.Sprintf("%s: the sandbox holds this request up to %s. Rule %s (%s) adds that latency.", waiting, ex.HoldsFor, ex.Matched, ex.Reason)
	}
}

// newestPayment is the id of order's newest payment, looked up until there
// is one or ctx ends ("" then).
func (c *clientOptions) newestPayment(ctx context.Context, order string) string {
	for {
		raw, err := c.do(ctx, request{Method: "GET", Path: "/payments", Query: url.Values{"order_id": {order}, "limit": {"1"}}})
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err == nil && json.Unmarshal(raw, &page) == nil && len(page.Data) > 0 {
			return page.Data[0].ID
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// timedOut names the payment a 504 (or a client-side timeout) left behind:
// the error body's paymentId, else the newest payment of the order, with
// the command that shows its outcome (reach: the --url and --api-key the
// command needs). Other errors are returned as they are.
func (c *clientOptions) timedOut(ctx context.Context, err error, order, reach string) error {
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
	return &apiError{Status: ae.Status, ErrorID: ae.ErrorID, Body: ae.Body, Description: ae.Description + "; " + c.followUp(ctx, id, status, reach)}
}

// followUp says what becomes of payment id, left in status by a 504, and
// the command that shows it, naming the payment once. A gateway timeout
// resolves on the tenant clock: within a wait's reach the command waits for
// it; further off it advances the clock by the time left first.
func (c *clientOptions) followUp(ctx context.Context, id, status, reach string) string {
	ex, ok := c.explainPayment(ctx, id)
	var left time.Duration
	if ok && ex.Timeout != nil {
		left, _ = time.ParseDuration(ex.Timeout.ResolvesIn)
	}
	if !ok || ex.Timeout == nil || left < 0 {
		return fmt.Sprintf("the payment goes on (%s): paysandbox payments get %s%s", status, id, reach)
	}
	if r := left % time.Second; r != 0 {
		left += time.Second - r // whole seconds, not short of the instant it resolves
	}
	to := ex.Timeout.ResolveTo
	wait := fmt.Sprintf("paysandbox payments wait %s --status %s%s", id, to, reach)
	if left+waitSlack <= maxWait {
		return fmt.Sprintf("the payment is %s and becomes %s in %s on the tenant clock: %s --timeout %s",
			status, to, left, wait, left+waitSlack)
	}
	return fmt.Sprintf("the payment is %s and becomes %s in %s on the tenant clock; to get there now: paysandbox clock advance %s%s && %s",
		status, to, left, left, reach, wait)
}

// waitSlack is what a suggested wait adds to the time a payment needs: the
// command is typed later, never sooner, and the scheduler runs a job a
// moment after it is due.
const waitSlack = 5 * time.Second

// wholeSeconds is the duration d (as the sandbox writes it) rounded to
// whole seconds; d itself when it is no duration.
func wholeSeconds(d string) string {
	v, err := time.ParseDuration(d)
	if err != nil {
		return d
	}
	return v.Round(time.Second).String()
}
