package paysandboxtest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/paysandboxtest"
)

// merchant is what a merchant's backend does with the API, for the tests:
// a client session, the card tokenised, the payment.
type merchant struct {
	t  testing.TB
	sb *paysandboxtest.Tenant
}

// api sends a merchant API request with the tenant's key and answers the
// status and the decoded body.
func (m merchant) api(method, path string, body any, headers ...string) (int, map[string]any) {
	m.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(m.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, m.sb.URL+path, rd)
	require.NoError(m.t, err)
	req.Header.Set("X-API-KEY", m.sb.APIKey)
	req.Header.Set("X-API-VERSION", "2.4")
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(m.t, err)
	defer resp.Body.Close()
	out := map[string]any{}
	raw, err := io.ReadAll(resp.Body)
	require.NoError(m.t, err)
	if len(raw) > 0 {
		require.NoError(m.t, json.Unmarshal(raw, &out), "%s", raw)
	}
	return resp.StatusCode, out
}

// pay makes a payment of amount EUR cents with the card and answers its id
// and status.
func (m merchant) pay(amount int, card string) (string, string) {
	m.t.Helper()
	status, session := m.api("POST", "/client-session", map[string]any{"orderId": "order-1", "currencyCode": "EUR", "amount": amount})
	require.Equal(m.t, http.StatusOK, status, session)
	token := m.sb.CardToken(session["clientToken"].(string), card)
	status, p := m.api("POST", "/payments", map[string]any{"paymentMethodToken": token})
	require.Equal(m.t, http.StatusOK, status, p)
	return p["id"].(string), p["status"].(string)
}

// recorder is a testing.TB that records what Errorf and Fatalf report
// instead of failing the test; Fatalf ends the goroutine, as the real one
// does. Everything else is the real test's.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	fatal  string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatal = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

// Errors are what Errorf reported so far.
func (r *recorder) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

// fatalOf runs f with a recorder over t on a goroutine of its own (Fatalf
// ends it) and answers what Fatalf reported ("" when f returned).
func fatalOf(t testing.TB, f func(tb testing.TB)) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fatal
}
