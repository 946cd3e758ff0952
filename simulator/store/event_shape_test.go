package store_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// An event record of the previous shape (tenantId, "body":null, zero status
// code and latency written out, the evi entry holding the whole key) reads,
// lists, updates and prunes exactly like one written now, which is smaller.
func TestEventRecordShapes(t *testing.T) {
	created := time.UnixMicro(1700000000000001).UTC()
	body := `{"eventType":"PAYMENT.STATUS","payment":{"id":"p1"}}`
	mk := func(id string) *simulator.Event {
		return &simulator.Event{ID: id, TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "p1", CreatedAt: created,
			Status: simulator.DeliveryExhausted, Attempts: []simulator.DeliveryAttempt{{At: created, Error: simulator.ErrNoEndpoint}}}
	}
	db := openDB(t)
	// an older file's bytes: json of the domain event without its body, a newline, the body
	old := mk("e-old")
	rec, err := json.Marshal(old)
	require.NoError(t, err)
	require.Contains(t, string(rec), `"tenantId":"t1"`)
	require.Contains(t, string(rec), `"body":null`)
	require.Contains(t, string(rec), `"statusCode":0,"latencyMs":0`)
	oldKey := fmt.Sprintf("t:t1:evt:%020d:e-old", created.UnixMicro())
	require.NoError(t, db.PutRaw("t1", [][2]string{{oldKey, string(rec) + "\n" + body}, {"t:t1:evi:e-old", oldKey}}))
	require.NoError(t, db.Migrate())
	now := mk("e-new")
	now.Body = json.RawMessage(body)
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.AppendEvent(now) }))

	raw := map[string]string{}
	require.NoError(t, db.TenantRecords("t1", func(k, v string) bool { raw[k] = v; return true }))
	oldKey = strings.TrimPrefix(oldKey, "t:t1:") // as the conversion keeps it
	newKey := strings.Replace(oldKey, "e-old", "e-new", 1)
	for _, gone := range []string{"tenantId", `"body"`, "statusCode", "latencyMs"} {
		assert.NotContains(t, store.EventJSON(raw[newKey]), gone)
		assert.NotContains(t, store.EventJSON(raw[oldKey]), gone, "migrated")
	}
	assert.Less(t, len(raw[newKey]), len(rec)+1+len(body))
	assert.Equal(t, fmt.Sprintf("%020d", created.UnixMicro()), raw["evi:e-new"], "the id index holds the stamp only")

	read := func(id string) *simulator.Event {
		var e *simulator.Event
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { e, err = tx.Event("t1", id); return }))
		require.NotNil(t, e, id)
		return e
	}
	same := func(a, b *simulator.Event) {
		t.Helper()
		b2 := *b
		b2.ID = a.ID
		assert.Equal(t, a, &b2)
	}
	same(read("e-old"), read("e-new"))
	assert.Equal(t, body, string(read("e-old").Body))
	var list, ofPay []*simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) {
		if list, err = tx.Events("t1", simulator.EventQuery{}); err != nil {
			return err
		}
		ofPay, err = tx.Events("t1", simulator.EventQuery{PaymentID: "p1"})
		return err
	}))
	require.Len(t, list, 2)
	same(list[1], list[0])
	assert.Equal(t, "null", string(list[0].Body), "a listed event carries no body")
	assert.Equal(t, list, ofPay)

	for _, id := range []string{"e-old", "e-new"} { // an attempt rewrites either, body kept
		e := read(id)
		e.Status = simulator.DeliveryDelivered
		e.Attempts = append(e.Attempts, simulator.DeliveryAttempt{At: created, StatusCode: 200, LatencyMs: 3, SignedAt: "1"})
		require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutEvent(e) }))
	}
	same(read("e-old"), read("e-new"))
	assert.Equal(t, body, string(read("e-new").Body))
	assert.Equal(t, 200, read("e-old").Attempts[1].StatusCode)

	var n int
	require.NoError(t, db.Update(func(tx simulator.Tx) (err error) {
		n, _, err = tx.PruneEvents("t1", 0, created.Add(time.Second), "")
		return
	}))
	assert.Equal(t, 2, n)
	left := 0
	require.NoError(t, db.TenantRecords("t1", func(string, string) bool { left++; return true }))
	assert.Zero(t, left)
}

// An event stores what its body is rendered from, as it was at AppendEvent:
// the payment and the dispute read back equal (a later change of the
// caller's records is not seen), an attempt's rewrite keeps them, and a
// listing leaves them out.
func TestEventInputs(t *testing.T) {
	created := time.UnixMicro(1700000000000001).UTC()
	db := openDB(t)
	p := payment("p1", simulator.StatusAuthorized)
	p.Date, p.DateUpdated = created, created
	p.CurrencyCode, p.OrderID = "EUR", "o-1"
	p.Metadata = map[string]any{"n": json.Number("12345678901234567890"), "s": "<&>"}
	d := &simulator.Dispute{ID: "d1", TenantID: "t1", PaymentID: "p1", Reason: "FRAUDULENT", Amount: 70, CurrencyCode: "EUR",
		Status: "OPEN", Type: "DISPUTE", OpenedAt: created, UpdatedAt: created,
		Then: []simulator.DisputeStep{{Status: "WON"}}}
	evs := []*simulator.Event{
		{ID: "e1", TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "p1", CreatedAt: created, Status: simulator.DeliveryPending, Payment: p},
		{ID: "e2", TenantID: "t1", Type: simulator.EventDisputeOpened, PaymentID: "p1", DisputeID: "d1", CreatedAt: created.Add(time.Microsecond),
			Status: simulator.DeliveryPending, Payment: p, Dispute: d},
	}
	want := new(simulator.Payment)
	*want = *p // only p.Status changes below
	wantD := *d
	wantD.Then = nil // scripted steps are no part of a body
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		for _, ev := range evs {
			if err := tx.AppendEvent(ev); err != nil {
				return err
			}
		}
		p.Status, d.Status = simulator.StatusSettled, "WON" // after the events were made
		return nil
	}))
	read := func(id string) *simulator.Event {
		var e *simulator.Event
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { e, err = tx.Event("t1", id); return }))
		require.NotNil(t, e, id)
		return e
	}
	for _, id := range []string{"e1", "e2"} {
		e := read(id)
		assert.Equal(t, want, e.Payment, id)
		assert.Nil(t, e.Body, "%s: no rendered body is stored", id)
		var rec *simulator.Event
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { rec, err = tx.EventRecord("t1", id); return }))
		assert.Nil(t, rec.Payment, "%s: the record alone", id)
		assert.Nil(t, rec.Dispute, "%s: the record alone", id)
		rec.Status = simulator.DeliveryDelivered
		rec.Attempts = append(rec.Attempts, simulator.DeliveryAttempt{At: created, StatusCode: 200, SignedAt: "1"})
		require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutEvent(rec) }))
		e = read(id)
		assert.Equal(t, want, e.Payment, "%s: an attempt keeps the inputs", id)
		assert.Equal(t, simulator.DeliveryDelivered, e.Status, id)
	}
	assert.Nil(t, read("e1").Dispute)
	assert.Equal(t, &wantD, read("e2").Dispute)

	var list []*simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { list, err = tx.Events("t1", simulator.EventQuery{}); return }))
	require.Len(t, list, 2)
	for _, e := range list {
		assert.Nil(t, e.Payment)
		assert.Nil(t, e.Dispute)
	}
}
