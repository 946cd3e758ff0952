package dashboard

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser is another browser (its own cookie jar) on e's dashboard.
func (e *env) browser() *env {
	jar, _ := cookiejar.New(nil)
	b := *e
	b.client = &http.Client{Jar: jar, Timeout: 20 * time.Second}
	return &b
}

// withCookie is a browser that sends session cookie v, as a copy of a
// cookie kept after its session ended would.
func (e *env) withCookie(v string) *env {
	b := e.browser()
	u, _ := url.Parse(e.srv.URL + Prefix)
	b.client.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: v, Path: Prefix}})
	return b
}

// signedIn reports whether b's session still opens a page (an ended one is
// sent to sign-in).
func (b *env) signedIn() bool {
	b.t.Helper()
	p := b.get(Prefix + "/payments")
	return p.Status == http.StatusOK && p.URL == Prefix+"/payments"
}

// TestSignOutEndsThatSession: the cookie of a signed-out session is sent to
// sign-in even when replayed; the tenant's other sessions go on.
func TestSignOutEndsThatSession(t *testing.T) {
	e := newEnv(t, Options{})
	e.signIn(testKey)
	old := sessionValue(t, e)
	mate := e.browser() // a teammate, same tenant and key
	mate.signIn(testKey)
	narrow := e.browser() // same tenant, another key
	narrow.signIn("test-key-read")
	require.True(t, e.withCookie(old).signedIn())

	p := e.post(Prefix+"/logout", url.Values{"csrf": {e.csrf()}})
	assert.Equal(t, Prefix+"/login", p.URL)

	again := e.withCookie(old)
	assert.False(t, again.signedIn(), "the signed-out cookie, replayed")
	assert.Equal(t, Prefix+"/login", again.get(Prefix+"/clock").URL)
	assert.Equal(t, http.StatusUnauthorized, again.post(Prefix+"/clock", url.Values{"duration": {"1m"}}).Status)
	assert.True(t, mate.signedIn(), "a teammate's session of the same key goes on")
	assert.True(t, narrow.signedIn(), "a session of another key goes on")

	e.signIn(testKey)
	assert.True(t, e.signedIn(), "signing in again makes a new session")
	assert.False(t, e.withCookie(old).signedIn())
}

// TestCredentialChangesEndEverySession: rotating the signing secret (API or
// dashboard) and deleting the tenant (its own key, an admin, its ttl) end
// every session of the tenant; another tenant's sessions go on.
func TestCredentialChangesEndEverySession(t *testing.T) {
	cases := []struct {
		name string
		do   func(e *env, first *env)
	}{
		{"rotation through the API", func(e *env, _ *env) {
			_, err := e.svc.RotateSecret(e.tenant)
			require.NoError(t, err)
		}},
		{"rotation in the dashboard", func(_ *env, first *env) {
			p := first.post(Prefix+"/webhooks/rotate", url.Values{"csrf": {first.csrf()}})
			require.Equal(t, http.StatusOK, p.Status, p.Body)
			require.Contains(t, p.Body, "New signing secret: whsec_")
		}},
		{"deletion by the tenant", func(e *env, _ *env) { require.NoError(t, e.svc.DeleteTenant(e.tenant)) }},
		{"deletion by an admin", func(e *env, _ *env) {
			_, err := e.svc.DeleteTenantByID(e.tenant.ID)
			require.NoError(t, err)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hooks := &fakeWebhooks{}
			e := newEnv(t, Options{Webhooks: hooks})
			hooks.svc = e.svc
			e.signIn(testKey)
			first := sessionValue(t, e)
			mate := e.browser()
			mate.signIn("test-key-read")
			other := e.browser()
			other.signIn("other-key")

			tc.do(e, e)

			assert.False(t, e.withCookie(first).signedIn(), "the first session")
			assert.False(t, mate.signedIn(), "a teammate's session")
			assert.True(t, other.signedIn(), "another tenant's session")
			if strings.HasPrefix(tc.name, "rotation") {
				e.signIn(testKey)
				assert.True(t, e.signedIn(), "a sign-in after the rotation works")
			}
		})
	}
	t.Run("deletion by the ttl", func(t *testing.T) {
		e := newEnv(t, Options{})
		ten, err := e.svc.CreateTenant(nil, "", "", time.Hour)
		require.NoError(t, err)
		e.signIn(ten.APIKeys[0].Key)
		require.True(t, e.signedIn())
		other := e.browser()
		other.signIn(testKey)
		e.clock.Advance(time.Hour)
		_, _, err = e.svc.ExpireTenants()
		require.NoError(t, err)
		assert.False(t, e.signedIn())
		assert.True(t, other.signedIn())
	})
}

// TestRotateNeedsEveryScope: a key without every scope sees no rotate button,
// and a forged rotation is refused with 403 naming the scopes it lacks,
// leaving the secret and the session as they were.
func TestRotateNeedsEveryScope(t *testing.T) {
	hooks := &fakeWebhooks{}
	e := newEnv(t, Options{Webhooks: hooks})
	hooks.svc = e.svc
	cases := []struct {
		key    string
		button bool
	}{
		{testKey, true},
		{"test-key-read", false},
		{"test-key-capture", false},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			b := e.browser()
			b.signIn(tc.key)
			assert.Equal(t, tc.button, strings.Contains(b.get(Prefix+"/webhooks").Body, `data-testid="rotate"`))
			if tc.button {
				return
			}
			before, err := e.svc.Tenant(e.tenant.ID)
			require.NoError(t, err)
			p := b.post(Prefix+"/webhooks/rotate", url.Values{"csrf": {b.csrf()}})
			assert.Equal(t, http.StatusForbidden, p.Status)
			k, _ := before.Key(tc.key)
			missing := k.MissingScopes()
			require.NotEmpty(t, missing)
			for _, sc := range missing {
				assert.Contains(t, p.Body, string(sc))
			}
			assert.Contains(t, p.Body, "Rotating the signing secret needs a key holding every scope")
			assert.NotContains(t, p.Body, "whsec_")
			after, err := e.svc.Tenant(e.tenant.ID)
			require.NoError(t, err)
			assert.Equal(t, before.SigningSecret, after.SigningSecret, "not rotated")
			assert.True(t, b.signedIn(), "the session goes on")
		})
	}
}

// TestStreamEndsWithItsSession: an open event stream ends once its session
// is signed out.
func TestStreamEndsWithItsSession(t *testing.T) {
	e := newEnv(t, Options{})
	e.ui.keepAlive = 10 * time.Millisecond
	e.signIn(testKey)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+Prefix+"/events?topic=clock", nil)
	res, err := e.client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	rd := bufio.NewReader(res.Body)
	line, err := rd.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "retry: 2000\n", line)
	e.post(Prefix+"/logout", url.Values{"csrf": {e.csrf()}})
	for err == nil {
		_, err = rd.ReadString('\n')
	}
	assert.NoError(t, ctx.Err(), "the stream ended by itself")
}

// TestRevocationsBound: past its bound the set forgets a signed-out session
// only by raising its tenant's watermark (or the floor) over it, so no
// signed-out session ever comes back before its expiry.
func TestRevocationsBound(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	ttl := time.Hour
	session := func(r *revocations, tenant string, at time.Time) claims {
		iat := r.issue(at)
		return claims{Tenant: tenant, Sid: fmt.Sprintf("%s-%d", tenant, iat), Iat: iat, Exp: at.Add(ttl).Unix()}
	}
	t.Run("full: the first issued goes under its tenant's watermark", func(t *testing.T) {
		r := newRevocations(2, ttl)
		a1, b1 := session(r, "a", now), session(r, "b", now)
		a2 := session(r, "a", now) // issued after a1, still live
		r.end(a1, now)
		r.end(b1, now)
		r.end(a2, now) // full: a1 goes, a's watermark rises over a1
		for _, c := range []claims{a1, b1, a2} {
			assert.True(t, r.ended(c))
		}
		assert.LessOrEqual(t, len(r.ids), 2)
		assert.False(t, r.ended(session(r, "a", now)), "a later session of a")
		assert.False(t, r.ended(session(r, "c", now)), "another tenant")
	})
	t.Run("full: expired ids go first", func(t *testing.T) {
		r := newRevocations(2, ttl)
		a1, b1 := session(r, "a", now), session(r, "b", now)
		r.end(a1, now)
		r.end(b1, now)
		later := now.Add(ttl)
		c1 := session(r, "c", later)
		r.end(c1, later)
		assert.Empty(t, r.tenants, "no watermark was needed")
		assert.True(t, r.ended(c1))
	})
	t.Run("watermarks full: the lowest becomes the floor", func(t *testing.T) {
		r := newRevocations(1, ttl)
		var all []claims
		for _, tenant := range []string{"a", "b", "c", "d"} {
			c := session(r, tenant, now)
			all = append(all, c)
			r.end(c, now)
		}
		for _, c := range all {
			assert.True(t, r.ended(c), c.Tenant)
		}
		assert.LessOrEqual(t, len(r.tenants), 1)
		assert.LessOrEqual(t, len(r.ids), 1)
		assert.Positive(t, r.floor)
		assert.False(t, r.ended(session(r, "a", now)), "sessions issued later go on")
	})
	t.Run("stamps increase on a clock that stands still or goes back", func(t *testing.T) {
		r := newRevocations(1, ttl)
		s1 := r.issue(now)
		assert.Greater(t, r.issue(now), s1)
		assert.Greater(t, r.issue(now.Add(-time.Hour)), s1)
	})
	t.Run("a session once ended stays ended", func(t *testing.T) {
		r := newRevocations(3, ttl)
		var ended []claims
		for i := range 50 {
			c := session(r, []string{"a", "b", "c", "d", "e"}[i%5], now.Add(time.Duration(i)*time.Minute))
			r.end(c, now.Add(time.Duration(i)*time.Minute))
			ended = append(ended, c)
			for _, e := range ended {
				if now.Add(time.Duration(i)*time.Minute).Unix() < e.Exp {
					require.True(t, r.ended(e), "step %d: %s", i, e.Sid)
				}
			}
			require.LessOrEqual(t, len(r.ids), 3)
			require.LessOrEqual(t, len(r.tenants), 3)
		}
	})
}
