package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPaymentsGetVersion: `payments get` shows a payment in the version it
// was made with unless the user chose one (--api-version or
// PAYSANDBOX_API_VERSION), which wins as a merchant's pin does; the read
// in the payment's own version counts in no migration note.
func TestPaymentsGetVersion(t *testing.T) {
	a := newTestApp(t)
	a.useNewTenant()
	pt := a.tokenize(a.session(plainSession(1000)), numOK).Str("token")
	old := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt}, "X-API-VERSION: 2.2").Str("id")
	cur := a.pay(1000, numOK).Str("id")
	notes := func() string {
		return string(a.must(200, "GET", "/_sandbox/migration", nil, "X-API-VERSION:").Body)
	}
	before := notes()

	// firstTxn is the first transaction of `payments get -o json`.
	firstTxn := func(env map[string]string, args ...string) map[string]any {
		t.Helper()
		code, out, errOut := cliRun(t, a, env, append([]string{"payments", "get"}, append(args, "-o", "json")...)...)
		require.Equal(t, 0, code, errOut)
		var p struct {
			Transactions []map[string]any `json:"transactions"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &p), out)
		require.NotEmpty(t, p.Transactions, out)
		return p.Transactions[0]
	}
	assert.NotContains(t, firstTxn(nil, old), "authorizationCode", "a 2.2 payment, as 2.2 answers it")
	assert.Equal(t, before, notes(), "showing a payment in its own version notes nothing")
	assert.Contains(t, firstTxn(nil, cur), "authorizationCode", "a 2.4 payment, as 2.4 answers it")
	assert.Contains(t, firstTxn(nil, old, "--api-version", "2.4"), "authorizationCode", "an explicit version wins")
	assert.Contains(t, firstTxn(map[string]string{"PAYSANDBOX_API_VERSION": "2.4"}, old), "authorizationCode", "so does the environment's")
	assert.NotContains(t, firstTxn(nil, cur, "--api-version", "2.2"), "authorizationCode")

	code, _, errOut := cliRun(t, a, nil, "payments", "get", "nope")
	assert.Equal(t, 1, code)
	assert.Equal(t, "Error: PaymentError: The payment could not be found\n", errOut)
}
