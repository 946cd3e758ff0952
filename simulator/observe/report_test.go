package observe

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportCountsMerge: merging unstored counts into stored ones adds the
// counts, keeps the newer examples and messages, and stays bounded; past a
// list's bound new entries are counted under ReportOther.
func TestReportCountsMerge(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	stored := &reportCounts{TenantID: "t"}
	stored.countRequest("POST /payments", 200)
	stored.countRule("r", "p1", t0)
	stored.countHint("k", "old", "q1", "", t0)
	stored.countDelivery("u", OutcomeExhausted, EventExample{EventID: "e1"})

	later := &reportCounts{TenantID: "t"}
	later.countRequest("POST /payments", 200)
	later.countRequest("GET /payments", 400)
	for i := range ReportExamples + 2 {
		later.countRule("r", fmt.Sprintf("p%d", i+2), t0.Add(time.Hour))
	}
	later.countHint("k", "new", "q2", "", t0.Add(time.Hour))
	later.countDelivery("u", OutcomeRetried, EventExample{})
	snapshot := deepCopy(t, later)

	stored.merge((*ReportCounts)(later))
	assert.Equal(t, snapshot, later, "the merged counts are left as they were")
	assert.Equal(t, []RouteCount{{Route: "POST /payments", Status: 200, Count: 2}, {Route: "GET /payments", Status: 400, Count: 1}}, stored.Requests)
	assert.EqualValues(t, 1+ReportExamples+2, stored.Rules[0].Count)
	assert.Equal(t, []string{"p4", "p5", "p6", "p7", "p8"}, stored.Rules[0].ExamplePaymentIDs, "the newest examples")
	assert.Equal(t, t0.Add(time.Hour), stored.Rules[0].LastSeen)
	h := stored.Hints[0]
	assert.EqualValues(t, 2, h.Count)
	assert.Equal(t, "new", h.LastMessage)
	assert.Equal(t, []string{"q1", "q2"}, h.ExampleRequestIDs)
	assert.Equal(t, t0, h.FirstSeen)
	assert.Equal(t, EndpointCount{URL: "u", Retried: 1, Exhausted: 1, ExhaustedEvents: []EventExample{{EventID: "e1"}}}, stored.Webhooks[0])

	bounded := &reportCounts{}
	for i := range ReportRoutes + 10 {
		bounded.countRequest(fmt.Sprintf("GET /x/%d", i), 404)
	}
	assert.Len(t, bounded.Requests, ReportRoutes)
	last := bounded.Requests[len(bounded.Requests)-1]
	assert.Equal(t, RouteCount{Route: ReportOther, Status: 404, Count: 11}, last)
	for i := range ReportEndpoints + 3 {
		bounded.countDelivery(fmt.Sprintf("https://h%d", i), OutcomeDelivered, EventExample{})
	}
	assert.Len(t, bounded.Webhooks, ReportEndpoints)
	assert.EqualValues(t, 4, bounded.Webhooks[len(bounded.Webhooks)-1].Delivered)
}

// deepCopy is a copy of v sharing nothing with it.
func deepCopy[T any](t *testing.T, v *T) *T {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var c T
	require.NoError(t, json.Unmarshal(b, &c))
	return &c
}
