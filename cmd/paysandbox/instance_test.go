package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/dashboard"
	"github.com/paysandbox/paysandbox/simulator"
)

// instanceApp starts an app named name ("" for none) as the default tenant.
func instanceApp(t *testing.T, name string) *testApp {
	t.Helper()
	cfg := testConfig()
	cfg.Instance = name
	a := startApp(t, cfg)
	a.Key = cfg.DefaultAPIKey()
	return a
}

// creds are the credentials one instance issued to one of its tenants.
type creds struct {
	key, clientToken, challengeToken, cookie, link string
}

// noRedirect answers a request without following redirects.
func noRedirect(t *testing.T, method, u string, form url.Values, cookie string) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r, err := http.NewRequest(method, u, body)
	require.NoError(t, err)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		r.AddCookie(&http.Cookie{Name: "paysandbox_ui", Value: cookie})
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(r)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res, string(raw)
}

// issue drives a fresh tenant of a through every credential kind and
// returns them, checking that each works on a and carries prefix.
func issue(t *testing.T, a *testApp, prefix string) creds {
	t.Helper()
	created := a.must(201, "POST", "/_sandbox/tenants", nil, "X-API-KEY:")
	assert.True(t, strings.HasPrefix(created.Str("tenantId"), prefix+"t_"), "tenant id %q", created.Str("tenantId"))
	tn := a.as(created.Str("apiKey"))
	var c creds
	c.key = tn.Key
	assert.True(t, strings.HasPrefix(c.key, prefix+"sk_"), "API key %q", c.key)

	c.clientToken = tn.session(plainSession(1000))
	assert.True(t, strings.HasPrefix(c.clientToken, prefix+"cst_"), "client token %q", c.clientToken)
	pt := tn.tokenize(c.clientToken, numChallenge).Str("token")
	p := tn.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt})
	require.Equal(t, "PENDING", p.Str("status"), "%s", p.Body)
	c.challengeToken = dig(p.JSON, "requiredAction", "clientToken").(string)
	assert.True(t, strings.HasPrefix(c.challengeToken, prefix), "challenge token %q", c.challengeToken)
	assert.Contains(t, dig(p.JSON, "requiredAction", "challengeUrl"), "?token="+prefix)
	res, page := noRedirect(t, "GET", a.URL()+dashboard.ChallengePageURL(c.challengeToken), nil, "")
	assert.Equal(t, 200, res.StatusCode, "challenge page")
	assert.Contains(t, page, `action="/_sandbox/ui/checkout/challenge?token=`+prefix, "the answer's URL carries the token a proxy routes by")

	res, _ = noRedirect(t, "POST", a.URL()+"/_sandbox/ui/login", url.Values{"apiKey": {c.key}}, "")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "sign-in")
	for _, ck := range res.Cookies() {
		if ck.Name == "paysandbox_ui" {
			c.cookie = ck.Value
		}
	}
	assert.True(t, strings.HasPrefix(c.cookie, prefix) && c.cookie != "", "cookie %q", c.cookie)
	res, _ = noRedirect(t, "GET", a.URL()+"/_sandbox/ui/payments", nil, c.cookie)
	assert.Equal(t, 200, res.StatusCode, "dashboard with the cookie")

	res, _ = noRedirect(t, "GET", a.URL()+"/_sandbox/ui/checkout", nil, c.cookie)
	require.Equal(t, http.StatusFound, res.StatusCode, "checkout from the dashboard")
	loc, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	c.link = loc.Query().Get("l")
	assert.True(t, strings.HasPrefix(c.link, prefix) && c.link != "", "checkout link %q", c.link)
	res, _ = noRedirect(t, "GET", a.URL()+"/_sandbox/ui/checkout?l="+url.QueryEscape(c.link), nil, "")
	assert.Equal(t, 200, res.StatusCode, "checkout page by its link")
	res, body := noRedirect(t, "POST", a.URL()+"/_sandbox/ui/checkout/session?l="+url.QueryEscape(c.link),
		url.Values{"l": {c.link}, "amount": {"10.00"}, "currency": {"EUR"}, "orderId": {"o-1"}}, "")
	assert.Equal(t, 200, res.StatusCode, "checkout session: %s", body)
	assert.Contains(t, body, `"clientToken":"`+prefix+"cst_")
	return c
}

// TestInstancePrefixes: with --instance every credential an instance issues
// carries "NAME." and works there; another instance's credential is refused
// with the answer of an unknown one, naming both instances; without a name
// nothing is prefixed.
func TestInstancePrefixes(t *testing.T) {
	a, b, plain := instanceApp(t, "a"), instanceApp(t, "b"), instanceApp(t, "")

	t.Run("default key and answering instance", func(t *testing.T) {
		r := a.must(200, "GET", "/_sandbox/clock", nil, "X-API-VERSION:")
		assert.Equal(t, "a", r.Header.Get("X-Paysandbox-Instance"))
		assert.Equal(t, "a.sandbox-api-key", a.Key)
		r = a.as(simulator.DefaultAPIKey).req("GET", "/_sandbox/clock", nil, "X-API-VERSION:")
		assert.Equal(t, 401, r.Status, "the unprefixed default key is not a's")
		r = plain.must(200, "GET", "/_sandbox/clock", nil, "X-API-VERSION:")
		assert.Empty(t, r.Header.Get("X-Paysandbox-Instance"))
		assert.Equal(t, simulator.DefaultAPIKey, plain.Key)
	})

	ca := issue(t, a, "a.")
	cb := issue(t, b, "b.")
	cp := issue(t, plain, "")
	for _, v := range []string{cp.key, cp.clientToken, cp.challengeToken, cp.cookie, cp.link} {
		assert.Equal(t, "", simulator.InstanceOf(v), "unnamed instance issued %q", v)
	}

	t.Run("another instance's credentials on a", func(t *testing.T) {
		naming := "issued by paysandbox instance b, but this is instance a"
		r := a.as(cb.key).req("GET", "/_sandbox/clock", nil, "X-API-VERSION:")
		assert.Equal(t, 401, r.Status)
		assert.Equal(t, "Unauthorized", r.ErrorID())
		assert.Contains(t, r.Err()["description"], naming)

		r = a.req("POST", "/client/payment-instruments", card(numOK), "X-Client-Token: "+cb.clientToken)
		assert.Equal(t, 400, r.Status)
		assert.Equal(t, "ClientSessionValidationError", r.ErrorID())
		assert.Contains(t, r.Err()["description"], naming)

		r = a.req("POST", "/client/3ds/challenge", map[string]any{"result": "AUTH_SUCCESS"}, "X-Client-Token: "+cb.challengeToken)
		assert.Equal(t, 400, r.Status)
		assert.Equal(t, "ClientSessionValidationError", r.ErrorID())
		assert.Contains(t, r.Err()["description"], naming)

		res, _ := noRedirect(t, "GET", a.URL()+dashboard.ChallengePageURL(cb.challengeToken), nil, "")
		assert.Equal(t, 404, res.StatusCode, "challenge page")
		res, _ = noRedirect(t, "GET", a.URL()+"/_sandbox/ui/payments", nil, cb.cookie)
		assert.Equal(t, http.StatusFound, res.StatusCode, "b's cookie signs nobody in on a")
		assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/_sandbox/ui/login"))
		res, _ = noRedirect(t, "GET", a.URL()+"/_sandbox/ui/checkout?l="+url.QueryEscape(cb.link), nil, "")
		assert.Equal(t, 403, res.StatusCode, "b's checkout link")

		// A sign-in with b's key goes to b: the proxy routes ?instance=.
		res, _ = noRedirect(t, "POST", a.URL()+"/_sandbox/ui/login", url.Values{"apiKey": {cb.key}}, "")
		assert.Equal(t, http.StatusTemporaryRedirect, res.StatusCode)
		assert.Equal(t, "/_sandbox/ui/login?instance=b", res.Header.Get("Location"))
		res, body := noRedirect(t, "POST", a.URL()+"/_sandbox/ui/login?instance=b", url.Values{"apiKey": {cb.key}}, "")
		assert.Equal(t, 401, res.StatusCode, "sent to a again: the proxy does not route, no loop")
		assert.Contains(t, body, "instance b")
		res, _ = noRedirect(t, "POST", b.URL()+"/_sandbox/ui/login?instance=b", url.Values{"apiKey": {cb.key}}, "")
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, "b signs its own key in")
	})

	t.Run("an unnamed instance answers as it always did", func(t *testing.T) {
		r := plain.as(ca.key).req("GET", "/_sandbox/clock", nil, "X-API-VERSION:")
		assert.Equal(t, 401, r.Status)
		assert.Equal(t, "The API key is not valid", r.Err()["description"])
		r = plain.req("POST", "/client/payment-instruments", card(numOK), "X-Client-Token: "+ca.clientToken)
		assert.Equal(t, "The client token is invalid.", r.Err()["description"])
		res, _ := noRedirect(t, "POST", plain.URL()+"/_sandbox/ui/login", url.Values{"apiKey": {ca.key}}, "")
		assert.Equal(t, 401, res.StatusCode)
		res, _ = noRedirect(t, "GET", plain.URL()+"/_sandbox/ui/payments", nil, ca.cookie)
		assert.Equal(t, http.StatusFound, res.StatusCode)
	})
}

// TestInstanceConfig: the name is checked at start; --no-default-tenant
// revokes the prefixed default key too.
func TestInstanceConfig(t *testing.T) {
	for _, bad := range []string{"A", "a.b", "-a", "a-", "a_b", strings.Repeat("x", 33)} {
		cfg := testConfig()
		cfg.Instance = bad
		err := cfg.Validate()
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "instance: ")
		}
	}
	cfg := testConfig()
	cfg.Instance = "eu-1"
	require.NoError(t, cfg.Validate())
	off := false
	cfg.DefaultTenant = &off
	a := startApp(t, cfg)
	assert.Equal(t, 401, a.as("eu-1.sandbox-api-key").req("GET", "/_sandbox/clock", nil, "X-API-VERSION:").Status)
}
