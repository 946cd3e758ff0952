package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/paysandboxtest"
)

// fixture is a shop wired to a sandbox tenant of the test's own: the shop
// serves shoppers at URL, and the tenant's webhooks reach its handler
// through the receiver, which verifies them and lets the test wait.
type fixture struct {
	t     *testing.T
	sb    *paysandboxtest.Tenant
	hooks *paysandboxtest.Receiver
	URL   string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	sb := paysandboxtest.New(t, paysandboxtest.WithReportOnFailure())
	app := newShop(config{APIURL: sb.URL, APIKey: sb.APIKey, SigningSecret: sb.SigningSecret}).routes()
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	return &fixture{t: t, sb: sb, hooks: sb.Webhooks(paysandboxtest.Forward(app)), URL: srv.URL}
}

// call sends a shopper's request to the shop and decodes the answer.
func (f *fixture) call(method, path string, body any, wantStatus int) map[string]string {
	f.t.Helper()
	b, err := json.Marshal(body)
	require.NoError(f.t, err)
	req, err := http.NewRequest(method, f.URL+path, bytes.NewReader(b))
	require.NoError(f.t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(f.t, err)
	defer resp.Body.Close()
	require.Equal(f.t, wantStatus, resp.StatusCode, "%s %s", method, path)
	out := map[string]any{}
	require.NoError(f.t, json.NewDecoder(resp.Body).Decode(&out))
	s := map[string]string{}
	for k, v := range out {
		if str, ok := v.(string); ok {
			s[k] = str
		}
	}
	return s
}

// order opens an order of amount EUR cents and answers its id and the
// client token the browser's checkout SDK is given.
func (f *fixture) order(amount int) (string, string) {
	f.t.Helper()
	o := f.call("POST", "/orders", map[string]any{"amount": amount, "currencyCode": "EUR"}, http.StatusCreated)
	return o["orderId"], o["clientToken"]
}

// pay pays the order with the card, as the shopper's browser does:
// tokenised in the client session, the token sent to the shop.
func (f *fixture) pay(orderID, clientToken, card string) (paymentID, status string) {
	f.t.Helper()
	p := f.call("POST", "/orders/"+orderID+"/pay", map[string]string{"paymentMethodToken": f.sb.CardToken(clientToken, card)}, http.StatusOK)
	return p["paymentId"], p["status"]
}

// confirmed waits until the shop has handled the webhook announcing the
// payment's status, and answers the order as the shop then shows it.
func (f *fixture) confirmed(orderID, paymentID, status string) map[string]string {
	f.t.Helper()
	ev := f.hooks.WaitFor(f.t, func(e paysandboxtest.Event) bool { return e.PaymentID == paymentID && e.Status == status })
	require.Equal(f.t, http.StatusOK, ev.Answered, "the shop accepted the webhook")
	return f.call("GET", "/orders/"+orderID, nil, http.StatusOK)
}

// TestCheckout: the payment's answer is shown to the shopper, and the
// order takes the status the verified webhook announces.
func TestCheckout(t *testing.T) {
	for _, tc := range []struct {
		name, card, next, want string
		amount                 int
	}{
		{name: "approved", card: "4111111111111111", amount: 1000, want: "AUTHORIZED"},
		{name: "declined card", card: "4000000000000002", amount: 1000, want: "DECLINED"},
		{name: "insufficient funds", card: "4111111111111111", amount: 4100, want: "DECLINED"},
		{name: "declined once by the sandbox", card: "4111111111111111", amount: 1000, next: "generic-decline", want: "DECLINED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tc.next != "" {
				f.sb.Next(tc.next)
			}
			orderID, clientToken := f.order(tc.amount)
			paymentID, status := f.pay(orderID, clientToken, tc.card)
			assert.Equal(t, tc.want, status, "the API's answer")
			o := f.confirmed(orderID, paymentID, tc.want)
			assert.Equal(t, tc.want, o["status"], "the webhook's status")
			assert.Equal(t, paymentID, o["paymentId"])
		})
	}
}

// TestPayAgainAfterDecline: a declined order is paid again with a new
// payment, and the order follows the new one.
func TestPayAgainAfterDecline(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.sb.Next("generic-decline")
	orderID, clientToken := f.order(1000)
	declined, status := f.pay(orderID, clientToken, "4111111111111111")
	require.Equal(t, "DECLINED", status)
	f.confirmed(orderID, declined, "DECLINED")

	paid, status := f.pay(orderID, clientToken, "4111111111111111")
	require.Equal(t, "AUTHORIZED", status)
	assert.NotEqual(t, declined, paid)
	o := f.confirmed(orderID, paid, "AUTHORIZED")
	assert.Equal(t, map[string]string{"orderId": orderID, "currencyCode": "EUR", "paymentId": paid, "status": "AUTHORIZED"}, o)
}

// TestShipThenSettle: a slow settlement (amounts 7000-7099) is SETTLING
// after the capture; a day later on the tenant's clock the webhook says
// SETTLED and the order shows it.
func TestShipThenSettle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	orderID, clientToken := f.order(7000)
	paymentID, _ := f.pay(orderID, clientToken, "4111111111111111")
	shipped := f.call("POST", "/orders/"+orderID+"/ship", nil, http.StatusOK)
	require.Equal(t, "SETTLING", shipped["status"])
	assert.Equal(t, "SETTLING", f.confirmed(orderID, paymentID, "SETTLING")["status"])

	f.sb.AdvanceClock(24 * time.Hour)
	assert.Equal(t, "SETTLED", f.confirmed(orderID, paymentID, "SETTLED")["status"])
}

// TestForgedWebhook: a webhook not signed with the tenant's secret is
// refused and changes nothing.
func TestForgedWebhook(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	orderID, clientToken := f.order(1000)
	paymentID, _ := f.pay(orderID, clientToken, "4111111111111111")
	f.confirmed(orderID, paymentID, "AUTHORIZED")

	forged := []byte(`{"eventType":"PAYMENT.STATUS","payment":{"id":"` + paymentID + `","status":"SETTLED"}}`)
	for _, sig := range []string{"", "c2lnbmVkIHdpdGggYW5vdGhlciBzZWNyZXQ="} {
		req, err := http.NewRequest("POST", f.URL+"/webhooks", bytes.NewReader(forged))
		require.NoError(t, err)
		req.Header.Set("X-Signature-Primary", sig)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "signature %q", sig)
	}
	assert.Equal(t, "AUTHORIZED", f.call("GET", "/orders/"+orderID, nil, http.StatusOK)["status"])
}
