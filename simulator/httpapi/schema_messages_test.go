package httpapi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestSchemaMessagesThatFixThemselves: an unknown field names the schema's
// field within two edits, an amount that is a string or has a fraction says
// amounts are integers in minor units.
func TestSchemaMessagesThatFixThemselves(t *testing.T) {
	tests := []struct {
		name, body string
		s          *schema
		dst        func() any
		path, want string
	}{
		{"a typo of amount", `{"paymentMethodToken":"t","amout":1000}`, paymentCreate, func() any { return &createPaymentBody{} },
			"$.amout", "Extra fields not permitted; did you mean `amount`?"},
		{"a swap of two letters", `{"paymentMethodToken":"t","amuont":1000}`, paymentCreate, func() any { return &createPaymentBody{} },
			"$.amuont", "Extra fields not permitted; did you mean `amount`?"},
		{"snake case", `{"paymentMethodToken":"t","currency_code":"EUR"}`, paymentCreate, func() any { return &createPaymentBody{} },
			"$.currency_code", "Extra fields not permitted; did you mean `currencyCode`?"},
		{"nested", `{"orderId":"o","order":{"lineItems":[{"amount":1,"quantiy":2}]}}`, clientSessionCreate, func() any { return &createSessionRequest{} },
			"$.order.lineItems[0].quantiy", "Extra fields not permitted; did you mean `quantity`?"},
		{"nothing close", `{"paymentMethodToken":"t","bogusField":1}`, paymentCreate, func() any { return &createPaymentBody{} },
			"$.bogusField", "Extra fields not permitted"},
		{"the near field is already given", `{"paymentMethodToken":"t","amount":1,"amout":1}`, paymentCreate, func() any { return &createPaymentBody{} },
			"$.amout", "Extra fields not permitted"},
		{"a string amount", `{"paymentMethodToken":"t","amount":"10.00"}`, paymentCreate, func() any { return &createPaymentBody{} },
			"$.amount", "Value must be a valid integer: amounts are integers in minor units (1000 = 10.00)"},
		{"a decimal amount", `{"paymentMethodToken":"t","amount":10.5}`, paymentCreate, func() any { return &createPaymentBody{} },
			"$.amount", "Value must be a valid integer: amounts are integers in minor units (1000 = 10.00)"},
		{"an exponent amount", `{"amount":1e3}`, paymentCapture, func() any { return &captureBody{} },
			"$.amount", "Value must be a valid integer: amounts are integers in minor units (1000 = 10.00)"},
		{"a refund amount", `{"amount":"5"}`, paymentRefund, func() any { return &refundBody{} },
			"$.amount", "Value must be a valid integer: amounts are integers in minor units (1000 = 10.00)"},
		{"a line item's tax amount", `{"orderId":"o","currencyCode":"EUR","order":{"lineItems":[{"amount":1,"taxAmount":0.2}]}}`, clientSessionCreate,
			func() any { return &createSessionRequest{} }, "$.order.lineItems[0].taxAmount", "Value must be a valid integer: amounts are integers in minor units (1000 = 10.00)"},
		{"a quantity is no amount", `{"orderId":"o","order":{"lineItems":[{"amount":1,"quantity":1.5}]}}`, clientSessionCreate,
			func() any { return &createSessionRequest{} }, "$.order.lineItems[0].quantity", "Value must be a valid integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeFull([]byte(tc.body), tc.s, "M", tc.dst(), false, nil)
			var se *simulator.Error
			require.True(t, errors.As(err, &se), "%v", err)
			got := map[string]string{}
			for _, fe := range se.Fields {
				got[fe.Path] = fe.Description
			}
			assert.Equal(t, tc.want, got[tc.path], "%v", se.Fields)
		})
	}
}
