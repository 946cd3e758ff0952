package paysandboxtest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/app"
	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/paysandboxtest"
)

// TestTenantsApart: each New is a tenant of its own on the one shared
// sandbox (same URL, other key and secret, other data), deleted when its
// test ends.
func TestTenantsApart(t *testing.T) {
	var a, b *paysandboxtest.Tenant
	var paymentID string
	t.Run("two tenants", func(t *testing.T) {
		a, b = paysandboxtest.New(t), paysandboxtest.New(t)
		assert.Equal(t, a.URL, b.URL, "one sandbox per test binary")
		assert.NotEqual(t, a.APIKey, b.APIKey)
		assert.NotEqual(t, a.SigningSecret, b.SigningSecret)
		assert.NotEqual(t, a.ID, b.ID)
		paymentID, _ = merchant{t, a}.pay(1000, "4111111111111111")
		status, body := merchant{t, a}.api("GET", "/payments/"+paymentID, nil)
		assert.Equal(t, http.StatusOK, status, body)
		status, body = merchant{t, b}.api("GET", "/payments/"+paymentID, nil)
		assert.Equal(t, http.StatusBadRequest, status, "another tenant's payment is unknown: %v", body)
	})
	for _, tn := range []*paysandboxtest.Tenant{a, b} {
		status, body := merchant{t, tn}.api("GET", "/payments/"+paymentID, nil)
		assert.Equal(t, http.StatusUnauthorized, status, "the tenant is deleted with its test: %v", body)
	}
}

// TestNoDefaultTenant: the shared sandbox has no default tenant, so a
// test cannot reach another's data through the public default key.
func TestNoDefaultTenant(t *testing.T) {
	tn := paysandboxtest.New(t)
	status, body := merchant{t, &paysandboxtest.Tenant{URL: tn.URL, APIKey: "sandbox-api-key"}}.api("GET", "/payments", nil)
	assert.Equal(t, http.StatusUnauthorized, status, body)
}

// TestNext: a one-shot outcome applies to the next payments whatever their
// card, then the rules resume.
func TestNext(t *testing.T) {
	t.Parallel()
	tn := paysandboxtest.New(t)
	m := merchant{t, tn}
	one := tn.NextN("generic-decline", 2)
	assert.Equal(t, paysandboxtest.OneShot{Rule: "generic-decline", Remaining: 2}, one)
	for _, want := range []string{"DECLINED", "DECLINED", "AUTHORIZED"} {
		_, status := m.pay(1000, "4111111111111111")
		assert.Equal(t, want, status)
	}
	assert.Equal(t, "SETTLING", m.payStatusAfterCapture(tn.Next("slow-settlement")), "a one-shot of a capture rule")
}

// payStatusAfterCapture pays with a pending one-shot (whose rule o names)
// and answers the status after a capture.
func (m merchant) payStatusAfterCapture(o paysandboxtest.OneShot) string {
	m.t.Helper()
	require.Equal(m.t, 1, o.Remaining)
	id, status := m.pay(1000, "4111111111111111")
	require.Equal(m.t, "AUTHORIZED", status)
	code, p := m.api("POST", "/payments/"+id+"/capture", map[string]any{})
	require.Equal(m.t, http.StatusOK, code, p)
	return p["status"].(string)
}

// TestNextUnknownRule: a refusal fails the test with the errorId and
// description of the sandbox's answer.
func TestNextUnknownRule(t *testing.T) {
	tn := paysandboxtest.New(t)
	msg := fatalOf(t, func(tb testing.TB) { tn.With(tb).Next("no-such-rule") })
	assert.Contains(t, msg, "POST /_sandbox/scenarios/next: 422")
	assert.Contains(t, msg, "no-such-rule")
}

// TestAdvanceClock: the tenant's clock moves, and what falls due happens
// before the answer (a slow settlement settles).
func TestAdvanceClock(t *testing.T) {
	t.Parallel()
	tn := paysandboxtest.New(t)
	m := merchant{t, tn}
	before := tn.Now()
	id, status := m.pay(7000, "4111111111111111") // slow-settlement: SETTLING for an hour
	require.Equal(t, "AUTHORIZED", status)
	code, p := m.api("POST", "/payments/"+id+"/capture", map[string]any{})
	require.Equal(t, http.StatusOK, code, p)
	require.Equal(t, "SETTLING", p["status"])

	adv := tn.AdvanceClock(2 * time.Hour)
	assert.False(t, adv.Now.Before(before.Add(2*time.Hour)), "now %s, before %s", adv.Now, before)
	var kinds []string
	for _, f := range adv.Fired {
		if f.PaymentID == id {
			kinds = append(kinds, f.Kind)
		}
	}
	assert.NotEmpty(t, kinds, "the settlement fired: %+v", adv.Fired)
	tn.WaitPayment(id, "SETTLED")
	_, p = m.api("GET", "/payments/"+id, nil)
	assert.Equal(t, "SETTLED", p["status"])

	other := paysandboxtest.New(t)
	assert.Less(t, other.Now().Sub(before), time.Hour, "another tenant's clock did not move")
}

// TestWaitPaymentFails: a wait that is not met fails the test with the
// sandbox's WaitTimeout.
func TestWaitPaymentFails(t *testing.T) {
	t.Parallel()
	tn := paysandboxtest.New(t, paysandboxtest.WithWaitTimeout(50*time.Millisecond))
	id, _ := merchant{t, tn}.pay(1000, "4111111111111111")
	msg := fatalOf(t, func(tb testing.TB) { tn.With(tb).WaitPayment(id, "SETTLED") })
	assert.Contains(t, msg, "408 WaitTimeout")
}

// TestScenarios: a tenant's own rules apply to it only; a document with
// problems fails the test naming the line.
func TestScenarios(t *testing.T) {
	t.Parallel()
	const rules = `rules:
  - name: decline-everything
    authorize:
      status: DECLINED
      reason: { type: ISSUER_DECLINED, declineType: HARD_DECLINE, code: DO_NOT_HONOR, message: Declined }
`
	own := paysandboxtest.New(t, paysandboxtest.WithScenarios(rules))
	_, status := merchant{t, own}.pay(1000, "4111111111111111")
	assert.Equal(t, "DECLINED", status)
	_, status = merchant{t, paysandboxtest.New(t)}.pay(1000, "4111111111111111")
	assert.Equal(t, "AUTHORIZED", status, "the built-in rules elsewhere")

	msg := fatalOf(t, func(tb testing.TB) {
		own.With(tb).SetScenarios("rules:\n  - name: x\n    authorize: { status: MAYBE }\n")
	})
	assert.Contains(t, msg, "ScenarioValidationError")
	assert.Contains(t, msg, "line 3")
}

// TestReport: the CI report in its forms, of this tenant.
func TestReport(t *testing.T) {
	t.Parallel()
	tn := paysandboxtest.New(t)
	merchant{t, tn}.pay(1000, "4111111111111111")
	var rep struct {
		TenantID string `json:"tenantId"`
	}
	require.NoError(t, json.Unmarshal(tn.Report(paysandboxtest.ReportJSON), &rep))
	assert.Equal(t, tn.ID, rep.TenantID)
	assert.Contains(t, string(tn.Report(paysandboxtest.ReportMarkdown)), "POST /payments")
	assert.Contains(t, string(tn.Report(paysandboxtest.ReportJUnit)), "<testsuite")
}

// TestReportOnFailure: a failed test logs its tenant's markdown report
// when it ends.
func TestReportOnFailure(t *testing.T) {
	failed := &failedTest{TB: t}
	tn := paysandboxtest.New(failed, paysandboxtest.WithReportOnFailure())
	merchant{t, tn}.pay(1000, "4111111111111111")
	require.Empty(t, failed.logs)
	failed.end()
	require.Len(t, failed.logs, 1)
	assert.Contains(t, failed.logs[0], "paysandbox report of tenant "+tn.ID)
	assert.Contains(t, failed.logs[0], "POST /payments")
}

// failedTest is a testing.TB that has failed, records its logs and runs
// its cleanups when end is called.
type failedTest struct {
	testing.TB
	logs     []string
	cleanups []func()
}

func (f *failedTest) Failed() bool { return true }
func (f *failedTest) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *failedTest) Cleanup(c func()) { f.cleanups = append(f.cleanups, c) }
func (f *failedTest) end() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// TestNewServer: a sandbox of the test's own, with its settings (a short
// request timeout makes the gateway-timeout path quick), stopped with the
// test.
func TestNewServer(t *testing.T) {
	var url string
	t.Run("own server", func(t *testing.T) {
		srv := paysandboxtest.NewServer(t, paysandboxtest.WithRequestTimeout(200*time.Millisecond))
		url = srv.URL
		tn := srv.New(t)
		assert.Equal(t, srv.URL, tn.URL)
		one := tn.Next("gateway-timeout")
		assert.Equal(t, 200*time.Millisecond, one.HoldsFor)
		m := merchant{t, tn}
		status, session := m.api("POST", "/client-session", map[string]any{"orderId": "o", "currencyCode": "EUR", "amount": 1000})
		require.Equal(t, http.StatusOK, status, session)
		token := tn.CardToken(session["clientToken"].(string), "4111111111111111")
		status, body := m.api("POST", "/payments", map[string]any{"paymentMethodToken": token})
		assert.Equal(t, http.StatusGatewayTimeout, status, body)
	})
	_, err := http.Get(url + "/healthz")
	assert.Error(t, err, "the server stopped with its test")
}

// TestNewServerOptions: a server's scenario file and log.
func TestNewServerOptions(t *testing.T) {
	const rules = `version: 1
defaultProcessor: ACME
processors:
  - { name: ACME, processorMerchantId: acme, capture: sync, settleAfter: 0s, authorizationCode: true }
rules:
  - name: decline-everything
    authorize:
      status: DECLINED
      reason: { type: ISSUER_DECLINED, declineType: HARD_DECLINE, code: DO_NOT_HONOR, message: Declined }
`
	file := filepath.Join(t.TempDir(), "scenarios.yaml")
	require.NoError(t, os.WriteFile(file, []byte(rules), 0o644))
	var log apitest.SyncBuffer
	var tenantID string
	t.Run("server", func(t *testing.T) {
		srv := paysandboxtest.NewServer(t, paysandboxtest.WithScenariosFile(file), paysandboxtest.WithLog(&log, "info"))
		tn := srv.New(t)
		tenantID = tn.ID
		_, status := merchant{t, tn}.pay(1000, "4111111111111111")
		assert.Equal(t, "DECLINED", status, "the file's rules")
	})
	require.NotEmpty(t, tenantID)
	assert.Contains(t, log.String(), tenantID, "the log, written by the time the server stopped")
	assert.Contains(t, log.String(), "/payments")

	missing := filepath.Join(t.TempDir(), "missing.yaml")
	msg := fatalOf(t, func(tb testing.TB) { paysandboxtest.NewServer(tb, paysandboxtest.WithScenariosFile(missing)) })
	assert.Contains(t, msg, "paysandboxtest: starting a sandbox: ")
	assert.Contains(t, msg, missing)
}

// TestAdminKey: a server with an admin key gets it sent with each tenant
// creation.
func TestAdminKey(t *testing.T) {
	srv := paysandboxtest.NewServer(t, paysandboxtest.WithConfig(func(c *app.Config) { c.AdminKey = "admin-secret" }))
	tn := srv.New(t)
	assert.NotEmpty(t, tn.APIKey)
	resp, err := http.Post(srv.URL+"/_sandbox/tenants", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "without the admin key")
}

// TestParallel: many parallel tests, each with its tenant, its receiver
// and its payments, on the one sandbox (run with -race).
func TestParallel(t *testing.T) {
	for i := range 24 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			tn := paysandboxtest.New(t)
			hooks := tn.Webhooks()
			if i%2 == 0 {
				tn.Next("generic-decline")
			}
			id, status := merchant{t, tn}.pay(1000, "4111111111111111")
			want := map[bool]string{true: "DECLINED", false: "AUTHORIZED"}[i%2 == 0]
			assert.Equal(t, want, status)
			ev := hooks.WaitFor(t, func(e paysandboxtest.Event) bool { return e.PaymentID == id && e.Status == want })
			assert.Equal(t, "PAYMENT.STATUS", ev.Type)
			for _, e := range hooks.Events() {
				assert.Equal(t, id, e.PaymentID, "only this tenant's events")
			}
		})
	}
}
