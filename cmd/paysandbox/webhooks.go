package main

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/simulator"
)

// Client commands on the webhook routes of docs/webhooks.md:
// `webhooks ...` (disputes.go holds `disputes ...`).

// eventListTable's paymentStatus is the payment status the event
// announces; status is the event's delivery status.
var eventListTable = listTable("id", "eventType", "paymentId", "status", "createdAt", "paymentStatus")

// newWebhooksCmd is the `webhooks` parent; extra adds the local commands
// (`listen`, and `verify`, which needs a server only with --event) beside
// the server ones.
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
	// Version is the webhook version to set ("": the tenant keeps its own).
	Version string
}

func newWebhooksEndpointSetCmd(deps *cliDeps, runF func(*webhooksEndpointOptions) error) *cobra.Command {
	o := &webhooksEndpointOptions{}
	cmd := &cobra.Command{
		Use:   "set URL",
		Short: "Set the tenant's webhook endpoint",
		Example: "  paysandbox webhooks endpoint set http://host.docker.internal:9000/hooks\n" +
			"  paysandbox webhooks endpoint set http://host.docker.internal:9000/hooks --version 2.2",
		Args: exactArgs("URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.URL = args[0]
			if u, err := url2(o.URL); err != nil || u.Host == "" {
				return usageErrorf("URL %q is not an absolute http(s) URL", o.URL)
			}
			if o.Version != "" && simulator.CheckAPIVersion(o.Version) != nil {
				return usageErrorf("--version %q is not one of %s", o.Version, strings.Join(simulator.APIVersionNames(), ", "))
			}
			if runF != nil {
				return runF(o)
			}
			body := map[string]string{"url": o.URL}
			if o.Version != "" {
				body["version"] = o.Version
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "PUT", Path: "/_sandbox/webhooks/endpoint", Body: body},
				objectTable(true, "url", "version"))
		},
	}
	cmd.Flags().StringVar(&o.Version, "version", "", "the webhook version of the tenant's events from now on: 2.1, 2.2, 2.3 or 2.4 (unset: unchanged)")
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

func newWebhooksEndpointShowCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "show",
		Short:   "Show the tenant's webhook endpoint and webhook version",
		Example: "  paysandbox webhooks endpoint show",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/webhooks/endpoint"}, objectTable(true, "url", "version"))
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
