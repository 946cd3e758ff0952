package paysandboxtest_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/paysandboxtest"
)

// TestReceiverWait: the receiver gets the tenant's webhooks, signed with
// its secret, and Wait returns the one asked for, by type and payment.
func TestReceiverWait(t *testing.T) {
	t.Parallel()
	tn := paysandboxtest.New(t)
	hooks := tn.Webhooks()
	assert.Same(t, hooks, tn.Webhooks(), "one receiver per tenant")
	id, status := merchant{t, tn}.pay(1000, "4111111111111111")
	require.Equal(t, "AUTHORIZED", status)

	ev := hooks.Wait(t, "PAYMENT.STATUS", id)
	assert.Equal(t, "PAYMENT.STATUS", ev.Type)
	assert.Equal(t, id, ev.PaymentID)
	assert.NotEmpty(t, ev.ID)
	assert.Equal(t, http.StatusOK, ev.Answered)
	mac := hmac.New(sha256.New, []byte(tn.SigningSecret))
	mac.Write(ev.Body)
	assert.Equal(t, base64.StdEncoding.EncodeToString(mac.Sum(nil)), ev.Header.Get("X-Signature-Primary"))

	authorized := hooks.WaitFor(t, func(e paysandboxtest.Event) bool { return e.PaymentID == id && e.Status == "AUTHORIZED" })
	var body struct {
		Payment struct {
			Status string `json:"status"`
		} `json:"payment"`
	}
	require.NoError(t, json.Unmarshal(authorized.Body, &body))
	assert.Equal(t, "AUTHORIZED", body.Payment.Status)

	tn.Control("POST", "/_sandbox/payments/"+id+"/dispute", map[string]any{"reason": "FRAUDULENT"})
	dispute := hooks.Wait(t, "DISPUTE.OPENED")
	assert.Equal(t, id, dispute.PaymentID, "a dispute event names its payment")
}

// TestReceiverTimeout: a wait that nothing meets fails the test with what
// the receiver got and what the sandbox made.
func TestReceiverTimeout(t *testing.T) {
	t.Parallel()
	tn := paysandboxtest.New(t, paysandboxtest.WithWaitTimeout(300*time.Millisecond))
	hooks := tn.Webhooks()
	id, _ := merchant{t, tn}.pay(1000, "4111111111111111")
	hooks.WaitFor(t, func(e paysandboxtest.Event) bool { return e.Status == "AUTHORIZED" })
	msg := fatalOf(t, func(tb testing.TB) { hooks.Wait(tb, "PAYMENT.REFUND", id) })
	for _, want := range []string{
		"no PAYMENT.REFUND event of payment " + id + " arrived within 300ms",
		"got 2 delivery(ies)",
		"PAYMENT.STATUS payment=" + id + " status=AUTHORIZED",
		"GET /_sandbox/webhooks/events",
		"DELIVERED, 1 attempt(s)",
	} {
		assert.Contains(t, msg, want)
	}
	assert.Contains(t, fatalOf(t, func(tb testing.TB) { hooks.Wait(tb, "PAYMENT.STATUS", id, id) }), "at most one payment id")
}

// TestReceiverBadSignature: a delivery not signed with the tenant's secret
// fails the test and is answered 401; it is not recorded.
func TestReceiverBadSignature(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	tn := paysandboxtest.New(rec)
	hooks := tn.Webhooks()
	req, err := http.NewRequest("POST", hooks.URL, strings.NewReader(`{"eventType":"PAYMENT.STATUS"}`))
	require.NoError(t, err)
	req.Header.Set("X-Signature-Primary", "bm90IGEgc2lnbmF0dXJl")
	req.Header.Set("X-Event-Id", "forged")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Empty(t, hooks.Events())
	require.Len(t, rec.Errors(), 1)
	assert.Contains(t, rec.Errors()[0], "webhook PAYMENT.STATUS (event forged) is not signed with the tenant's signing secret")
}

// TestReceiverRotatedSecret: after a rotation through the control plane
// the receiver still verifies: the previous secret signs the secondary
// header.
func TestReceiverRotatedSecret(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	tn := paysandboxtest.New(rec)
	hooks := tn.Webhooks()
	tn.Control("POST", "/_sandbox/webhooks/rotate-secret", nil)
	id, _ := merchant{t, tn}.pay(1000, "4111111111111111")
	ev := hooks.WaitFor(t, func(e paysandboxtest.Event) bool { return e.PaymentID == id && e.Status == "AUTHORIZED" })
	assert.NotEmpty(t, ev.Header.Get("X-Signature-Secondary"))
	assert.Empty(t, rec.Errors())
}

// TestReceiverForward: each delivery goes on to the app's handler with its
// path, headers and body; the handler's answer is the sandbox's (a 500
// makes it retry on the tenant's clock), and the event is recorded once the
// handler returned.
func TestReceiverForward(t *testing.T) {
	t.Parallel()
	tn := paysandboxtest.New(t)
	var calls atomic.Int32
	var handled atomic.Value
	app := http.NewServeMux()
	app.HandleFunc("POST /hooks/payments", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Signature-Primary") == "" || len(body) == 0 {
			http.Error(w, "unsigned", http.StatusBadRequest)
			return
		}
		if calls.Add(1) == 1 {
			http.Error(w, "down for a moment", http.StatusInternalServerError)
			return
		}
		handled.Store(string(body))
		w.WriteHeader(http.StatusNoContent)
	})
	tn.Next("generic-decline")
	hooks := tn.Webhooks(paysandboxtest.Forward(app), paysandboxtest.AtPath("hooks/payments"))
	assert.True(t, strings.HasSuffix(hooks.URL, "/hooks/payments"), hooks.URL)
	id, _ := merchant{t, tn}.pay(1000, "4111111111111111")

	first := hooks.Wait(t, "PAYMENT.STATUS", id)
	assert.Equal(t, http.StatusInternalServerError, first.Answered)
	tn.AdvanceClock(time.Minute) // the retry after 10s
	retried := hooks.WaitFor(t, func(e paysandboxtest.Event) bool { return e.ID == first.ID && e.Answered == http.StatusNoContent })
	assert.Equal(t, first.Status, retried.Status, "the same event, signed anew")
	assert.NotNil(t, handled.Load(), "recorded after the handler ran")
	tn.WaitDelivered("PAYMENT.STATUS", id)
}

// TestWebhookVersion: the tenant's webhook bodies are those of its
// version.
func TestWebhookVersion(t *testing.T) {
	t.Parallel()
	tn := paysandboxtest.New(t, paysandboxtest.WithWebhookVersion("2.1"))
	hooks := tn.Webhooks()
	id, _ := merchant{t, tn}.pay(1000, "4111111111111111")
	var body struct {
		Version string `json:"version"`
	}
	require.NoError(t, json.Unmarshal(hooks.Wait(t, "PAYMENT.STATUS", id).Body, &body))
	assert.Equal(t, "2.1", body.Version)
}
