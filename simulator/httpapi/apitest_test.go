package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/idgen"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// The merchant API's behaviour tests run against the real echo server over
// the real service, store and fake processors (the built-in scenarios), with
// a manual clock and deterministic ids; serve's wiring, flags and output are
// cmd/paysandbox's to test.

// testEpoch is the manual clock's start; golden files depend on it.
var testEpoch = time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)

// apiOptions adjust startAPI; the zero value is an in-memory store, the
// test epoch, sequential ids and a running scheduler.
type apiOptions struct {
	Path  string          // the store's file (default ":memory:")
	Fsync string          // default "never"
	Clock *clock.Manual   // default a manual clock at testEpoch
	IDs   simulator.IDGen // default sequential ids
	// Paused leaves the scheduler loop stopped: background work (the
	// authorization after an approval, expiries, settlements) runs only when
	// the clock is advanced through /_sandbox/clock/advance. It is the one
	// way to hold an approved payment PENDING, which POST
	// /payments/{id}/authorize needs.
	Paused bool
	// RequestTimeout cuts merchant and client requests with 504 (default 5s).
	RequestTimeout time.Duration
	// JournalSize is how many requests the journal keeps per tenant
	// (0: the default).
	JournalSize int
	// AdminKey is the sandbox's admin key (serve's --admin-key; "": none).
	AdminKey string
}

// testAPI is the HTTP API served on a free loopback port.
type testAPI struct {
	t     testing.TB
	srv   *httptest.Server
	DB    *store.DB
	Svc   *service.Service
	Clock *clock.Manual
	Key   string // API key sent by default (the default tenant's)
	http  *http.Client
}

// newTestAPI serves the API with the default options.
func newTestAPI(t testing.TB) *testAPI {
	t.Helper()
	a, _ := startAPI(t, apiOptions{})
	return a
}

// newPausedAPI serves the API without its scheduler loop (apiOptions.Paused).
func newPausedAPI(t testing.TB) *testAPI {
	t.Helper()
	a, _ := startAPI(t, apiOptions{Paused: true})
	return a
}

// startAPI serves the API and returns it with its stop function (a restart
// test stops it before the test ends; stopping twice is fine).
func startAPI(t testing.TB, o apiOptions) (*testAPI, func()) {
	t.Helper()
	if o.Path == "" {
		o.Path = ":memory:"
	}
	if o.Fsync == "" {
		o.Fsync = "never"
	}
	if o.Clock == nil {
		o.Clock = clock.NewManual(testEpoch)
	}
	if o.IDs == nil {
		o.IDs = &idgen.Seq{}
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 5 * time.Second
	}
	db, err := store.Open(o.Path, o.Fsync, store.Options{})
	require.NoError(t, err)
	svc := newService(t, db, o.Clock, o.IDs)
	_, err = svc.EnsureTenant(service.TenantSpec{
		ID: simulator.DefaultTenantID, SigningSecret: simulator.DefaultSigningSecret,
		APIKeys: []simulator.APIKey{{Key: simulator.DefaultAPIKey, Scopes: simulator.AllScopes}},
	})
	require.NoError(t, err)
	api := httpapi.New(svc, httpapi.Options{
		RequestTimeout: o.RequestTimeout, Ready: db.Ready, ReadTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		JournalSize: o.JournalSize, AdminKey: o.AdminKey, ChallengePage: challengePage,
	})
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = api.HTTPServer(checkedByOpenAPI(t, api.Routes()), nil) // serve's limits: the header cap, the read timeout; every answer checked against the OpenAPI document
	srv.Start()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	if !o.Paused {
		wg.Go(func() { svc.Scheduler().Run(ctx) })
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			srv.Close()
			cancel()
			wg.Wait()
			_ = svc.FlushCounts() // as serve's shutdown does
			_ = db.Close()
		})
	}
	t.Cleanup(stop)
	client := srv.Client()
	client.Timeout = 30 * time.Second
	return &testAPI{t: t, srv: srv, DB: db, Svc: svc, Clock: o.Clock, Key: simulator.DefaultAPIKey, http: client}, stop
}

// newService builds the service as serve does: the fake processors on the
// built-in scenarios (and each tenant's own rules) and the card catalogue.
func newService(t testing.TB, db *store.DB, clk simulator.Clock, ids simulator.IDGen) *service.Service {
	t.Helper()
	return newServiceOn(t, db, db, clk, ids, service.Config{AttemptTTL: 15 * time.Minute})
}

// newServiceOn is newService over st (db or a wrapper of it), with cfg.
func newServiceOn(t testing.TB, st simulator.Store, db *store.DB, clk simulator.Clock, ids simulator.IDGen, cfg service.Config) *service.Service {
	t.Helper()
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	proc := processors.NewFake(nil, nil)
	return service.NewService(st, clk, ids, catalog, proc, nil, cfg)
}

// URL is the server's base URL.
func (a *testAPI) URL() string { return a.srv.URL }

// as is the same API seen with another API key.
func (a *testAPI) as(key string) *testAPI {
	b := *a
	b.Key = key
	return &b
}

// newTenant creates a tenant through the control plane and returns its key.
func (a *testAPI) newTenant(body map[string]any) string {
	a.t.Helper()
	var b any
	if body != nil {
		b = body
	}
	key := a.must(201, "POST", "/_sandbox/tenants", b).Str("apiKey")
	require.NotEmpty(a.t, key)
	return key
}

// resp is an answer with its decoded JSON body.
type resp = apitest.Resp

// req sends a request (apitest.Client.Req) with the test's key.
func (a *testAPI) req(method, path string, body any, headers ...string) *resp {
	a.t.Helper()
	return apitest.Client{T: a.t, HTTP: a.http, URL: a.URL(), Key: a.Key}.Req(method, path, body, headers...)
}

// must sends a request and requires the status.
func (a *testAPI) must(status int, method, path string, body any, headers ...string) *resp {
	a.t.Helper()
	r := a.req(method, path, body, headers...)
	require.Equal(a.t, status, r.Status, "%s %s: %s", method, path, r.Body)
	return r
}

// session creates a client session and returns its client token.
func (a *testAPI) session(body map[string]any) string {
	a.t.Helper()
	return a.must(200, "POST", "/client-session", body).Str("clientToken")
}

// tokenize tokenises a card in the session and returns the answer.
func (a *testAPI) tokenize(clientToken, number string) *resp {
	a.t.Helper()
	return a.must(200, "POST", "/client/payment-instruments", card(number), "X-Client-Token: "+clientToken)
}

// pay makes a session (plainSession), tokenises number and pays with it.
func (a *testAPI) pay(amount int64, number string) *resp {
	a.t.Helper()
	pt := a.tokenize(a.session(plainSession(amount)), number).Str("token")
	return a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt})
}

// card is a tokenisation request body for number.
func card(number string) map[string]any {
	return map[string]any{"paymentInstrument": map[string]any{
		"number": number, "cvv": "123", "expirationMonth": "12", "expirationYear": "2030", "cardholderName": "Jane Doe",
	}}
}

// plainSession is the content pay uses: amount EUR, order-1, cust-1.
func plainSession(amount int64) map[string]any {
	return map[string]any{"orderId": "order-1", "currencyCode": "EUR", "amount": amount, "customerId": "cust-1"}
}

// challengePage is the dashboard's challenge page as the composition root
// hands it to the server (dashboard.ChallengePageURL, which cmd/paysandbox's
// end-to-end tests use).
func challengePage(token string) string {
	return "/_sandbox/ui/checkout/challenge?token=" + url.QueryEscape(token)
}
