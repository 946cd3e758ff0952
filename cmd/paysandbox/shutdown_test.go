package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
)

// TestShutdownAnswersHeldTimeoutRequests: a request held by a timeout rule
// (amount 5040 holds it until request_timeout, then 504) when shutdown's
// limit ends gets its 504 RequestTimeout envelope, naming the payment,
// before its connection closes; after a restart the payment is there,
// PENDING, the same idempotency key answers 409 with it, and it resolves as
// the rule says.
func TestShutdownAnswersHeldTimeoutRequests(t *testing.T) {
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "p.db")
	cfg.RequestTimeout = time.Minute // far beyond the shutdown limit: only shutdown ends the hold
	cfg.ShutdownTimeout = 200 * time.Millisecond
	clk, ids := clock.NewManual(testEpoch), &idgen.Seq{}
	cfg.LogLevel = "warn"
	logs := &apitest.SyncBuffer{}
	a := startAppWith(t, cfg, appHooks{clock: clk, ids: ids, logOut: logs})
	tok := a.session(map[string]any{"orderId": "o-held", "amount": 5040, "currencyCode": "EUR"})
	inst := a.tokenize(tok, "4111111111111111").Str("token")

	type answer struct {
		r   *resp
		err error
	}
	held := make(chan answer, 1)
	go func() { // no require here: not the test's goroutine
		req, _ := http.NewRequest("POST", a.URL()+"/payments", strings.NewReader(`{"paymentMethodToken":"`+inst+`"}`))
		req.Header.Set("X-API-KEY", simulator.DefaultAPIKey)
		req.Header.Set("X-API-VERSION", "2.4")
		req.Header.Set("X-Idempotency-Key", "held-1")
		res, err := a.http.Do(req)
		if err != nil {
			held <- answer{err: err}
			return
		}
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body)
		out := &resp{Status: res.StatusCode, Header: res.Header, Body: raw}
		if err == nil {
			err = json.Unmarshal(raw, &out.JSON)
		}
		held <- answer{r: out, err: err}
	}()
	waitFor(t, func() bool { return paymentsOf(a) == 1 }, "the payment exists (its request is held)")

	require.NoError(t, a.Shutdown())
	var got answer
	select {
	case got = <-held:
	case <-time.After(hangGuard):
		t.Fatal("the held request never ended")
	}
	require.NoError(t, got.err, "the client gets an answer, not a closed connection")
	r := got.r
	require.Equal(t, 504, r.Status, "%s", r.Body)
	assert.Contains(t, r.Err()["description"], "shut down")
	assert.Equal(t, "RequestTimeout", r.ErrorID())
	id, _ := r.Err()["paymentId"].(string)
	require.NotEmpty(t, id, "the 504 names the payment: %s", r.Body)
	assert.Equal(t, "PENDING", r.Err()["paymentStatus"])
	assert.Equal(t, r.Header.Get("X-Request-Id"), r.Err()["diagnosticsId"])
	require.NoError(t, a.Close())
	assert.Contains(t, logs.String(), "answered 504 RequestTimeout", "the log says what shutdown cut")

	b := startAppWith(t, cfg, appHooks{clock: clk, ids: ids})
	p := b.must(200, "GET", "/payments/"+id, nil)
	assert.Equal(t, "PENDING", p.Str("status"))
	again := b.req("POST", "/payments", map[string]any{"paymentMethodToken": inst}, "X-Idempotency-Key: held-1")
	assert.Equal(t, 409, again.Status, "%s", again.Body)
	assert.Equal(t, id, again.Err()["paymentId"])
	b.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "2m"})
	assert.Equal(t, "AUTHORIZED", b.must(200, "GET", "/payments/"+id, nil).Str("status"), "the timeout resolves as the rule says")
}

// paymentsOf counts the default tenant's payments.
func paymentsOf(a *testApp) int {
	list, _ := a.req("GET", "/payments", nil).JSON["data"].([]any)
	return len(list)
}
