package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/webhooks"
)

// Local webhook tools: no sandbox server needed (but for verify --event);
// addClientCommands adds them under the `webhooks` parent.

type webhooksVerifyOptions struct {
	Secret    string
	Signature string
	File      string
	// Event, when set, takes the body (and, without --signature, the
	// signature) from the sandbox: the event's latest attempt.
	Event  string
	Client clientOptions
}

// webhooksVerifyExample is verify's --help example; a test runs each line
// against a real server (placeholders: $SIG, $EVENT_ID, whsec_..., the URL).
const webhooksVerifyExample = `  paysandbox webhooks verify --secret sandbox-signing-secret --signature "$SIG" body.json
  export PAYSANDBOX_SIGNING_SECRET=whsec_...; paysandbox webhooks verify --signature "$SIG" body.json
  paysandbox webhooks verify --event "$EVENT_ID"   # the body and signature the event's latest attempt sent
  curl -s localhost:8080/_sandbox/webhooks/events/$EVENT_ID/body -H 'X-API-KEY: sandbox-api-key' | paysandbox webhooks verify --signature "$SIG"`

// newWebhooksVerifyCmd checks a webhook signature: `verify --signature SIG
// [FILE]` reads the raw body from FILE (or stdin) and exits 0 when SIG is
// base64(HMAC-SHA256(secret, body)), 1 with the reason otherwise; `verify
// --event ID` checks the body the event's latest attempt sent (its exact
// bytes, GET /_sandbox/webhooks/events/{id}/body) against that attempt's
// X-Signature-Primary (or --signature). The secret is --secret, else
// PAYSANDBOX_SIGNING_SECRET, else the default tenant's, as for `webhooks
// listen`.
func newWebhooksVerifyCmd(deps *cliDeps) *cobra.Command {
	opts := &webhooksVerifyOptions{}
	cmd := &cobra.Command{
		Use:     "verify [--secret S] (--signature SIG [FILE] | --event ID)",
		Short:   "Check a webhook signature against the raw body (FILE, stdin or a sent event)",
		Example: webhooksVerifyExample,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			var body []byte
			var err error
			switch {
			case opts.Event != "" && opts.File != "":
				return usageErrorf("give FILE or --event, not both")
			case opts.Event != "":
				var sig string
				body, sig, err = sentEvent(ctxOf(cmd), &opts.Client, opts.Event)
				if err != nil {
					return err
				}
				if opts.Signature == "" {
					opts.Signature = sig
				}
			case opts.Signature == "":
				return usageErrorf("--signature is required (or --event ID)")
			case opts.File == "" || opts.File == "-":
				body, err = io.ReadAll(cmd.InOrStdin())
			default:
				body, err = os.ReadFile(opts.File)
			}
			if err != nil {
				return fmt.Errorf("reading the body: %w", err)
			}
			if err := webhooks.Verify(opts.Secret, body, opts.Signature); err != nil {
				return fmt.Errorf("InvalidSignature: %w (%d body bytes; sign the raw bytes as received, before any JSON parsing)", err, len(body))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "valid")
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Secret, "secret", signingSecret(deps.Getenv), "the tenant's webhook signing secret (env PAYSANDBOX_SIGNING_SECRET; default the default tenant's)")
	hideEnvSecret(cmd, "secret", "PAYSANDBOX_SIGNING_SECRET", deps.Getenv)
	cmd.Flags().StringVar(&opts.Signature, "signature", "", "the X-Signature-Primary (or -Secondary) header value (with --event: default the one its latest attempt sent)")
	cmd.Flags().StringVar(&opts.Event, "event", "", "check this event as the sandbox sent it (needs --url and --api-key)")
	addConnectionFlags(cmd, &opts.Client, deps)
	return cmd
}

// sentEvent is the body event id's latest attempt sent, as exact bytes,
// and the X-Signature-Primary that attempt sent ("" when no attempt was
// sent: no endpoint yet). A retry between the two reads makes them differ:
// the check then fails and says so; run it again.
func sentEvent(ctx context.Context, c *clientOptions, id string) (body []byte, signature string, err error) {
	raw, err := c.do(ctx, request{Method: "GET", Path: "/_sandbox/webhooks/events/" + url.PathEscape(id)})
	if err != nil {
		return nil, "", err
	}
	var ev struct {
		Attempts []struct {
			Headers map[string]string `json:"headers"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, "", &checkError{id: "BadAnswer", msg: "the event answer is not JSON"}
	}
	for i := len(ev.Attempts) - 1; i >= 0 && signature == ""; i-- {
		signature = ev.Attempts[i].Headers[webhooks.HeaderSignaturePrimary]
	}
	body, err = c.do(ctx, request{Method: "GET", Path: "/_sandbox/webhooks/events/" + url.PathEscape(id) + "/body"})
	if err != nil {
		return nil, "", err
	}
	if signature == "" {
		return nil, "", &checkError{id: "NotSent", msg: "event " + id + " has no signed attempt yet (no endpoint when it was made?); give --signature"}
	}
	return body, signature, nil
}

type webhooksListenOptions struct {
	Port   int
	Bind   string
	Secret string
	Answer int
}

// newWebhooksListenCmd runs a local webhook receiver (like `stripe listen`):
// each delivery is printed as it arrives with its event type, payment id,
// status and signature check, and answered with --answer (200).
func newWebhooksListenCmd() *cobra.Command {
	opts := &webhooksListenOptions{}
	cmd := &cobra.Command{
		Use:   "listen --port N",
		Short: "Receive webhooks locally and print each delivery with its signature check",
		Example: "  paysandbox webhooks listen --port 4000 &\n" +
			"  paysandbox webhooks endpoint set http://127.0.0.1:4000/webhooks",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Port < 0 || opts.Port > 65535 {
				return fmt.Errorf("--port %d is not a port", opts.Port)
			}
			if opts.Answer < 100 || opts.Answer > 599 {
				return fmt.Errorf("--answer %d is not an HTTP status", opts.Answer)
			}
			ln, err := net.Listen("tcp", net.JoinHostPort(opts.Bind, strconv.Itoa(opts.Port)))
			if err != nil {
				return err
			}
			return runWebhooksListen(cmd.Context(), ln, opts, cmd.OutOrStdout())
		},
	}
	secret := signingSecret(os.Getenv)
	cmd.Flags().IntVar(&opts.Port, "port", 4242, "port to listen on")
	cmd.Flags().StringVar(&opts.Bind, "bind", "127.0.0.1", "address to listen on (0.0.0.0 to receive from Docker)")
	cmd.Flags().StringVar(&opts.Secret, "secret", secret, "signing secret to check signatures with (env PAYSANDBOX_SIGNING_SECRET)")
	hideEnvSecret(cmd, "secret", "PAYSANDBOX_SIGNING_SECRET", os.Getenv)
	cmd.Flags().IntVar(&opts.Answer, "answer", 200, "HTTP status to answer each delivery with")
	return cmd
}

// signingSecret is the secret the local webhook tools check signatures with
// unless --secret is given: PAYSANDBOX_SIGNING_SECRET (what `tenants create
// --output env` exports), else the default tenant's.
func signingSecret(getenv func(string) string) string {
	if env := getenv("PAYSANDBOX_SIGNING_SECRET"); env != "" {
		return env
	}
	return simulator.DefaultSigningSecret
}

// runWebhooksListen serves on ln until ctx ends, printing one line per delivery.
func runWebhooksListen(ctx context.Context, ln net.Listener, opts *webhooksListenOptions, out io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var mu sync.Mutex
	fmt.Fprintf(out, "Listening for webhooks on http://%s (signing secret %q); Ctrl-C stops\n", ln.Addr(), opts.Secret)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		if err != nil {
			http.Error(w, "reading the body failed", http.StatusBadRequest)
			return
		}
		line := describeDelivery(r, body, opts.Secret)
		mu.Lock()
		fmt.Fprintln(out, line)
		mu.Unlock()
		w.WriteHeader(opts.Answer)
	})}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// describeDelivery is one printed line: time, event type, payment id,
// status (payment or dispute), event id and the signature check.
func describeDelivery(r *http.Request, body []byte, secret string) string {
	var b struct {
		EventType string `json:"eventType"`
		PaymentID string `json:"paymentId"`
		Status    string `json:"status"`
		Payment   struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"payment"`
	}
	kind := "non-JSON body"
	if json.Unmarshal(body, &b) == nil {
		kind = b.EventType
	}
	pid, status := b.Payment.ID, b.Payment.Status
	if pid == "" {
		pid, status = b.PaymentID, b.Status
	}
	if status == "" && b.EventType == simulator.EventDisputeOpened {
		status = string(simulator.DisputeOpen)
	}
	sig := "signature valid"
	if err := webhooks.Verify(secret, body, r.Header.Get(webhooks.HeaderSignaturePrimary)); err != nil {
		sig = "signature INVALID: " + err.Error()
		if errors.Is(err, webhooks.ErrSignatureMismatch) { // the usual cause: another tenant's secret
			sig += " (is --secret, or PAYSANDBOX_SIGNING_SECRET, this tenant's signingSecret?)"
		}
		if sec := r.Header.Get(webhooks.HeaderSignatureSecondary); sec != "" && webhooks.Verify(secret, body, sec) == nil {
			sig = "signature valid (X-Signature-Secondary: the secret was rotated)"
		}
	}
	return fmt.Sprintf("%s  %-15s payment=%s status=%s event=%s  %s",
		time.Now().UTC().Format("15:04:05"), kind, orDash(pid), orDash(status), orDash(r.Header.Get(webhooks.HeaderEventID)), sig)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
