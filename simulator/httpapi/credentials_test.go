package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// TestCredentialRoutesNeedEveryScope: what reveals or changes credentials or
// destroys data answers a key holding every scope, or any key of the tenant
// with the admin key; any other key gets 403 Forbidden naming the scopes it
// lacks, and nothing happens.
func TestCredentialRoutesNeedEveryScope(t *testing.T) {
	const admin = "the-admin-key"
	a, _ := startAPI(t, apiOptions{AdminKey: admin})
	routes := []struct {
		method, path, action string
		body                 any
	}{
		{"GET", "/_sandbox/snapshot?includeSecrets=true", "Exporting the tenant's keys and signing secret", nil},
		{"POST", "/_sandbox/webhooks/rotate-secret", "Rotating the signing secret", nil},
		{"POST", "/_sandbox/reset", "Resetting the tenant", nil},
		{"DELETE", "/_sandbox/tenant", "Deleting the tenant", nil},
	}
	narrowScopes := []simulator.Scope{simulator.ScopeTransactionsRetrieve, simulator.ScopeTransactionsCapture}
	callers := []struct {
		name    string
		full    bool // the key holds every scope
		headers []string
		allowed bool
	}{
		{"full key", true, nil, true},
		{"full key, wrong X-Admin-Key", true, []string{"X-Admin-Key: nope"}, true},
		{"narrow key", false, nil, false},
		{"narrow key, X-Admin-Key", false, []string{"X-Admin-Key: " + admin}, true},
		{"narrow key, wrong X-Admin-Key", false, []string{"X-Admin-Key: nope"}, false},
		{"narrow key, empty X-Admin-Key", false, []string{"X-Admin-Key:"}, false},
	}
	n := 0
	for _, rt := range routes {
		for _, cl := range callers {
			t.Run(rt.method+" "+rt.path+"/"+cl.name, func(t *testing.T) {
				n++
				id := fmt.Sprintf("t-cred-%d", n)
				full, narrow := "full-"+id, "narrow-"+id
				_, err := a.Svc.EnsureTenant(service.TenantSpec{ID: id, SigningSecret: "secret-" + id, APIKeys: []simulator.APIKey{
					{Key: full, Scopes: simulator.AllScopes}, {Key: narrow, Scopes: narrowScopes}}})
				require.NoError(t, err)
				as := func(key string) *testAPI { c := a.as(key); c.t = t; return c }
				as(full).session(map[string]any{"orderId": "o"})
				c := as(narrow)
				if cl.full {
					c = as(full)
				}
				r := c.req(rt.method, rt.path, rt.body, cl.headers...)
				if cl.allowed {
					assert.Equal(t, 200, r.Status, "%s", r.Body)
					return
				}
				assert.Equal(t, 403, r.Status, "%s", r.Body)
				assert.Equal(t, "Forbidden", r.ErrorID())
				desc, _ := r.Err()["description"].(string)
				assert.True(t, strings.HasPrefix(desc, "The API key lacks the scopes client_tokens:write, transactions:authorize, transactions:cancel, transactions:refund, payment_instrument:read, payment_instrument:write: "+rt.action+" needs a key holding every scope"), desc)
				assert.NotContains(t, desc, "transactions:retrieve", "a scope the key holds is not named")
				assert.Contains(t, r.Err()["recoverySuggestion"], "X-Admin-Key")
				if len(cl.headers) > 0 && strings.TrimPrefix(cl.headers[0], "X-Admin-Key:") != "" {
					assert.Contains(t, desc, "not this sandbox's admin key")
				}
				for _, secret := range []string{full, "secret-" + id} {
					assert.NotContains(t, string(r.Body), secret)
				}
				// Nothing happened: the tenant, its secret and its data stay.
				ten, err := a.Svc.Tenant(id)
				require.NoError(t, err)
				require.NotNil(t, ten, "not deleted")
				assert.Equal(t, "secret-"+id, ten.SigningSecret, "not rotated")
				got := as(full).must(200, "GET", "/_sandbox/snapshot", nil)
				assert.Contains(t, string(got.Body), `"orderId":"o"`, "not reset")
			})
		}
	}
}

// TestNarrowKeyControlPlane: a narrow key still works the rest of the
// control plane, a snapshot without secrets included; the order of checks
// puts 401 before 403 and 403 before anything the handler checks.
func TestNarrowKeyControlPlane(t *testing.T) {
	a := newTestAPI(t)
	ro := a.as(a.newTenant(map[string]any{"scopes": []string{"transactions:retrieve"}}))
	snap := ro.must(200, "GET", "/_sandbox/snapshot", nil)
	assert.NotContains(t, snap.JSON, "secrets")
	ro.must(200, "GET", "/_sandbox/snapshot?includeSecrets=false", nil)
	ro.must(200, "GET", "/_sandbox/clock", nil)
	ro.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": "http://hooks.test/x"})

	cases := []struct {
		name         string
		c            *testAPI
		method, path string
		body         any
		status       int
	}{
		{"no key first", a.as(""), "POST", "/_sandbox/webhooks/rotate-secret", nil, 401},
		{"unknown key first", a.as("nope"), "GET", "/_sandbox/snapshot?includeSecrets=true", nil, 401},
		{"403 before the body", ro, "POST", "/_sandbox/webhooks/rotate-secret", map[string]any{"bogus": 1}, 403},
		{"a bad includeSecrets is 422 for any key", ro, "GET", "/_sandbox/snapshot?includeSecrets=yes", nil, 422},
		{"the full key's body rules still apply", a, "POST", "/_sandbox/webhooks/rotate-secret", map[string]any{"bogus": 1}, 422},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.c.req(tc.method, tc.path, tc.body)
			assert.Equal(t, tc.status, r.Status, "%s", r.Body)
		})
	}
	t.Run("no admin key configured: X-Admin-Key grants nothing", func(t *testing.T) {
		r := ro.req("POST", "/_sandbox/reset", nil, "X-Admin-Key: anything")
		assert.Equal(t, 403, r.Status, "%s", r.Body)
	})
}
