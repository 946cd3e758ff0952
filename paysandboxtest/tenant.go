package paysandboxtest

import (
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/paysandbox/paysandbox/simulator/httpapi"
)

// DefaultWaitTimeout is how long a wait (WaitPayment, WaitDelivered, a
// Receiver's Wait) lasts before it fails the test, unless WithWaitTimeout
// says otherwise.
const DefaultWaitTimeout = 10 * time.Second

// maxServerWait is the longest wait the control plane holds a request for
// (GET /_sandbox/wait and /_sandbox/webhooks/wait, docs/control-plane.md).
const maxServerWait = 60 * time.Second

// Tenant is a test's tenant: its own data, clock, scenario rules, webhook
// endpoint and credentials on a sandbox. Point the app under test at URL
// with APIKey (and X-API-VERSION, as for the real API) and verify webhooks
// with SigningSecret. Its methods fail the test the handle belongs to
// (the one given to New, or to With) when the sandbox refuses.
type Tenant struct {
	// ID is the tenant's id (platformAccountId in dispute webhooks).
	ID string
	// URL is the sandbox's base URL, for the merchant API and the control
	// plane alike.
	URL string
	// APIKey is the tenant's key, holding every scope.
	APIKey string
	// SigningSecret signs the tenant's webhooks (X-Signature-Primary).
	SigningSecret string

	t     testing.TB
	srv   *Server
	state *tenantState
}

// tenantState is what every handle of one tenant (New's and With's)
// shares.
type tenantState struct {
	cfg   tenantConfig
	owner testing.TB // New's t: the receiver lives as long as it

	mu       sync.Mutex
	receiver *Receiver
}

// Option configures a tenant made by New.
type Option func(*tenantConfig)

type tenantConfig struct {
	scenarios       []byte
	webhookVersion  string
	ttl             time.Duration
	wait            time.Duration
	reportOnFailure bool
}

// WithScenarios gives the tenant its own scenario rules: a whole scenario
// document in YAML (docs/scenarios.md), as PUT /_sandbox/scenarios takes
// it. A document with problems fails the test, listing them by line.
func WithScenarios(yaml string) Option {
	return func(c *tenantConfig) { c.scenarios = []byte(yaml) }
}

// WithWebhookVersion makes the tenant's webhook bodies those of an API
// version (2.1 to 2.4; the default is 2.4).
func WithWebhookVersion(v string) Option {
	return func(c *tenantConfig) { c.webhookVersion = v }
}

// WithTTL bounds the tenant's life in wall-clock time (its own clock never
// expires it). The tenant is deleted when the test ends either way; a ttl
// matters to a tenant handed to something that outlives the test.
func WithTTL(d time.Duration) Option {
	return func(c *tenantConfig) { c.ttl = d }
}

// WithWaitTimeout sets how long the tenant's waits last before they fail
// the test (default DefaultWaitTimeout). The control plane's own waits
// (WaitPayment, WaitDelivered) last a minute at most.
func WithWaitTimeout(d time.Duration) Option {
	return func(c *tenantConfig) { c.wait = d }
}

// WithReportOnFailure logs the tenant's CI report (markdown: routes and
// statuses, rules matched, webhook outcomes, integration hints) when the
// test fails.
func WithReportOnFailure() Option {
	return func(c *tenantConfig) { c.reportOnFailure = true }
}

// New makes a tenant for t on the test binary's sandbox, started by the
// first call; the tenant is deleted when t ends.
func New(t testing.TB, opts ...Option) *Tenant {
	t.Helper()
	s, err := sharedServer()
	if err != nil {
		t.Fatalf("paysandboxtest: starting the sandbox: %v", err)
	}
	return s.New(t, opts...)
}

// New makes a tenant for t on s; it is deleted when t ends.
func (s *Server) New(t testing.TB, opts ...Option) *Tenant {
	t.Helper()
	c := tenantConfig{wait: DefaultWaitTimeout}
	for _, o := range opts {
		o(&c)
	}
	body := map[string]any{}
	if c.ttl != 0 {
		body["ttl"] = c.ttl.String()
	}
	if c.webhookVersion != "" {
		body["webhookVersion"] = c.webhookVersion
	}
	var headers map[string]string
	if s.adminKey != "" {
		headers = map[string]string{"X-Admin-Key": s.adminKey}
	}
	var created struct {
		TenantID      string `json:"tenantId"`
		APIKey        string `json:"apiKey"`
		SigningSecret string `json:"signingSecret"`
	}
	if _, err := s.do("", request{method: "POST", path: "/_sandbox/tenants", body: body, headers: headers}, &created); err != nil {
		t.Fatalf("paysandboxtest: creating a tenant: %v", err)
	}
	tn := &Tenant{ID: created.TenantID, URL: s.URL, APIKey: created.APIKey, SigningSecret: created.SigningSecret,
		t: t, srv: s, state: &tenantState{cfg: c, owner: t}}
	t.Cleanup(func() {
		if c.reportOnFailure && t.Failed() {
			if b, err := s.do(tn.APIKey, request{method: "GET", path: "/_sandbox/report?format=markdown"}, nil); err == nil {
				t.Logf("paysandbox report of tenant %s:\n%s", tn.ID, b)
			}
		}
		if _, err := s.do(tn.APIKey, request{method: "DELETE", path: "/_sandbox/tenant"}, nil); err != nil {
			t.Errorf("paysandboxtest: deleting tenant %s: %v", tn.ID, err)
		}
	})
	if c.scenarios != nil {
		tn.SetScenarios(string(c.scenarios))
	}
	return tn
}

// With is a handle of the same tenant that fails t instead: a subtest's
// (t.Run) failures must be reported on its own t, from its goroutine.
func (tn *Tenant) With(t testing.TB) *Tenant {
	c := *tn
	c.t = t
	return &c
}

// Control calls a control-plane route of the tenant (docs/control-plane.md)
// and answers its body; a body that is not nil is sent as JSON. Anything
// but a 2xx fails the test with the errorId and description. The
// shortcuts below are calls of Control.
func (tn *Tenant) Control(method, path string, body any) []byte {
	tn.t.Helper()
	return tn.call(request{method: method, path: path, body: body}, nil)
}

// call sends r with the tenant's key and decodes the answer into out (when
// not nil); a refusal fails the test.
func (tn *Tenant) call(r request, out any) []byte {
	tn.t.Helper()
	b, err := tn.srv.do(tn.APIKey, r, out)
	if err != nil {
		tn.t.Fatalf("paysandboxtest: tenant %s: %v", tn.ID, err)
	}
	return b
}

// Now is the tenant's clock.
func (tn *Tenant) Now() time.Time {
	tn.t.Helper()
	var out struct {
		Now time.Time `json:"now"`
	}
	tn.call(request{method: "GET", path: "/_sandbox/clock"}, &out)
	return out.Now
}

// Advance is what a clock advance did.
type Advance struct {
	// Now is the tenant's clock after the advance.
	Now time.Time `json:"now"`
	// Fired lists what fell due, in time order: expiries, settlements,
	// timeouts resolved, dispute steps, webhook attempts.
	Fired []Fired `json:"fired"`
}

// Fired is one thing a clock advance made happen, at its due time.
type Fired struct {
	Kind      string    `json:"kind"`
	At        time.Time `json:"at"`
	PaymentID string    `json:"paymentId,omitempty"`
	AttemptID string    `json:"attemptId,omitempty"`
	EventID   string    `json:"eventId,omitempty"`
	// Pending marks a webhook attempt still in flight when the advance
	// stopped waiting for it; it finishes on its own.
	Pending bool `json:"pending,omitempty"`
}

// AdvanceClock moves the tenant's clock forward by d and answers once
// everything due by then has happened (attempts expired, settlements,
// timeouts resolved, webhook attempts made), as POST
// /_sandbox/clock/advance does.
func (tn *Tenant) AdvanceClock(d time.Duration) Advance {
	tn.t.Helper()
	var out Advance
	tn.call(request{method: "POST", path: "/_sandbox/clock/advance", body: map[string]string{"duration": d.String()}}, &out)
	return out
}

// OneShot is a pending one-shot outcome.
type OneShot struct {
	// Rule is the scenario rule the next payments take.
	Rule string
	// Remaining is how many created payments still take it.
	Remaining int
	// HoldsFor is how long the rule holds the request that creates a
	// payment (its latency, or a timeout's hold up to the request
	// timeout); zero for a rule that answers at once.
	HoldsFor time.Duration
}

// Next makes the tenant's next created payment take the scenario rule
// whatever its card or amount (`paysandbox next RULE`); then the rules
// resume. An unknown rule fails the test, naming the rules there are.
func (tn *Tenant) Next(rule string) OneShot {
	tn.t.Helper()
	return tn.NextN(rule, 1)
}

// NextN makes the tenant's next n (1 to 100) created payments take the
// rule (`paysandbox next RULE --times N`); it replaces a pending one.
func (tn *Tenant) NextN(rule string, n int) OneShot {
	tn.t.Helper()
	var out struct {
		Rule      string `json:"rule"`
		Remaining int    `json:"remaining"`
		HoldsFor  string `json:"holdsFor"`
	}
	tn.call(request{method: "POST", path: "/_sandbox/scenarios/next", body: map[string]any{"rule": rule, "times": n}}, &out)
	d, err := time.ParseDuration(out.HoldsFor)
	if err != nil {
		tn.t.Fatalf("paysandboxtest: tenant %s: POST /_sandbox/scenarios/next: holdsFor %q is no duration", tn.ID, out.HoldsFor)
	}
	return OneShot{Rule: out.Rule, Remaining: out.Remaining, HoldsFor: d}
}

// SetScenarios replaces the tenant's scenario rules with a whole scenario
// document in YAML (docs/scenarios.md) and answers how many rules it has.
// A document with problems fails the test, listing them by line.
func (tn *Tenant) SetScenarios(yaml string) int {
	tn.t.Helper()
	var out struct {
		Rules int `json:"rules"`
	}
	tn.call(request{method: "PUT", path: "/_sandbox/scenarios", body: []byte(yaml), contentType: "application/yaml"}, &out)
	return out.Rules
}

// SetWebhookEndpoint sends the tenant's webhooks to u, in the tenant's
// webhook version. Webhooks sets a receiver of this package instead.
func (tn *Tenant) SetWebhookEndpoint(u string) {
	tn.t.Helper()
	body := map[string]string{"url": u}
	if v := tn.state.cfg.webhookVersion; v != "" {
		body["version"] = v
	}
	tn.call(request{method: "PUT", path: "/_sandbox/webhooks/endpoint", body: body}, nil)
}

// WaitPayment answers the payment (its JSON, as the API's GET
// /payments/{id}) once it has the status, and fails the test when it does
// not get there within the wait timeout or ends in another status.
func (tn *Tenant) WaitPayment(paymentID, status string) []byte {
	tn.t.Helper()
	q := url.Values{"paymentId": {paymentID}, "status": {status}, "timeout": {tn.serverWait()}}
	return tn.call(request{method: "GET", path: "/_sandbox/wait?" + q.Encode()}, nil)
}

// WaitDelivered answers the oldest of the payment's events of the type
// that was delivered to the tenant's endpoint (answered 2xx), as a webhook
// event with its body and delivery attempts, waiting for one up to the
// wait timeout; then it fails the test. It is the wait for an app that
// receives webhooks at its own URL (SetWebhookEndpoint); a Receiver's
// waits see the deliveries themselves.
func (tn *Tenant) WaitDelivered(eventType, paymentID string) []byte {
	tn.t.Helper()
	q := url.Values{"paymentId": {paymentID}, "type": {eventType}, "status": {"DELIVERED"}, "timeout": {tn.serverWait()}}
	return tn.call(request{method: "GET", path: "/_sandbox/webhooks/wait?" + q.Encode()}, nil)
}

// serverWait is the wait timeout as a control-plane wait takes it (at
// most a minute).
func (tn *Tenant) serverWait() string {
	return min(tn.state.cfg.wait, maxServerWait).String()
}

// ReportFormat is a form of the CI report (GET /_sandbox/report?format=).
type ReportFormat string

// The report's forms.
const (
	ReportJSON     ReportFormat = httpapi.ReportJSON
	ReportMarkdown ReportFormat = httpapi.ReportMarkdown
	ReportJUnit    ReportFormat = httpapi.ReportJUnit
)

// Report answers the tenant's CI report in a form: the routes called and
// their statuses, the scenario rules matched and never matched, webhook
// outcomes, integration hints and migration notes (docs/ci.md).
func (tn *Tenant) Report(format ReportFormat) []byte {
	tn.t.Helper()
	return tn.call(request{method: "GET", path: "/_sandbox/report?format=" + url.QueryEscape(string(format))}, nil)
}

// Reset deletes the tenant's data (payments, sessions, events, the clock's
// offset, a pending one-shot); its settings and credentials stay.
func (tn *Tenant) Reset() {
	tn.t.Helper()
	tn.call(request{method: "POST", path: "/_sandbox/reset"}, nil)
}

// CardToken tokenises a test card (docs: the README's table of cards and
// amounts) in the client session of clientToken, as the checkout SDK does
// in a shopper's browser, and answers the payment method token to pay
// with (paymentMethodToken). The expiry is five years from now.
func (tn *Tenant) CardToken(clientToken, number string) string {
	tn.t.Helper()
	card := map[string]any{"paymentInstrument": map[string]string{
		"number": number, "expirationMonth": "12", "expirationYear": strconv.Itoa(time.Now().Year() + 5),
	}}
	var out struct {
		Token string `json:"token"`
	}
	b, err := tn.srv.do("", request{method: "POST", path: "/client/payment-instruments", body: card,
		headers: map[string]string{"X-Client-Token": clientToken}}, &out)
	if err != nil {
		tn.t.Fatalf("paysandboxtest: tenant %s: tokenising card %s: %v", tn.ID, number, err)
	}
	if out.Token == "" {
		tn.t.Fatalf("paysandboxtest: tenant %s: POST /client/payment-instruments answered no token: %s", tn.ID, b)
	}
	return out.Token
}
