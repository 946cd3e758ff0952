package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMessagesThatFixThemselves drives the API: a mistyped field names the
// field meant, an unknown sandboxScenario lists the close rule names, a
// decimal or string amount says amounts are integers in minor units.
func TestMessagesThatFixThemselves(t *testing.T) {
	a := newTestApp(t)
	tok := func() string {
		ct := a.session(map[string]any{"orderId": "o-1", "currencyCode": "EUR", "amount": 1000})
		return a.tokenize(ct, numOK).Str("token")
	}
	tests := []struct {
		name  string
		path  string
		body  func() map[string]any
		model string
		field string
		want  string
	}{
		{"a typo of amount", "/payments", func() map[string]any { return map[string]any{"paymentMethodToken": tok(), "amout": 1000} },
			"PaymentCreationAPIRequest", "$.amout", "Extra fields not permitted; did you mean `amount`?"},
		{"a decimal amount", "/payments", func() map[string]any { return map[string]any{"paymentMethodToken": tok(), "amount": 10.5} },
			"PaymentCreationAPIRequest", "$.amount", "Value must be a valid integer: amounts are integers in minor units (1000 = 10.00)"},
		{"a string amount on a session", "/client-session", func() map[string]any { return map[string]any{"currencyCode": "EUR", "amount": "10.00"} },
			"ClientSessionAPIRequest", "$.amount", "Value must be a valid integer: amounts are integers in minor units (1000 = 10.00)"},
		{"a scenario one edit away", "/payments", func() map[string]any {
			return map[string]any{"paymentMethodToken": tok(), "metadata": map[string]any{"sandboxScenario": "generic-declin"}}
		}, "PaymentCreationAPIRequest", "$.metadata.sandboxScenario",
			"metadata.sandboxScenario \"generic-declin\" is not the name of a rule of the scenarios in force (GET /_sandbox/scenarios); did you mean `generic-decline`?"},
		{"a scenario named by a word", "/payments", func() map[string]any {
			return map[string]any{"paymentMethodToken": tok(), "metadata": map[string]any{"sandboxScenario": "timeout"}}
		}, "PaymentCreationAPIRequest", "$.metadata.sandboxScenario",
			"metadata.sandboxScenario \"timeout\" is not the name of a rule of the scenarios in force (GET /_sandbox/scenarios); close ones: `gateway-timeout`, `gateway-timeout-failed`, `gateway-timeout-declined`"},
		{"a scenario close to nothing", "/payments", func() map[string]any {
			return map[string]any{"paymentMethodToken": tok(), "metadata": map[string]any{"sandboxScenario": "zzzz"}}
		}, "PaymentCreationAPIRequest", "$.metadata.sandboxScenario",
			"metadata.sandboxScenario \"zzzz\" is not the name of a rule of the scenarios in force (GET /_sandbox/scenarios)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req("POST", tc.path, tc.body())
			require.Equal(t, 422, r.Status, "%s", r.Body)
			assert.Equal(t, tc.want, fieldErrors(t, r, tc.model)[tc.field], "%s", r.Body)
		})
	}
}
