// Package merchant_test is a merchant's module of its own that uses
// paysandboxtest: its go.mod requires github.com/paysandbox/paysandbox
// (here replaced by this repository) and nothing else, and its tests use
// the standard library only. paysandboxtest's TestOutsideModule copies it
// out of the repository and runs its tests.
package merchant_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/paysandbox/paysandbox/paysandboxtest"
)

// TestDeclinedOnce: the next payment is declined whatever the card, the
// webhook says so, and the one after is authorized.
func TestDeclinedOnce(t *testing.T) {
	t.Parallel()
	sb := paysandboxtest.New(t)
	hooks := sb.Webhooks()
	sb.Next("generic-decline")
	for _, want := range []string{"DECLINED", "AUTHORIZED"} {
		id, status := pay(t, sb, 1000)
		if status != want {
			t.Fatalf("payment %s is %s, want %s", id, status, want)
		}
		hooks.WaitFor(t, func(e paysandboxtest.Event) bool { return e.PaymentID == id && e.Status == want })
	}
}

// TestSlowSettlement: on a sandbox of the test's own, a capture of a slow
// settlement settles when the tenant's clock has moved an hour.
func TestSlowSettlement(t *testing.T) {
	t.Parallel()
	sb := paysandboxtest.NewServer(t, paysandboxtest.WithRequestTimeout(time.Second)).New(t)
	id, _ := pay(t, sb, 7000)
	var captured struct{ Status string }
	call(t, sb, "/payments/"+id+"/capture", map[string]any{}, &captured)
	if captured.Status != "SETTLING" {
		t.Fatalf("captured payment is %s, want SETTLING", captured.Status)
	}
	sb.AdvanceClock(time.Hour)
	sb.WaitPayment(id, "SETTLED")
}

// pay makes a payment of amount EUR cents with a card that is approved,
// as a merchant's backend and the checkout SDK do.
func pay(t *testing.T, sb *paysandboxtest.Tenant, amount int) (id, status string) {
	t.Helper()
	var session struct{ ClientToken string }
	call(t, sb, "/client-session", map[string]any{"orderId": "order-1", "currencyCode": "EUR", "amount": amount}, &session)
	var p struct{ ID, Status string }
	call(t, sb, "/payments", map[string]any{"paymentMethodToken": sb.CardToken(session.ClientToken, "4111111111111111")}, &p)
	return p.ID, p.Status
}

func call(t *testing.T, sb *paysandboxtest.Tenant, path string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", sb.URL+path, bytes.NewReader(b))
	req.Header.Set("X-API-KEY", sb.APIKey)
	req.Header.Set("X-API-VERSION", "2.4")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}
