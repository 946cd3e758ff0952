package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// damageRecord overwrites the value of the last-written record whose key
// holds part and ends in suffix, in the buntdb file at path, with as many
// 'x' bytes (same length: the file loads, the record does not decode). It
// answers the record's key.
func damageRecord(t *testing.T, path, part, suffix string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	end, key := -1, ""
	for from := 0; ; {
		i := bytes.Index(b[from:], []byte(suffix+"\r\n$"))
		if i < 0 {
			break
		}
		i += from
		start := bytes.LastIndex(b[:i], []byte("\r\n")) + 2
		if k := string(b[start : i+len(suffix)]); strings.Contains(k, part) {
			end, key = i, k
		}
		from = i + 1
	}
	require.GreaterOrEqual(t, end, 0, "a key with %s ending in %s is in the file", part, suffix)
	i := end + len(suffix) + 3
	j := bytes.Index(b[i:], []byte("\r\n"))
	var n int
	_, err = fmt.Sscanf(string(b[i:i+j]), "%d", &n)
	require.NoError(t, err)
	copy(b[i+j+2:i+j+2+n], bytes.Repeat([]byte("x"), n))
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return key
}

// A payment whose record does not decode: its read answers 503
// RecordUnreadable naming its key, the list answers 200 without it and
// names it in a Sandbox-Warning, the export leaves it out with what refers
// to it (its events) and lists them in skipped (that the rest imports is
// cmd/paysandbox's test: this server renders no event bodies).
func TestUnreadableRecordAnswers503AndIsSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	a, stop := startAPI(t, apiOptions{Path: path, Fsync: "always", IDs: simulator.RandomIDs{}, Paused: true})
	var ids []string
	for i := range 3 {
		ids = append(ids, a.pay(int64(1000+i), numOK).Str("id"))
	}
	evs := a.must(200, "GET", "/_sandbox/webhooks/events?paymentId="+ids[2], nil, "X-API-VERSION:").JSON["data"].([]any)
	require.NotEmpty(t, evs)
	eventID := evs[0].(map[string]any)["id"].(string)
	stop()
	file := filepath.Join(store.TenantsDir(path), store.TenantFileName(simulator.DefaultTenantID))
	key := damageRecord(t, file, "pay:", "pay:"+ids[1])
	eventKey := damageRecord(t, file, "evt:", ":"+eventID)

	b, _ := startAPI(t, apiOptions{Path: path, Fsync: "always", IDs: simulator.RandomIDs{}, Paused: true})
	r := b.req("GET", "/payments/"+ids[1], nil)
	assert.Equal(t, 503, r.Status, "%s", r.Body)
	assert.Equal(t, "RecordUnreadable", r.ErrorID(), "%s", r.Body)
	assert.Contains(t, r.Err()["description"], key)
	b.must(200, "GET", "/payments/"+ids[0], nil)

	list := b.must(200, "GET", "/payments?limit=10", nil)
	assert.Len(t, list.JSON["data"], 2)
	assert.Contains(t, list.Header.Get("Sandbox-Warning"), key)

	events := b.must(200, "GET", "/_sandbox/webhooks/events", nil, "X-API-VERSION:")
	assert.Contains(t, events.Header.Get("Sandbox-Warning"), eventKey, "the events list names the unreadable event")
	for _, e := range events.JSON["data"].([]any) {
		assert.NotEqual(t, eventID, e.(map[string]any)["id"])
	}

	snap := b.must(200, "GET", "/_sandbox/snapshot", nil)
	assert.Contains(t, snap.Header.Get("Sandbox-Warning"), "left out")
	var doc struct {
		Skipped []struct{ Kind, ID, Key, Reason string } `json:"skipped"`
		Data    struct {
			Payments []struct{ ID string }        `json:"payments"`
			Events   []struct{ PaymentID string } `json:"events"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(snap.Body, &doc))
	require.NotEmpty(t, doc.Skipped)
	assert.Equal(t, simulator.RecordPayment, doc.Skipped[0].Kind)
	assert.Equal(t, ids[1], doc.Skipped[0].ID)
	assert.Equal(t, key, doc.Skipped[0].Key)
	assert.Len(t, doc.Data.Payments, 2)
	kinds := map[string]int{}
	for _, s := range doc.Skipped[1:] {
		if s.Key != "" {
			assert.Equal(t, eventKey, s.Key, "the unreadable event")
			continue
		}
		kinds[s.Kind]++
		assert.Contains(t, s.Reason, "payment "+ids[1])
	}
	assert.Positive(t, kinds[simulator.RecordEvent], "its events are left out: %v", doc.Skipped)
	for _, e := range doc.Data.Events {
		assert.NotEqual(t, ids[1], e.PaymentID)
	}
}

// A tenant whose file went missing answers 503 TenantUnavailable saying so
// until the admin accepts the loss (POST /_sandbox/tenants/{id}/accept-loss);
// it then opens empty.
func TestMissingTenantFileUntilLossAccepted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	const admin = "admin-secret"
	a, stop := startAPI(t, apiOptions{Path: path, Fsync: "always", IDs: simulator.RandomIDs{}, Paused: true, AdminKey: admin})
	pid := a.pay(1000, numOK).Str("id")
	stop()
	require.NoError(t, os.Remove(filepath.Join(store.TenantsDir(path), store.TenantFileName(simulator.DefaultTenantID))))

	b, _ := startAPI(t, apiOptions{Path: path, Fsync: "always", IDs: simulator.RandomIDs{}, Paused: true, AdminKey: admin})
	for _, p := range []string{"/payments/" + pid, "/payments"} {
		r := b.req("GET", p, nil)
		assert.Equal(t, 503, r.Status, "%s: %s", p, r.Body)
		assert.Equal(t, "TenantUnavailable", r.ErrorID())
		assert.Contains(t, r.Err()["description"], "its file is missing")
	}
	accept := "/_sandbox/tenants/" + simulator.DefaultTenantID + "/accept-loss"
	assert.Equal(t, 401, b.req("POST", accept, nil).Status, "admin only")
	assert.Equal(t, 404, b.req("POST", "/_sandbox/tenants/nobody/accept-loss", nil, "X-Admin-Key: "+admin).Status)
	r := b.must(200, "POST", accept, nil, "X-Admin-Key: "+admin)
	assert.Equal(t, simulator.DefaultTenantID, r.Str("tenantId"))
	assert.Equal(t, "its file is missing", r.Str("lost"))
	assert.Empty(t, b.must(200, "GET", "/payments", nil).JSON["data"], "the tenant opens empty")
	b.pay(1000, numOK)
	r = b.must(200, "POST", accept, nil, "X-Admin-Key: "+admin)
	assert.Empty(t, r.Str("lost"), "nothing more to accept")
}
