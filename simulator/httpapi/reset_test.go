package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestResetBody: POST /_sandbox/reset takes no body or {}, as its document
// says; an unknown member, or a body that is no object, is refused before
// anything is deleted.
func TestResetBody(t *testing.T) {
	a := newTestAPI(t).asNewTenant()
	for _, tc := range []struct {
		name   string
		body   any
		status int
	}{
		{"no body", nil, 200},
		{"empty object", map[string]any{}, 200},
		{"unknown member", map[string]any{"all": true}, 422},
		{"not an object", "[]", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pay := a.payFull(1000, numOK, nil)
			r := a.req("POST", "/_sandbox/reset", tc.body)
			assert.Equal(t, tc.status, r.Status, "%s", r.Body)
			after := a.req("GET", "/payments/"+pay.Str("id"), nil)
			if tc.status == 200 {
				assert.Equal(t, "RESET", r.Str("status"))
				assert.NotEqual(t, 200, after.Status, "reset deleted the payment")
				return
			}
			if tc.status == 422 {
				assert.Equal(t, string(simulator.CodeRequestValidationError), r.ErrorID())
				assert.Contains(t, string(r.Body), "ResetRequest")
			}
			assert.Equal(t, 200, after.Status, "a refused reset deletes nothing")
		})
	}
}
