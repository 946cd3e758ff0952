package simulator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestReportCountsMerge: merging unstored counts into stored ones adds the
// counts, keeps the newer examples and messages, and stays bounded; past a
// list's bound new entries are counted under ReportOther.
func TestReportCountsMerge(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	stored := &simulator.ReportCounts{TenantID: "t"}
	stored.CountRequest("POST /payments", 200)
	stored.CountRule("r", "p1", t0)
	stored.CountHint("k", "old", "q1", "", t0)
	stored.CountDelivery("u", simulator.OutcomeExhausted, simulator.EventExample{EventID: "e1"})

	later := &simulator.ReportCounts{TenantID: "t"}
	later.CountRequest("POST /payments", 200)
	later.CountRequest("GET /payments", 400)
	for i := range simulator.ReportExamples + 2 {
		later.CountRule("r", fmt.Sprintf("p%d", i+2), t0.Add(time.Hour))
	}
	later.CountHint("k", "new", "q2", "", t0.Add(time.Hour))
	later.CountDelivery("u", simulator.OutcomeRetried, simulator.EventExample{})
	snapshot := later.Clone()

	stored.Merge(later)
	assert.Equal(t, snapshot, later, "the merged counts are left as they were")
	assert.Equal(t, []simulator.RouteCount{{Route: "POST /payments", Status: 200, Count: 2}, {Route: "GET /payments", Status: 400, Count: 1}}, stored.Requests)
	assert.EqualValues(t, 1+simulator.ReportExamples+2, stored.Rules[0].Count)
	assert.Equal(t, []string{"p4", "p5", "p6", "p7", "p8"}, stored.Rules[0].ExamplePaymentIDs, "the newest examples")
	assert.Equal(t, t0.Add(time.Hour), stored.Rules[0].LastSeen)
	h := stored.Hints[0]
	assert.EqualValues(t, 2, h.Count)
	assert.Equal(t, "new", h.LastMessage)
	assert.Equal(t, []string{"q1", "q2"}, h.ExampleRequestIDs)
	assert.Equal(t, t0, h.FirstSeen)
	assert.Equal(t, simulator.EndpointCount{URL: "u", Retried: 1, Exhausted: 1, ExhaustedEvents: []simulator.EventExample{{EventID: "e1"}}}, stored.Webhooks[0])

	bounded := &simulator.ReportCounts{}
	for i := range simulator.ReportRoutes + 10 {
		bounded.CountRequest(fmt.Sprintf("GET /x/%d", i), 404)
	}
	assert.Len(t, bounded.Requests, simulator.ReportRoutes)
	last := bounded.Requests[len(bounded.Requests)-1]
	assert.Equal(t, simulator.RouteCount{Route: simulator.ReportOther, Status: 404, Count: 11}, last)
	for i := range simulator.ReportEndpoints + 3 {
		bounded.CountDelivery(fmt.Sprintf("https://h%d", i), simulator.OutcomeDelivered, simulator.EventExample{})
	}
	assert.Len(t, bounded.Webhooks, simulator.ReportEndpoints)
	assert.EqualValues(t, 4, bounded.Webhooks[len(bounded.Webhooks)-1].Delivered)
}
