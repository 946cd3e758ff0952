package simulator_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paysandbox/paysandbox/simulator"
)

func TestMissingScopes(t *testing.T) {
	s := simulator.AllScopes
	cases := []struct {
		name   string
		scopes []simulator.Scope
		want   []simulator.Scope
		msg    string
	}{
		{"every scope", simulator.AllScopes, nil, ""},
		{"every scope, another order, a duplicate", append([]simulator.Scope{s[7], s[7]}, s[:7]...), nil, ""},
		{"all but one", append(append([]simulator.Scope{}, s[:3]...), s[4:]...), []simulator.Scope{s[3]},
			"The API key lacks the scope transactions:capture: Rotating the signing secret needs a key holding every scope"},
		{"one", []simulator.Scope{simulator.ScopeTransactionsRetrieve}, append(append([]simulator.Scope{}, s[:2]...), s[3:]...),
			"The API key lacks the scopes client_tokens:write, transactions:authorize, transactions:capture, transactions:cancel, transactions:refund, payment_instrument:read, payment_instrument:write: Rotating the signing secret needs a key holding every scope"},
		{"none", nil, simulator.AllScopes, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := simulator.APIKey{Key: "k", Scopes: tc.scopes}.MissingScopes()
			assert.Equal(t, tc.want, got)
			if tc.msg != "" {
				e := simulator.ErrLacksScopes(got, "Rotating the signing secret")
				assert.Equal(t, simulator.CodeForbidden, e.Code)
				assert.Equal(t, tc.msg, e.Message)
			}
		})
	}
}
