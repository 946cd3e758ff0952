package simulator

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAuthorizationRisk: the fraud check's pre-authorization result follows
// 3DS, the CVV check follows whether a CVV came with the card; the rest is
// fixed.
func TestAuthorizationRisk(t *testing.T) {
	tests := []struct {
		name     string
		threeDS  bool
		cvv      bool
		pre, got string
	}{
		{"no 3DS, no CVV", false, false, "ACCEPT", "NOT_PROVIDED"},
		{"no 3DS, CVV", false, true, "ACCEPT", "MATCHED"},
		{"3DS, no CVV", true, false, "THREE_DS", "NOT_PROVIDED"},
		{"3DS, CVV", true, true, "THREE_DS", "MATCHED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Payment{CVVGiven: tc.cvv}
			if tc.threeDS {
				p.PaymentMethod.ThreeDSecure = &ThreeDSecure{}
			}
			r := p.AuthorizationRisk()
			assert.Equal(t, FraudChecks{Source: "FRAUD_PROVIDER", PreAuthorizationResult: tc.pre, PostAuthorizationResult: "ACCEPT"}, *r.FraudChecks)
			assert.Equal(t, RiskCheck{Source: "PROCESSOR", Result: tc.got}, *r.CVVCheck)
			assert.Equal(t, AVSCheck{Source: "PROCESSOR", Result: AVSResult{StreetAddress: "NOT_VERIFIED", PostalCode: "NOT_VERIFIED"}}, *r.AVSCheck)
		})
	}
}
