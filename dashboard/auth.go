package dashboard

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/paysandbox/paysandbox/simulator"
)

// Cookie names; both are scoped to Prefix.
const (
	sessionCookie = "paysandbox_ui"
	flashCookie   = "paysandbox_ui_flash"
)

// claims are what a session cookie or a checkout link carries: the tenant,
// a fingerprint of the API key (never the key), and the expiry. A session
// also carries its id and issue stamp (revocations: sign-out ends it) and
// the tenant's generation (a secret rotation or the tenant's deletion ends
// every session of the tenant).
type claims struct {
	Tenant string `json:"t"`
	Key    string `json:"k"`
	Exp    int64  `json:"e"` // unix seconds, wall clock
	Sid    string `json:"s,omitempty"`
	Iat    int64  `json:"i,omitempty"` // revocations.issue
	Gen    string `json:"g,omitempty"` // generation
}

// keyHash fingerprints an API key; a removed key ends its sessions and links.
func keyHash(key string) string {
	sum := sha256.Sum256([]byte("paysandbox-ui-key|" + key))
	return hex.EncodeToString(sum[:12])
}

// sign makes "payload.mac" for purpose (so a link is never a cookie),
// prefixed with the instance's name when it has one.
func (s *Server) sign(purpose string, c claims) string {
	b, _ := json.Marshal(c)
	p := base64.RawURLEncoding.EncodeToString(b)
	return simulator.WithInstance(s.opt.Instance, p+"."+s.mac(purpose, p))
}

// generation fingerprints tenant t as its sessions know it: its id, creation
// and webhook signing secret, so that rotating the secret, or deleting the
// tenant (a tenant made again under its id is another generation), ends
// every session of the tenant, whichever way it happened (the API, the
// dashboard, an admin, a ttl) and with no state to keep.
func (s *Server) generation(t *simulator.Tenant) string {
	return s.mac("tenant", t.ID+"|"+t.CreatedAt.UTC().Format(time.RFC3339Nano)+"|"+t.SigningSecret)[:22]
}

func (s *Server) mac(purpose, payload string) string {
	m := hmac.New(sha256.New, s.opt.Secret)
	m.Write([]byte(purpose + "|" + payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

var errSignIn = errors.New("sign in")

// instanceParam is the query parameter of a sign-in redirected to the
// instance that issued its key: the only dashboard request whose credential
// travels in the body, where a proxy cannot see it.
const instanceParam = "instance"

// verify checks a signed value of purpose, its expiry, and that its tenant
// and key still exist; it returns the tenant, the key's record and the
// claims.
func (s *Server) verify(purpose, v string) (*simulator.Tenant, simulator.APIKey, claims, error) {
	var c claims
	if s.opt.Instance != "" {
		var ok bool
		if v, ok = strings.CutPrefix(v, s.opt.Instance+simulator.InstanceSep); !ok {
			return nil, simulator.APIKey{}, c, errSignIn // another instance's, or unnamed
		}
	}
	p, sig, ok := strings.Cut(v, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(s.mac(purpose, p))) {
		return nil, simulator.APIKey{}, c, errSignIn
	}
	b, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return nil, simulator.APIKey{}, c, errSignIn
	}
	if json.Unmarshal(b, &c) != nil || s.opt.Now().Unix() >= c.Exp {
		return nil, simulator.APIKey{}, c, errSignIn
	}
	t, err := s.svc.Tenant(c.Tenant)
	if err != nil || t == nil {
		return nil, simulator.APIKey{}, c, errSignIn
	}
	for _, k := range t.APIKeys {
		if keyHash(k.Key) == c.Key {
			return t, k, c, nil
		}
	}
	return nil, simulator.APIKey{}, c, errSignIn
}

// auth is the signed-in caller of a request.
type auth struct {
	Tenant *simulator.Tenant
	Key    simulator.APIKey
	CSRF   string
	// session is the session cookie's claims (logout ends it).
	session claims
}

type ctxKey struct{}

func authOf(r *http.Request) *auth { a, _ := r.Context().Value(ctxKey{}).(*auth); return a }

// sessionOf resolves the session cookie.
func (s *Server) sessionOf(r *http.Request) (*auth, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, errSignIn
	}
	t, k, c, err := s.verify("session", ck.Value)
	if err != nil {
		return nil, err
	}
	if c.Sid == "" || c.Gen != s.generation(t) || s.ended.ended(c) {
		return nil, errSignIn
	}
	return &auth{Tenant: t, Key: k, CSRF: s.mac("csrf", ck.Value)[:32], session: c}, nil
}

// signed requires a session; a POST also needs the session's CSRF token and,
// when the browser says where it comes from, this origin.
func (s *Server) signed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, err := s.sessionOf(r)
		if err != nil {
			if r.Method == http.MethodGet && r.Header.Get("Accept") != "text/event-stream" {
				http.Redirect(w, r, Prefix+"/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusFound)
				return
			}
			s.render(w, r, http.StatusUnauthorized, "message", &view{Title: "Signed out", Bare: true,
				Data: message{Heading: "Your session has ended", Text: "Sign in again with the tenant's API key.", Link: Prefix + "/login", LinkText: "Sign in"}})
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			if !s.sameOrigin(r) || !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(a.CSRF)) {
				s.render(w, r, http.StatusForbidden, "message", &view{Title: "Refused", Bare: true,
					Data: message{Heading: "This form was refused", Text: "It did not come from this dashboard page (missing or stale form token). Reload the page and try again.", Link: Prefix + "/", LinkText: "Back to the dashboard"}})
				return
			}
		}
		h(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, a)))
	}
}

// sameOrigin is false when Origin (or, without it, Referer) names another
// host than the client's (forwarded.Trust.SameOrigin); without either
// header the CSRF token alone decides.
func (s *Server) sameOrigin(r *http.Request) bool { return s.opt.Trust.SameOrigin(r) }

type loginData struct {
	Key   string
	Next  string
	Error string
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	d := loginData{Next: safeNext(r.URL.Query().Get("next"))}
	if s.opt.PrefillKey != "" {
		if _, _, err := s.svc.Authenticate(s.opt.PrefillKey); err == nil {
			d.Key = s.opt.PrefillKey
		}
	}
	s.render(w, r, http.StatusOK, "login", &view{Title: "Sign in", Bare: true, Data: d})
}

// login checks the key like the API does and sets the session cookie.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	key := strings.TrimSpace(r.PostFormValue("apiKey"))
	next := safeNext(r.PostFormValue("next"))
	if !s.sameOrigin(r) {
		s.render(w, r, http.StatusForbidden, "login", &view{Title: "Sign in", Bare: true, Data: loginData{Next: next, Error: "The sign-in form must be sent from this dashboard."}})
		return
	}
	t, _, err := s.svc.Authenticate(key)
	if other := simulator.ForeignInstance(s.opt.Instance, key); err != nil && other != "" && r.URL.Query().Get(instanceParam) != other {
		// Another instance's key: the proxy routes a sign-in by this
		// parameter (307 keeps the method and the form).
		http.Redirect(w, r, Prefix+"/login?"+instanceParam+"="+url.QueryEscape(other), http.StatusTemporaryRedirect)
		return
	}
	if err != nil {
		s.render(w, r, http.StatusUnauthorized, "login", &view{Title: "Sign in", Bare: true, Data: loginData{Next: next, Error: "That API key is not valid. " + plain(err)}})
		return
	}
	now := s.opt.Now()
	v := s.sign("session", claims{Tenant: t.ID, Key: keyHash(key), Exp: now.Add(s.opt.SessionTTL).Unix(),
		Sid: uuid.NewString(), Iat: s.ended.issue(now), Gen: s.generation(t)})
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: v, Path: Prefix, HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: s.secure(r), MaxAge: int(s.opt.SessionTTL / time.Second)})
	if next == "" {
		next = Prefix + "/payments"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout ends this session, and only this one: the tenant's other sessions
// (teammates signed in with the same or another key) go on.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	s.ended.end(authOf(r).session, s.opt.Now())
	s.clearSession(w, r)
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}

// clearSession asks the browser to drop its session cookie.
func (s *Server) clearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: Prefix, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secure(r), MaxAge: -1})
}

// secure reports that the client reached the dashboard over https (directly
// or through a trusted proxy): the session cookie is then Secure.
func (s *Server) secure(r *http.Request) bool { return s.opt.Trust.Scheme(r) == "https" }

// safeNext keeps redirects inside the dashboard.
func safeNext(n string) string {
	if strings.HasPrefix(n, Prefix+"/") && !strings.HasPrefix(n, "//") && !strings.Contains(n, "\\") {
		return n
	}
	return ""
}

// flash is a one-shot message shown by the next page (post-redirect-get).
type flash struct {
	Kind string `json:"k"` // ok | error
	Text string `json:"t"`
}

func setFlash(w http.ResponseWriter, kind, text string) {
	b, _ := json.Marshal(flash{Kind: kind, Text: text})
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: Prefix, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

func takeFlash(w http.ResponseWriter, r *http.Request) *flash {
	ck, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: Prefix, MaxAge: -1})
	b, err := base64.RawURLEncoding.DecodeString(ck.Value)
	if err != nil {
		return nil
	}
	var f flash
	if json.Unmarshal(b, &f) != nil || f.Text == "" {
		return nil
	}
	return &f
}

// done answers a state-changing form: flash the outcome and go back (PRG).
func done(w http.ResponseWriter, r *http.Request, to string, err error, okText string) {
	if err != nil {
		setFlash(w, "error", "Refused. "+plain(err))
	} else {
		setFlash(w, "ok", okText)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
