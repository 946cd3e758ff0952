package paysandboxtest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/paysandbox/paysandbox/paysandboxtest"
)

// A test of a merchant's checkout: a tenant of its own, the next payment
// declined whatever the card, the webhook that says so awaited. In a test
// the handle is paysandboxtest.New(t) with the test's t; an example has no
// t, so exampleT stands in for it.
func Example() {
	t := &exampleT{}
	defer t.end()

	sb := paysandboxtest.New(t) // URL, APIKey, SigningSecret: the app's settings
	hooks := sb.Webhooks()      // verifies each delivery's signature
	sb.Next("generic-decline")  // the next payment is declined

	clientToken := startCheckout(sb.URL, sb.APIKey, 1000, "EUR")
	token := sb.CardToken(clientToken, "4111111111111111") // what the checkout SDK does in the browser
	id, status := pay(sb.URL, sb.APIKey, token)
	fmt.Println("payment:", status)

	ev := hooks.WaitFor(t, func(e paysandboxtest.Event) bool { return e.PaymentID == id && e.Status == "DECLINED" })
	fmt.Println("webhook:", ev.Type, ev.Status)

	id, status = pay(sb.URL, sb.APIKey, sb.CardToken(startCheckout(sb.URL, sb.APIKey, 1000, "EUR"), "4111111111111111"))
	fmt.Println("next payment:", status)
	// Output:
	// payment: DECLINED
	// webhook: PAYMENT.STATUS DECLINED
	// next payment: AUTHORIZED
}

// startCheckout is the merchant's backend opening a checkout: a client
// session, whose token the browser's checkout SDK uses.
func startCheckout(baseURL, apiKey string, amount int, currency string) string {
	var session struct {
		ClientToken string `json:"clientToken"`
	}
	post(baseURL, apiKey, "/client-session", map[string]any{"orderId": "order-1", "amount": amount, "currencyCode": currency}, &session)
	return session.ClientToken
}

// pay is the merchant's backend paying with the token the browser sent.
func pay(baseURL, apiKey, paymentMethodToken string) (id, status string) {
	var p struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	post(baseURL, apiKey, "/payments", map[string]any{"paymentMethodToken": paymentMethodToken}, &p)
	return p.ID, p.Status
}

func post(baseURL, apiKey, path string, body, out any) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", baseURL+path, bytes.NewReader(b))
	req.Header.Set("X-API-KEY", apiKey)
	req.Header.Set("X-API-VERSION", "2.4")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		panic(err)
	}
}

// exampleT stands in for a test's *testing.T in an example, which has
// none: it runs the cleanups at end and panics on a failure. Only the
// methods below are called.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (e *exampleT) Helper()                           {}
func (e *exampleT) Failed() bool                      { return false }
func (e *exampleT) Logf(format string, args ...any)   { fmt.Printf(format+"\n", args...) }
func (e *exampleT) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (e *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (e *exampleT) Cleanup(f func())                  { e.cleanups = append(e.cleanups, f) }
func (e *exampleT) end() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
}
