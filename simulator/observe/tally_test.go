package observe_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// recordingStore is an observe.Store in memory that counts its writes and
// fails them while fail is set.
type recordingStore struct {
	observe.Memory
	writes int
	kinds  [][]string
	fail   bool
	err    string // the failure's message ("": disk full)
}

func (s *recordingStore) SaveObserved(tid string, records ...observe.Record) error {
	if s.fail {
		if s.err != "" {
			return errors.New(s.err)
		}
		return errors.New("disk full")
	}
	s.writes++
	var kinds []string
	for _, r := range records {
		kinds = append(kinds, r.Kind)
	}
	s.kinds = append(s.kinds, kinds)
	return s.Memory.SaveObserved(tid, records...)
}

var t0 = time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)

// observers is the two observers of the product on one ledger.
func observers(st observe.Store) (*observe.Point, *observe.Report, *observe.Migration) {
	l := observe.NewLedger(st, time.Hour, nil)
	rep, mig := observe.NewReport(l), observe.NewMigration(l)
	return observe.NewPoint(observe.Registry{Observers: []observe.Observer{rep, mig}, Keepers: []observe.Keeper{l}}), rep, mig
}

func answered(tid, rid string) observe.Happening {
	return observe.Happening{Kind: observe.RequestAnswered, TenantID: tid, RequestID: rid, Route: "POST /payments", Status: 200, At: t0}
}

func hit(tid, rid string) observe.Happening {
	return observe.Happening{Kind: observe.DifferenceHit, TenantID: tid, RequestID: rid, At: t0,
		Differences: []observe.Difference{{Kind: simulator.DiffAnswerShape, Message: "m"}}}
}

// TestLedgerWritesBehind: what is counted is read at once and written
// nothing; Close writes each tenant's records of every kind in one write,
// and nothing when nothing is left; a failed write keeps the counts for
// the next; a dropped tenant's counts are never written.
func TestLedgerWritesBehind(t *testing.T) {
	st := &recordingStore{}
	p, rep, mig := observers(st)
	p.Publish(answered("a", "r1"))
	p.Publish(hit("a", "r1"))
	p.Publish(answered("b", "r2"))
	c, err := rep.Read("a")
	require.NoError(t, err)
	assert.Equal(t, []observe.RouteCount{{Route: "POST /payments", Status: 200, Count: 1}}, c.Requests)
	assert.Zero(t, st.writes, "a count writes nothing")

	require.NoError(t, p.Close())
	assert.Equal(t, 2, st.writes, "one write per tenant")
	assert.ElementsMatch(t, [][]string{{observe.ReportKind, observe.MigrationKind}, {observe.ReportKind}}, st.kinds)
	require.NoError(t, p.Close())
	assert.Equal(t, 2, st.writes, "nothing left to write")

	p.Publish(answered("a", "r3"))
	st.fail = true
	require.Error(t, p.Close())
	p.Publish(answered("a", "r4"))
	st.fail = false
	require.NoError(t, p.Close())
	c, err = rep.Read("a")
	require.NoError(t, err)
	assert.EqualValues(t, 3, c.Requests[0].Count, "the counts of the failed write were kept")

	p.Publish(hit("a", "r5"))
	release := p.Drop("a")
	release()
	require.NoError(t, p.Close())
	n, err := mig.Read("a")
	require.NoError(t, err)
	assert.EqualValues(t, 1, n.Items[0].Count, "a dropped count is not written")
}

// TestTallyImport: an import stores the snapshot's state, with what the
// tenant counted meanwhile added.
func TestTallyImport(t *testing.T) {
	st := &recordingStore{}
	p, rep, _ := observers(st)
	p.Publish(answered("a", "r1"))
	require.NoError(t, p.Close())
	require.NoError(t, rep.Import("a", &observe.ReportCounts{Requests: []observe.RouteCount{{Route: "GET /payments", Status: 200, Count: 7}}}))
	c, err := rep.Read("a")
	require.NoError(t, err)
	assert.Equal(t, "a", c.TenantID)
	assert.Equal(t, []observe.RouteCount{{Route: "GET /payments", Status: 200, Count: 7}, {Route: "POST /payments", Status: 200, Count: 1}}, c.Requests)
}

// TestReportDeliveries: the report counts what deliveries did to their
// events by endpoint: an event made without an endpoint, a failure
// followed by a retry, a delivery, an exhausted event kept as an example;
// a duplicate made by chaos and a replay are no retries.
func TestReportDeliveries(t *testing.T) {
	p, rep, _ := observers(&recordingStore{})
	ev := func(kind observe.Kind, url, before, after string, a observe.AttemptOutcome) observe.Happening {
		return observe.Happening{Kind: kind, TenantID: "a", EventID: "e1", EventType: "PAYMENT.STATUS", PaymentID: "p1",
			URL: url, Before: before, After: after, Attempt: a}
	}
	const u = "https://m.example/hooks"
	p.Publish(ev(observe.EventMade, "", "", simulator.DeliveryPending, observe.AttemptOutcome{}))
	p.Publish(ev(observe.EventMade, "", "", simulator.DeliveryExhausted, observe.AttemptOutcome{Error: simulator.ErrNoEndpoint}))
	p.Publish(ev(observe.DeliveryAttempted, u, simulator.DeliveryPending, simulator.DeliveryPending, observe.AttemptOutcome{Error: "500"}))
	p.Publish(ev(observe.DeliveryAttempted, u, simulator.DeliveryPending, simulator.DeliveryPending, observe.AttemptOutcome{Error: "500", Chaos: "duplicate"}))
	p.Publish(ev(observe.DeliveryAttempted, u, simulator.DeliveryPending, simulator.DeliveryExhausted, observe.AttemptOutcome{Error: "500"}))
	p.Publish(ev(observe.DeliveryAttempted, u, simulator.DeliveryExhausted, simulator.DeliveryDelivered, observe.AttemptOutcome{OK: true, Replay: true}))
	c, err := rep.Read("a")
	require.NoError(t, err)
	assert.Equal(t, []observe.EndpointCount{
		{URL: "", NoEndpoint: 1},
		{URL: u, Retried: 1, Exhausted: 1, Delivered: 1, ExhaustedEvents: []observe.EventExample{{EventID: "e1", EventType: "PAYMENT.STATUS", PaymentID: "p1", Error: "500"}}},
	}, c.Webhooks)
}

// TestLedgerFailureLogged: a tenant whose writes keep failing the same way
// is logged once, not at every try; a different failure is logged again,
// and the first write that succeeds says so once.
func TestLedgerFailureLogged(t *testing.T) {
	var buf bytes.Buffer
	st := &recordingStore{fail: true}
	l := observe.NewLedger(st, time.Hour, slog.New(slog.NewTextHandler(&buf, nil)))
	rep := observe.NewReport(l)
	p := observe.NewPoint(observe.Registry{Observers: []observe.Observer{rep}, Keepers: []observe.Keeper{l}})
	lines := func(s string) int { return strings.Count(buf.String(), s) }

	p.Publish(answered("a", "r1"))
	for range 5 {
		require.Error(t, p.Close())
	}
	assert.Equal(t, 1, lines("counts not stored"), "the same failure is logged once: %s", buf.String())
	assert.Contains(t, buf.String(), "tenant=a")

	st.err = "TenantUnavailable: its file is missing"
	require.Error(t, p.Close())
	require.Error(t, p.Close())
	assert.Equal(t, 2, lines("counts not stored"), "a different failure is logged again")

	st.fail = false
	require.NoError(t, p.Close())
	assert.Equal(t, 1, lines("counts stored again"))
	c, err := rep.Read("a")
	require.NoError(t, err)
	assert.EqualValues(t, 1, c.Requests[0].Count, "the count was kept through the failures")
	p.Publish(answered("a", "r2"))
	require.NoError(t, p.Close())
	assert.Equal(t, 1, lines("counts stored again"), "a write after the recovery logs nothing")
}
