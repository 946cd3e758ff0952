package httpapi

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

func entry(tenant, id string, status int, at time.Time, payments ...string) *journalRecord {
	return &journalRecord{tenantID: tenant, requestID: id, status: status, at: at, paymentIDs: payments}
}

// TestJournalRingBodies: a full ring writes each new response body into
// the buffer of the record it drops, and a read never shows a dropped
// record's bytes, whether the new body is shorter, longer, empty, or the
// caller's buffer is written again after add (a pooled capture buffer).
func TestJournalRingBodies(t *testing.T) {
	j := NewJournal(2)
	capture := make([]byte, 0, 64)
	bodies := []string{`{"id":"first, the longest body"}`, `{"id":"second"}`, `{"id":"3"}`, "", `{"id":"fifth, longer than the third"}`, `{"id":"6"}`}
	for i, b := range bodies {
		capture = append(capture[:0], b...)
		e := entry("a", fmt.Sprint("r", i), 200, time.Time{})
		e.reqBody, e.respBody = []byte(b), capture
		j.add(e)
		for k := range capture { // the capture buffer goes back to its pool and is written again
			capture[k] = 'x'
		}
		got := j.Entries("a", JournalQuery{})
		require.Len(t, got, min(i+1, 2))
		for n, e := range got {
			assert.Equal(t, bodies[i-n], e.ResponseBody, "after %d adds, entry %d", i+1, n)
			assert.Equal(t, bodies[i-n], e.RequestBody, "after %d adds, entry %d", i+1, n)
		}
		snap := j.Snapshot("a")
		assert.Equal(t, bodies[i], snap.Entries[len(snap.Entries)-1].ResponseBody)
	}
}

// TestJournalRing: bounded per tenant, newest first, the oldest dropped,
// filters, and Clear.
func TestJournalRing(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	j := NewJournal(3)
	for i := 1; i <= 5; i++ {
		j.add(entry("a", fmt.Sprint("r", i), 200+i, t0.Add(time.Duration(i)*time.Second), fmt.Sprint("p", i%2)))
	}
	j.add(entry("b", "other", 200, t0))
	ids := func(es []JournalEntry) (out []string) {
		for _, e := range es {
			out = append(out, e.RequestID)
		}
		return out
	}
	tests := []struct {
		name string
		q    JournalQuery
		want []string
	}{
		{"all, newest first, bounded to 3", JournalQuery{}, []string{"r5", "r4", "r3"}},
		{"limit", JournalQuery{Limit: 2}, []string{"r5", "r4"}},
		{"paymentId", JournalQuery{PaymentID: "p1"}, []string{"r5", "r3"}},
		{"status", JournalQuery{Status: 204}, []string{"r4"}},
		{"class", JournalQuery{Class: 2}, []string{"r5", "r4", "r3"}},
		{"since", JournalQuery{Since: t0.Add(4 * time.Second)}, []string{"r5", "r4"}},
		{"nothing matches", JournalQuery{PaymentID: "nope"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ids(j.Entries("a", tc.q)))
		})
	}
	assert.Equal(t, []string{"other"}, ids(j.Entries("b", JournalQuery{})), "tenants are apart")
	j.Clear("a")
	assert.Empty(t, j.Entries("a", JournalQuery{}))
	assert.Len(t, j.Entries("b", JournalQuery{}), 1)
	assert.Equal(t, DefaultJournalSize, NewJournal(0).Size())
}

// TestRecordWebhookHint: the dispatcher's report shows under
// webhook-non-2xx with the event ids, newest first, counted.
func TestRecordWebhookHint(t *testing.T) {
	j := NewJournal(10)
	j.RecordWebhookHint("a", "evt-1", 500, "")
	j.RecordWebhookHint("a", "evt-2", 0, "connection refused")
	j.RecordWebhookHint("b", "evt-3", 302, "")
	hs := j.Hints("a")
	require.Len(t, hs, 1)
	assert.Equal(t, HintWebhookNon2xx, hs[0].Kind)
	assert.Equal(t, 2, hs[0].Count)
	assert.Equal(t, []string{"evt-2", "evt-1"}, hs[0].LatestEventIDs)
	assert.Contains(t, hs[0].LastMessage, "could not be reached for event evt-2 (connection refused)")
	assert.NotEmpty(t, hs[0].Fix)
	assert.Contains(t, j.Hints("b")[0].LastMessage, "302 Found")
	j.Clear("a")
	assert.Empty(t, j.Hints("a"))

	// An event retried is counted each time but listed once, newest first.
	for range 5 {
		j.RecordWebhookHint("c", "evt-4", 500, "")
	}
	j.RecordWebhookHint("c", "evt-5", 500, "")
	j.RecordWebhookHint("c", "evt-4", 500, "")
	hs = j.Hints("c")
	assert.Equal(t, 7, hs[0].Count)
	assert.Equal(t, []string{"evt-4", "evt-5"}, hs[0].LatestEventIDs)
	for i := range 7 {
		j.RecordWebhookHint("d", fmt.Sprint("evt-d", i), 500, "")
	}
	assert.Equal(t, []string{"evt-d6", "evt-d5", "evt-d4", "evt-d3", "evt-d2"}, j.Hints("d")[0].LatestEventIDs, "the latest ones, at most hintLatest")
}

// TestJournalHintState: tight polling needs 5 GETs within 1s; a retry after
// a 504 is reported once, only with a new or no key.
func TestJournalHintState(t *testing.T) {
	j := NewJournal(10)
	t0 := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	var got []bool
	for i := 0; i < 6; i++ {
		got = append(got, j.notePoll("a", "p1", t0.Add(time.Duration(i)*100*time.Millisecond)))
	}
	assert.Equal(t, []bool{false, false, false, false, true, true}, got)
	assert.False(t, j.notePoll("a", "p1", t0.Add(5*time.Second)), "a slow poll is fine")
	assert.False(t, j.notePoll("a", "p2", t0), "per payment")

	retry := []struct {
		name       string
		first, now string
		want       bool
	}{
		{"same key", "k1", "k1", false},
		{"new key", "k1", "k2", true},
		{"no key now", "k1", "", true},
		{"no key ever", "", "", true},
	}
	for _, tc := range retry {
		t.Run(tc.name, func(t *testing.T) {
			j.noteTimeout("a", 1, tc.first)
			got, _ := j.retriedWithNewKey("a", 1, tc.now)
			assert.Equal(t, tc.want, got)
			again, _ := j.retriedWithNewKey("a", 1, tc.now)
			assert.False(t, again, "reported once")
		})
	}
}

// TestRedact: only the named fields change, at any depth; a body that
// cannot be parsed is withheld whole.
func TestRedact(t *testing.T) {
	tests := []struct {
		name, in string
		fields   []string
		cut      bool
		response bool
		want     string
	}{
		{"card", `{"paymentInstrument":{"number":"4111111111111111","cvv":"123","cardholderName":"J"}}`, []string{"number", "cvv"}, false, false,
			`{"paymentInstrument":{"cardholderName":"J","cvv":"[REDACTED]","number":"[REDACTED]"}}`},
		{"in arrays", `{"data":[{"apiKey":"k"}]}`, []string{"apiKey"}, false, true, `{"data":[{"apiKey":"[REDACTED]"}]}`},
		{"no fields: as is", `{"number":"4111"}`, nil, false, false, `{"number":"4111"}`},
		{"an answer without the keys: as is", `{"id":"p1"}`, []string{"clientToken"}, false, true, `{"id":"p1"}`},
		{"a key in another case", `{"NUMBER":"4111"}`, []string{"number"}, false, false, `{"NUMBER":"[REDACTED]"}`},
		{"a key spelled with escapes", `{"n\u0075mber":"4111"}`, []string{"number"}, false, false, `{"number":"[REDACTED]"}`},
		{"not JSON", `number=4111`, []string{"number"}, false, false, redactedMark + " (body not parsed)"},
		{"cut", `{"number":"4111`, []string{"number"}, true, true, redactedMark + " (body not parsed)"},
		{"empty", ``, []string{"number"}, false, false, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(redactFields([]byte(tc.in), tc.fields, tc.cut, tc.response)))
		})
	}
}

func TestNearestName(t *testing.T) {
	for in, want := range map[string]string{"orderId": "order_id", "customerId": "customer_id", "CURRENCY-CODE": "currency_code",
		"limt": "limit", "statuses": "status", "zzzzzzzz": ""} {
		assert.Equal(t, want, nearestName(in, paymentListParams), in)
	}
}

// TestRetryAfter504Hint drives the real middleware: a payment request cut
// with 504 and repeated under a new key carries retry-after-504-new-key; the
// same repeated under the same key does not.
func TestRetryAfter504Hint(t *testing.T) {
	s, _, ts := newBareServer(t, Options{RequestTimeout: 20 * time.Millisecond})
	release := make(chan struct{})
	calls := 0
	asTenant := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error { setTenant(c, &simulator.Tenant{ID: "t1"}); return next(c) }
	}
	s.e.POST("/payments", func(c echo.Context) error {
		calls++
		if calls == 1 {
			<-release // held past the timeout: a 504, whatever the scheduling
		}
		return c.JSON(http.StatusOK, map[string]string{"id": "pay1", "status": "AUTHORIZED"})
	}, asTenant, readBody, s.timeout)
	send := func(key string) int {
		req, _ := http.NewRequest("POST", ts.URL+"/payments", strings.NewReader(`{"paymentMethodToken":"tok"}`))
		if key != "" {
			req.Header.Set("X-Idempotency-Key", key)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, http.StatusGatewayTimeout, send("k1"))
	close(release)
	require.Eventually(t, func() bool { return len(s.journal.Entries("t1", JournalQuery{})) == 1 }, 5*time.Second, time.Millisecond)
	require.Equal(t, http.StatusOK, send("k2"))
	es := s.journal.Entries("t1", JournalQuery{})
	require.Len(t, es, 2)
	require.Len(t, es[0].Hints, 1)
	assert.Equal(t, HintRetryAfter504NewKey, es[0].Hints[0].Kind)
	assert.Contains(t, es[0].Hints[0].Message, "k2 instead of k1")
	assert.Equal(t, []string{"pay1"}, s.journal.by["t1"].ring[1].paymentIDs)
	assert.Empty(t, es[1].Hints, "the first request had a key")
	assert.Equal(t, 504, es[1].Status)
	hs := s.journal.Hints("t1")
	require.Len(t, hs, 1)
	assert.Equal(t, []string{es[0].RequestID}, hs[0].LatestRequestIDs)
}

// TestJournalRetain: journals of gone tenants are dropped after
// journalPruneEvery new tenant journals.
func TestJournalRetain(t *testing.T) {
	j := NewJournal(2)
	for i := 0; i < journalPruneEvery-1; i++ {
		j.add(entry(fmt.Sprint("t", i), "r", 200, time.Time{}))
	}
	assert.False(t, j.NeedsPrune())
	j.add(entry("last", "r", 200, time.Time{}))
	require.True(t, j.NeedsPrune())
	j.Retain(func(id string) bool { return id == "t1" || id == "last" })
	assert.False(t, j.NeedsPrune())
	assert.Len(t, j.Entries("t1", JournalQuery{}), 1)
	assert.Empty(t, j.Entries("t2", JournalQuery{}))
	assert.Len(t, j.by, 2)
}

// TestHintKindsDocumented: docs/journal.md's table has a row for every hint
// kind.
func TestHintKindsDocumented(t *testing.T) {
	page, err := os.ReadFile("../../docs/journal.md")
	require.NoError(t, err)
	for kind := range hintFixes {
		assert.Contains(t, string(page), "| `"+kind+"` |", "docs/journal.md has no row for %s", kind)
	}
}
