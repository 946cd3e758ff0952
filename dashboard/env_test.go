package dashboard

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// env is a real service on in-memory buntdb with a manual clock, the
// dashboard in front of it on a real HTTP server, and a browser-like client
// (cookie jar) signed in as nobody yet.
type env struct {
	t      testing.TB
	svc    *service.Service
	ui     *Server
	srv    *httptest.Server
	client *http.Client
	tenant *simulator.Tenant
	clock  *clock.Manual
	wall   *wallClock
}

// wallClock is the dashboard's cookie clock under test control.
type wallClock struct {
	mu sync.Mutex
	t  time.Time
}

func (w *wallClock) Now() time.Time { w.mu.Lock(); defer w.mu.Unlock(); return w.t }
func (w *wallClock) Add(d time.Duration) {
	w.mu.Lock()
	w.t = w.t.Add(d)
	w.mu.Unlock()
}

const testKey = "test-key-all"

func newEnv(t testing.TB, opt Options) *env {
	t.Helper()
	return newEnvConfig(t, opt, service.Config{})
}

// newEnvConfig is newEnv whose service is made with cfg.
func newEnvConfig(t testing.TB, opt Options, cfg service.Config) *env {
	t.Helper()
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	db, err := store.Open(":memory:", "never", store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	clk := clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC))
	svc := service.NewService(db, clk, &idgen.Seq{}, catalog, processors.NewFake(nil, nil), nil, cfg)
	ten, err := svc.EnsureTenant(service.TenantSpec{ID: "acme", SigningSecret: "s", APIKeys: []simulator.APIKey{
		{Key: testKey, Scopes: simulator.AllScopes},
		{Key: "test-key-read", Scopes: []simulator.Scope{simulator.ScopeTransactionsRetrieve}},
		{Key: "test-key-capture", Scopes: []simulator.Scope{simulator.ScopeTransactionsCapture}},
	}})
	require.NoError(t, err)
	_, err = svc.EnsureTenant(service.TenantSpec{ID: "other", SigningSecret: "s2", APIKeys: []simulator.APIKey{{Key: "other-key", Scopes: simulator.AllScopes}}})
	require.NoError(t, err)
	wall := &wallClock{t: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)}
	opt.Now = wall.Now
	if opt.PollInterval == 0 {
		opt.PollInterval = 10 * time.Millisecond
	}
	ui, err := New(svc, opt)
	require.NoError(t, err)
	srv := httptest.NewServer(ui.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"api":true}`)
	})))
	t.Cleanup(func() { ui.Close(); srv.Close() })
	jar, _ := cookiejar.New(nil)
	return &env{t: t, svc: svc, ui: ui, srv: srv, client: &http.Client{Jar: jar, Timeout: 20 * time.Second}, tenant: ten, clock: clk, wall: wall}
}

// page is an answer with its body.
type page struct {
	Status int
	URL    string
	Body   string
	Header http.Header
}

func (e *env) do(req *http.Request) page {
	e.t.Helper()
	res, err := e.client.Do(req)
	require.NoError(e.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	return page{Status: res.StatusCode, URL: res.Request.URL.Path, Body: string(b), Header: res.Header}
}

func (e *env) get(path string) page {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	require.NoError(e.t, err)
	return e.do(req)
}

// post sends a form as the browser would from the dashboard (same Origin).
func (e *env) post(path string, form url.Values) page {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(e.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.srv.URL)
	return e.do(req)
}

func (e *env) signIn(key string) page {
	e.t.Helper()
	return e.post(Prefix+"/login", url.Values{"apiKey": {key}})
}

// csrf reads the signed-in session's form token from a page.
func (e *env) csrf() string {
	e.t.Helper()
	body := e.get(Prefix + "/clock").Body
	i := strings.Index(body, `name="csrf" value="`)
	require.GreaterOrEqual(e.t, i, 0, "no csrf field: %s", body)
	rest := body[i+len(`name="csrf" value="`):]
	return rest[:strings.IndexByte(rest, '"')]
}

// pay makes a payment in tenant t with card number through the service.
func (e *env) pay(t *simulator.Tenant, amount int64, number, order, customer string) *simulator.Payment {
	e.t.Helper()
	cs, err := e.svc.CreateSession(t, simulator.SessionData{OrderID: order, CurrencyCode: "EUR", Amount: &amount, CustomerID: customer}, simulator.ApprovalAuto)
	require.NoError(e.t, err)
	tok, err := e.svc.Tokenize(cs.ClientToken, service.CardInput{Number: number, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Jane"})
	require.NoError(e.t, err)
	p, err := e.svc.CreatePayment(context.Background(), t, service.PaymentRequest{Token: tok.Instrument.Token})
	require.NoError(e.t, err)
	return p
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
