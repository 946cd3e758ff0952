package dashboard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// The demo checkout: a signed, expiring link bound to a tenant (and the key
// that made it) opens a shop page that needs no API key. The page asks the
// tiny server-side helper below for a client session, then tokenises and
// pays through the public /client endpoints from the browser, as a merchant's
// front end with the vendor's SDK would.

// checkoutLinkScopes are what a checkout acts with: the scopes of the
// operations that create its session and its payment.
var checkoutLinkScopes = []simulator.Scope{simulator.OperationOf(simulator.OpCreateSession).Scope, simulator.OperationOf(simulator.OpCreatePayment).Scope}

type linkData struct {
	URL     string
	Expires time.Time
}

// checkoutLink makes a checkout link for the signed-in tenant.
func (s *Server) checkoutLink(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	for _, sc := range checkoutLinkScopes {
		if !a.Key.Has(sc) {
			done(w, r, Prefix+"/payments", simulator.Errorf(simulator.CodeForbidden, "The API key lacks the scope %s, which the checkout needs", sc), "")
			return
		}
	}
	exp := s.opt.Now().Add(s.opt.CheckoutTTL)
	link := s.opt.Trust.BaseURL(r) + Prefix + "/checkout?l=" + url.QueryEscape(s.newCheckoutLink(a))
	s.render(w, r, http.StatusOK, "message", &view{Title: "Checkout link", Nav: "payments", Data: message{
		Heading: "Demo checkout link", Text: "Anyone with this link can pay into tenant " + a.Tenant.ID + " until " + exp.UTC().Format(time.RFC1123) + ", without an API key.",
		Link: link, LinkText: link,
	}})
}

// newCheckoutLink signs a checkout link token for the caller's tenant and key.
func (s *Server) newCheckoutLink(a *auth) string {
	exp := s.opt.Now().Add(s.opt.CheckoutTTL)
	return s.sign("checkout", claims{Tenant: a.Tenant.ID, Key: keyHash(a.Key.Key), Exp: exp.Unix()})
}

func hasScopes(k simulator.APIKey, scopes []simulator.Scope) bool {
	for _, sc := range scopes {
		if !k.Has(sc) {
			return false
		}
	}
	return true
}

func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// checkoutTenant resolves a checkout link; the key must still have the scopes.
func (s *Server) checkoutTenant(l string) (*simulator.Tenant, bool) {
	t, k, _, err := s.verify("checkout", l)
	if err != nil || !hasScopes(k, checkoutLinkScopes) {
		return nil, false
	}
	return t, true
}

func (s *Server) badLink(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusForbidden, "message", &view{Title: "Checkout link", Bare: true, Data: message{
		Heading: "This checkout link does not work", Text: "It has expired, was changed, or its tenant or API key is gone. Ask for a new link from the dashboard's Payments page."}})
}

type cardChoice struct {
	Number, Label string
}

type checkoutData struct {
	Link     string
	Tenant   string
	Amount   string
	Currency string
	OrderID  string
	Cards    []cardChoice
}

func (s *Server) checkoutPage(w http.ResponseWriter, r *http.Request) {
	l := r.URL.Query().Get("l")
	if l == "" {
		// Opened from the signed-in dashboard: make a link for its tenant.
		if a, err := s.sessionOf(r); err == nil && hasScopes(a.Key, checkoutLinkScopes) {
			http.Redirect(w, r, Prefix+"/checkout?l="+url.QueryEscape(s.newCheckoutLink(a)), http.StatusFound)
			return
		}
	}
	t, ok := s.checkoutTenant(l)
	if !ok {
		s.badLink(w, r)
		return
	}
	d := checkoutData{Link: l, Tenant: t.ID, Amount: "19.99", Currency: "EUR", OrderID: "demo-" + randomHex(4)}
	for _, c := range s.svc.TestCards() {
		d.Cards = append(d.Cards, cardChoice{Number: c.Number, Label: spaced(c.Number) + " · " + c.Description})
	}
	s.render(w, r, http.StatusOK, "checkout", &view{Title: "Demo checkout", Bare: true, Data: d})
}

// checkoutSession is the tiny server-side helper a merchant's back end would
// be: it creates an AUTO client session for the link's tenant and returns
// only the client token.
func (s *Server) checkoutSession(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	t, ok := s.checkoutTenant(r.PostFormValue("l"))
	if !ok {
		writeJSONError(w, http.StatusForbidden, "The checkout link has expired or is not valid.")
		return
	}
	amount, err := parseMajor(r.PostFormValue("amount"))
	if err != nil {
		writeJSONError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	cur := strings.ToUpper(strings.TrimSpace(r.PostFormValue("currency")))
	if len(cur) != 3 || strings.Trim(cur, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		writeJSONError(w, http.StatusUnprocessableEntity, "The currency must be a three-letter ISO 4217 code such as EUR")
		return
	}
	order := strings.TrimSpace(r.PostFormValue("orderId"))
	if order == "" {
		order = "demo-" + randomHex(4)
	}
	cs, err := s.svc.CreateSession(t, simulator.SessionData{
		OrderID: order, CurrencyCode: cur, Amount: &amount, CustomerID: "demo-shopper",
	}, simulator.ApprovalAuto)
	if err != nil {
		writeJSONError(w, http.StatusUnprocessableEntity, plain(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]string{"clientToken": cs.ClientToken})
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// parseMajor reads "19.99" as 1999 minor units.
func parseMajor(v string) (int64, error) {
	v = strings.TrimSpace(v)
	whole, frac, _ := strings.Cut(v, ".")
	bad := simulator.Errorf(simulator.CodeBadRequest, "The amount must look like 19.99 and be above 0")
	if whole == "" || len(frac) > 2 || len(whole) > 12 {
		return 0, bad
	}
	for len(frac) < 2 {
		frac += "0"
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || n <= 0 || strings.HasPrefix(whole, "-") || strings.HasPrefix(whole, "+") {
		return 0, bad
	}
	return n, nil
}

type challengeData struct {
	Token   string
	Link    string
	Tenant  string
	Payment *simulator.Payment
}

// paymentByChallenge resolves a challenge token to the payment awaiting
// the shopper's answer (nil: none).
func (s *Server) paymentByChallenge(token string) *simulator.Payment {
	p, err := s.svc.ChallengePayment(token)
	if err != nil {
		return nil
	}
	return p
}

// challengePage is the sandbox's 3DS challenge (requiredAction.challengeUrl):
// the challenge token in the URL is the credential, as with the client SDK.
func (s *Server) challengePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := s.paymentByChallenge(q.Get("token"))
	if p == nil {
		s.render(w, r, http.StatusNotFound, "message", &view{Title: "3DS challenge", Bare: true, Data: message{
			Heading: "No challenge waits here", Text: "This 3DS challenge was already answered, or the link is not one the sandbox issued."}})
		return
	}
	s.render(w, r, http.StatusOK, "challenge", &view{Title: "3DS challenge", Bare: true,
		Data: challengeData{Token: q.Get("token"), Link: q.Get("l"), Tenant: p.TenantID, Payment: p}})
}

// challengeAnswer records the shopper's answer and resumes the payment, then
// shows the outcome (the checkout's outcome page when it came from one).
func (s *Server) challengeAnswer(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	token, result, l := r.PostFormValue("token"), r.PostFormValue("result"), r.PostFormValue("l")
	if !s.sameOrigin(r) {
		http.Error(w, "cross-site form refused", http.StatusForbidden)
		return
	}
	resume, p, err := s.svc.AnswerChallenge(token, result)
	if err == nil {
		var t *simulator.Tenant
		if t, err = s.svc.Tenant(p.TenantID); err == nil {
			ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
			defer cancel()
			p, err = s.svc.ResumePayment(ctx, t, p.ID, resume, "")
		}
	}
	if err != nil {
		s.render(w, r, http.StatusUnprocessableEntity, "message", &view{Title: "3DS challenge", Bare: true, Data: message{
			Heading: "The answer was not taken", Text: plain(err)}})
		return
	}
	if lt, ok := s.checkoutTenant(l); ok && lt.ID == p.TenantID {
		http.Redirect(w, r, Prefix+"/checkout/done?l="+url.QueryEscape(l)+"&payment="+url.QueryEscape(p.ID), http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "message", &view{Title: "3DS challenge", Bare: true, Data: message{
		Heading: "Authentication sent", Text: "Payment " + p.ID + " is now " + string(p.Status) + ". You can close this page."}})
}

type doneData struct {
	Link    string
	Payment *simulator.Payment
	Reason  string
}

func (s *Server) checkoutDone(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	t, ok := s.checkoutTenant(q.Get("l"))
	if !ok {
		s.badLink(w, r)
		return
	}
	p, err := s.svc.Payment(t, q.Get("payment"))
	if err != nil {
		s.render(w, r, http.StatusNotFound, "message", &view{Title: "Checkout", Bare: true, Data: message{Heading: "Payment not found", Text: plain(err)}})
		return
	}
	s.render(w, r, http.StatusOK, "checkout_done", &view{Title: "Order " + p.OrderID, Bare: true,
		Data: doneData{Link: q.Get("l"), Payment: p, Reason: reasonText(p.StatusReason)}})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func spaced(n string) string {
	var b strings.Builder
	for i, r := range n {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}
