package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateTenant(t *testing.T) {
	a := newTestAPI(t)
	r := a.must(201, "POST", "/_sandbox/tenants", nil, "X-API-KEY:")
	assert.ElementsMatch(t, []string{"tenantId", "apiKey", "signingSecret", "webhookVersion"}, keys(r.JSON))
	assert.Equal(t, "2.4", r.Str("webhookVersion"), "the default")
	for _, k := range []string{"tenantId", "apiKey", "signingSecret"} {
		assert.NotEmpty(t, r.Str(k), k)
	}
	assert.NotEqual(t, "sandbox-signing-secret", r.Str("signingSecret"))
	b := a.as(r.Str("apiKey"))
	tok := b.session(map[string]any{"orderId": "o-b"})
	b.must(200, "GET", "/client-session?clientToken="+tok, nil)
	a.must(400, "GET", "/client-session?clientToken="+tok, nil) // its own data

	t.Run("each tenant gets its own credentials", func(t *testing.T) {
		r2 := a.must(201, "POST", "/_sandbox/tenants", map[string]any{})
		assert.NotEqual(t, r.Str("tenantId"), r2.Str("tenantId"))
		assert.NotEqual(t, r.Str("apiKey"), r2.Str("apiKey"))
		assert.NotEqual(t, r.Str("signingSecret"), r2.Str("signingSecret"))
	})

	refused := []struct {
		name    string
		body    any
		status  int
		errorID string
		paths   []string
	}{
		{name: "unknown scope", body: map[string]any{"scopes": []string{"client_tokens:write", "everything"}}, status: 422, paths: []string{"$.scopes[1]"}},
		{name: "scopes not a list", body: map[string]any{"scopes": "client_tokens:write"}, status: 422, paths: []string{"$.scopes"}},
		{name: "every broken rule at once", body: map[string]any{"ttl": "soon", "webhookUrl": "ftp://hooks.example", "bogusField": 1, "scopes": []string{"x"}}, status: 422,
			paths: []string{"$.ttl", "$.webhookUrl", "$.bogusField", "$.scopes[0]"}},
		{name: "negative ttl", body: map[string]any{"ttl": "-2h"}, status: 422, paths: []string{"$.ttl"}},
		{name: "not JSON", body: "{", status: 400, errorID: "BadRequest"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req("POST", "/_sandbox/tenants", tc.body)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			if tc.status == 422 {
				assert.ElementsMatch(t, tc.paths, paths(fieldErrors(t, r, "TenantCreateRequest")))
				return
			}
			assert.Equal(t, tc.errorID, r.ErrorID())
		})
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestTenantScopes: a tenant's key is limited to its scopes (the table of
// docs/api.md); the control plane needs a key but no scope.
func TestTenantScopes(t *testing.T) {
	a := newTestAPI(t)
	// Data of the default tenant the narrow keys cannot reach anyway; the
	// point is the 403 before any lookup.
	endpoints := []struct {
		scope        string
		method, path string
		body         any
	}{
		{"client_tokens:write", "POST", "/client-session", map[string]any{}},
		{"client_tokens:write", "GET", "/client-session?clientToken=x", nil},
		{"client_tokens:write", "PATCH", "/client-session", map[string]any{"clientToken": "x"}},
		{"transactions:authorize", "POST", "/payments", map[string]any{"paymentMethodToken": "x"}},
		{"transactions:retrieve", "GET", "/payments", nil},
		{"transactions:retrieve", "GET", "/payments/x", nil},
		{"transactions:capture", "POST", "/payments/x/capture", nil},
		{"transactions:cancel", "POST", "/payments/x/cancel", nil},
		{"transactions:refund", "POST", "/payments/x/refund", nil},
		{"transactions:authorize", "POST", "/payment-attempts/00000000-0000-4000-8000-000000000001/approve", nil},
		{"payment_instrument:write", "POST", "/payment-instruments/x/vault", map[string]any{"customerId": "c"}},
		{"payment_instrument:read", "GET", "/payment-instruments?customer_id=c", nil},
		{"payment_instrument:write", "DELETE", "/payment-instruments/x", nil},
		{"payment_instrument:write", "POST", "/payment-instruments/x/default", nil},
	}
	keys := map[string]string{}
	for _, e := range endpoints {
		if keys[e.scope] == "" {
			keys[e.scope] = a.newTenant(map[string]any{"scopes": []string{e.scope}})
		}
	}
	none := a.newTenant(map[string]any{"scopes": []string{}})
	for _, e := range endpoints {
		t.Run(e.method+" "+e.path, func(t *testing.T) {
			for scope, key := range keys {
				r := a.as(key).req(e.method, e.path, e.body)
				if scope == e.scope {
					assert.NotEqual(t, 403, r.Status, "%s has the scope: %s", scope, r.Body)
					assert.NotEqual(t, 401, r.Status, "%s", r.Body)
				} else {
					assert.Equal(t, 403, r.Status, "%s lacks the scope: %s", scope, r.Body)
					assert.Equal(t, "Forbidden", r.ErrorID())
				}
			}
			r := a.as(none).req(e.method, e.path, e.body)
			assert.Equal(t, 403, r.Status, "no scopes: %s", r.Body)
		})
	}
	t.Run("control plane needs only a key", func(t *testing.T) {
		a.as(none).must(200, "GET", "/_sandbox/clock", nil)
		a.as(none).must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1s"})
	})
}

func TestTenantClocks(t *testing.T) {
	a := newTestAPI(t)
	b := a.as(a.newTenant(nil))
	now := func(app *testAPI) string { return app.must(200, "GET", "/_sandbox/clock", nil).Str("now") }
	assert.Equal(t, "2026-11-22T07:30:00.000000Z", now(a))
	assert.Equal(t, "2026-11-22T07:30:00.000000Z", now(b))

	r := b.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1h"})
	assert.Equal(t, "2026-11-22T08:30:00.000000Z", r.Str("now"))
	assert.Equal(t, "2026-11-22T08:30:00.000000Z", now(b))
	assert.Equal(t, "2026-11-22T07:30:00.000000Z", now(a), "another tenant's clock is unchanged")

	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "90s"})
	assert.Equal(t, "2026-11-22T07:31:30.000000Z", now(a))
	assert.Equal(t, "2026-11-22T08:30:00.000000Z", now(b))

	a.Clock.Advance(60_000_000_000) // the base clock moves both
	assert.Equal(t, "2026-11-22T07:32:30.000000Z", now(a))
	assert.Equal(t, "2026-11-22T08:31:00.000000Z", now(b))

	for _, body := range []any{map[string]any{"duration": "0s"}, map[string]any{"duration": "-1ns"}, map[string]any{"duration": "-1h"}, map[string]any{"duration": "1d"}, map[string]any{"duration": ""}, map[string]any{}, map[string]any{"duration": 60}} {
		r := a.req("POST", "/_sandbox/clock/advance", body)
		assert.Equal(t, []string{"$.duration"}, paths(fieldErrors(t, r, "ClockAdvanceRequest")), "%v", body)
	}
	assert.Equal(t, "2026-11-22T07:32:30.000000Z", now(a), "refused advances change nothing")

	// Finding 7: the clock may go as far as an int64 offset reaches, never wrap.
	c := a.as(a.newTenant(nil))
	far := c.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "2562047h47m16.854775807s"}).Str("now")
	assert.True(t, strings.HasPrefix(far, "2319-") || strings.HasPrefix(far, "2318-"), "292 years on: %s", far)
	for _, d := range []string{"1ns", "1h", "2562047h47m16.854775807s"} {
		r := c.req("POST", "/_sandbox/clock/advance", map[string]any{"duration": d})
		assert.Equal(t, []string{"$.duration"}, paths(fieldErrors(t, r, "ClockAdvanceRequest")), d)
		assert.Contains(t, string(r.Body), "overflow", d)
	}
	assert.Equal(t, far, now(c), "the clock neither wrapped nor moved")
}

func TestResetTenant(t *testing.T) {
	a := newTestAPI(t)
	b := a.as(a.newTenant(nil))
	tokA := a.session(map[string]any{"orderId": "o-a"})
	tokB := b.session(map[string]any{"orderId": "o-b", "customerId": "cust-b"})
	pt := b.tokenize(tokB, "4111111111111111").Str("token")
	b.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-b"})
	b.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "5h"})

	r := b.must(200, "POST", "/_sandbox/reset", nil)
	assert.Equal(t, "RESET", r.Str("status"))

	g := b.req("GET", "/client-session?clientToken="+tokB, nil)
	assert.Equal(t, "ClientSessionValidationError", g.ErrorID(), "its sessions are gone")
	assert.Equal(t, 400, b.req("POST", "/client/payment-instruments", card("4111111111111111"), "X-Client-Token: "+tokB).Status)
	assert.Empty(t, b.must(200, "GET", "/payment-instruments?customer_id=cust-b", nil).JSON["data"], "its instruments are gone")
	assert.Equal(t, "2026-11-22T07:30:00.000000Z", b.must(200, "GET", "/_sandbox/clock", nil).Str("now"), "its clock is back")
	b.session(map[string]any{"orderId": "after"}) // its key still works
	a.must(200, "GET", "/client-session?clientToken="+tokA, nil)
}

func TestDeleteTenant(t *testing.T) {
	a := newTestAPI(t)
	key := a.newTenant(nil)
	b := a.as(key)
	tok := b.session(map[string]any{"orderId": "o-b"})
	r := b.must(200, "DELETE", "/_sandbox/tenant", nil)
	assert.Equal(t, "DELETED", r.Str("status"))
	for _, p := range []string{"/_sandbox/clock", "/client-session?clientToken=" + tok} {
		r := b.req("GET", p, nil)
		assert.Equal(t, 401, r.Status, "%s: %s", p, r.Body)
	}
	c := b.req("POST", "/client/payment-instruments", card("4111111111111111"), "X-Client-Token: "+tok)
	assert.Equal(t, "ClientSessionValidationError", c.ErrorID(), "its client tokens are gone")
	a.must(200, "GET", "/_sandbox/clock", nil) // others stay
}

// TestTenantTTL: a tenant made with a ttl is deleted when the wall clock
// passes it; advancing its own clock never expires it.
func TestTenantTTL(t *testing.T) {
	a := newTestAPI(t)
	r := a.must(201, "POST", "/_sandbox/tenants", map[string]any{"ttl": "2h"})
	assert.Equal(t, "2026-11-22T09:30:00.000000Z", r.Str("expiresAt"))
	id := r.Str("tenantId")
	b := a.as(r.Str("apiKey"))
	tok := b.session(map[string]any{"orderId": "o"})
	adv := b.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "72h"})
	assert.NotContains(t, string(adv.Body), "expire-tenant")
	b.must(200, "GET", "/_sandbox/clock", nil)

	a.Clock.Advance(2*time.Hour - time.Microsecond)
	b.must(200, "GET", "/_sandbox/clock", nil)
	a.Clock.Advance(time.Microsecond)
	gone := b.req("GET", "/_sandbox/clock", nil)
	assert.Equal(t, 401, gone.Status, "the tenant is gone")
	assert.Equal(t, "Unauthorized", gone.ErrorID())
	assert.Equal(t, "The API key belonged to tenant "+id+", which expired at 2026-11-22T09:30:00.000000Z (its ttl runs on the wall clock)", gone.Err()["description"])
	assert.Equal(t, gone.Header.Get("X-Request-Id"), gone.Err()["diagnosticsId"])
	require.Eventually(t, func() bool { // the scheduler deletes it with its data
		return b.req("POST", "/client/payment-instruments", card("4111111111111111"), "X-Client-Token: "+tok).ErrorID() == "ClientSessionValidationError"
	}, 10*time.Second, 5*time.Millisecond)
	a.must(200, "GET", "/_sandbox/clock", nil)

	t.Run("reset keeps the ttl", func(t *testing.T) {
		c := a.as(a.newTenant(map[string]any{"ttl": "1h"}))
		c.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "30m"})
		c.must(200, "POST", "/_sandbox/reset", nil)
		a.Clock.Advance(time.Hour)
		assert.Equal(t, 401, c.req("GET", "/_sandbox/clock", nil).Status)
	})
	t.Run("deleted: the plain 401", func(t *testing.T) {
		c := a.as(a.newTenant(map[string]any{"ttl": "1h"}))
		c.must(200, "DELETE", "/_sandbox/tenant", nil)
		a.Clock.Advance(time.Hour)
		assert.Equal(t, "The API key is not valid", c.req("GET", "/_sandbox/clock", nil).Err()["description"])
	})
	t.Run("without ttl a tenant stays", func(t *testing.T) {
		c := a.as(a.newTenant(nil))
		c.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "8760h"})
		a.Clock.Advance(8760 * time.Hour)
		c.must(200, "GET", "/_sandbox/clock", nil)
	})
}

func TestControlPlaneNeedsKey(t *testing.T) {
	a := newTestAPI(t)
	for _, e := range []struct{ method, path string }{
		{"GET", "/_sandbox/clock"}, {"POST", "/_sandbox/clock/advance"}, {"POST", "/_sandbox/reset"},
		{"DELETE", "/_sandbox/tenant"}, {"GET", "/_sandbox/payment-attempts/00000000-0000-4000-8000-000000000001"},
	} {
		for _, h := range []string{"X-API-KEY:", "X-API-KEY: nope"} {
			r := a.req(e.method, e.path, nil, h)
			assert.Equal(t, 401, r.Status, "%s %s (%s): %s", e.method, e.path, h, r.Body)
			assert.Equal(t, "Unauthorized", r.ErrorID())
		}
	}
	a.must(200, "GET", "/_sandbox/clock", nil) // the default tenant was not deleted
}
