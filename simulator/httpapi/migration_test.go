package httpapi_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// migrationItems reads GET /_sandbox/migration by kind.
func migrationItems(t *testing.T, a *testAPI) map[string]map[string]any {
	t.Helper()
	r := a.must(200, "GET", "/_sandbox/migration", nil, "X-API-VERSION:")
	out := map[string]map[string]any{}
	for _, x := range r.JSON["items"].([]any) {
		it := x.(map[string]any)
		out[it["kind"].(string)] = it
	}
	return out
}

// TestMigrationNotes: requests made with an older version record the 2.4
// differences they hit, per tenant; the same requests on 2.4 record none;
// counts survive a restart and are not hints.
func TestMigrationNotes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	a, stop := startAPI(t, apiOptions{Path: path, Fsync: "always"})
	attempt := "/payment-attempts/00000000-0000-4000-8000-000000000001/approve"
	first := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": tokenIn(a, plainSession(1000), numOK)}, "X-Idempotency-Key: mk")

	// 2.4: nothing to note.
	a.req("POST", attempt, nil)
	a.req("POST", "/payments/"+first.Str("id")+"/capture", nil, "X-Idempotency-Key: mk")
	a.req("POST", "/client-session", map[string]any{"orderId": "o", "approvalMode": "MANUAL"})
	assert.Empty(t, migrationItems(t, a))

	old := a.req("POST", attempt, nil, ver(simulator.V22))
	a.req("POST", attempt, nil, ver(simulator.V23))
	idem := a.req("POST", "/payments/"+first.Str("id")+"/capture", nil, ver(simulator.V22), "X-Idempotency-Key: mk")
	a.req("POST", "/client-session", map[string]any{"orderId": "o", "approvalMode": "MANUAL"}, ver(simulator.V23))
	a.payFull(1000, numOK, nil, ver(simulator.V23))
	part := a.pay(1000, numOK).Str("id")
	a.must(200, "POST", "/payments/"+part+"/capture", map[string]any{"amount": 100}, ver(simulator.V23))

	items := migrationItems(t, a)
	require.Contains(t, items, simulator.DiffAttemptRoutes)
	assert.EqualValues(t, 2, items[simulator.DiffAttemptRoutes]["count"])
	assert.Contains(t, items[simulator.DiffAttemptRoutes]["exampleRequestIds"], old.Header.Get("X-Request-Id"))
	require.Contains(t, items, simulator.DiffIdempotency400)
	assert.Equal(t, "This reused idempotency key answers 409 IdempotencyKeyAlreadyExists on 2.4, 400 TransactionRequestIdempotencyKeyAlreadyExists on 2.2",
		items[simulator.DiffIdempotency400]["description"])
	assert.Equal(t, []any{idem.Header.Get("X-Request-Id")}, items[simulator.DiffIdempotency400]["exampleRequestIds"])
	assert.Contains(t, items[simulator.DiffNewFields]["description"], "$.approvalMode")
	assert.Contains(t, items[simulator.DiffComputedType]["description"], "ECOMMERCE")
	assert.EqualValues(t, 1, items[simulator.DiffFinalCapture]["count"])
	assert.Contains(t, items[simulator.DiffAnswerShape]["description"], "authorizationCode")
	for _, it := range items {
		assert.NotEmpty(t, it["firstSeen"])
		assert.NotEmpty(t, it["lastSeen"])
	}
	hints, _ := a.must(200, "GET", "/_sandbox/hints", nil).JSON["data"].([]any)
	for _, h := range hints {
		assert.NotContains(t, items, h.(map[string]any)["kind"], "migration notes are not hints")
	}

	stop()
	b, _ := startAPI(t, apiOptions{Path: path, Fsync: "always"})
	again := migrationItems(t, b)
	assert.EqualValues(t, 2, again[simulator.DiffAttemptRoutes]["count"], "counts persist")
	assert.Empty(t, migrationItems(t, b.asNewTenant()), "per tenant")
}
