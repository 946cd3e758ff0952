package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestSnapshotReads: the lists a snapshot reads hold the tenant's records
// only (a tenant whose id is a prefix of another's included), and a held
// event is PENDING but out of the delivery queue until it is delivered.
func TestSnapshotReads(t *testing.T) {
	db := openDB(t)
	at := time.Unix(1700000000, 0).UTC()
	for _, tid := range []string{"t1", "t10"} { // a write transaction touches one tenant
		require.NoError(t, db.Update(func(tx simulator.Tx) error {
			p := payment("p-"+tid, simulator.StatusAuthorized)
			p.TenantID = tid
			return errors.Join(
				tx.PutSession(&simulator.ClientSession{ID: "cs-" + tid, TenantID: tid, ClientToken: "cst_" + tid, CreatedAt: at}),
				tx.PutInstrument(&simulator.Instrument{Token: "tok-" + tid, TenantID: tid, TokenType: simulator.TokenMultiUse, CustomerID: "c:1", CreatedAt: at}),
				tx.PutPayment(p),
				tx.ClaimIdempotency(tid, "key:/1 "+tid, "p-"+tid))
		}))
	}
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		ss, err := tx.Sessions("t1")
		require.NoError(t, err)
		require.Len(t, ss, 1)
		assert.Equal(t, "cst_t1", ss[0].ClientToken)
		ins, err := tx.Instruments("t1")
		require.NoError(t, err)
		require.Len(t, ins, 1)
		assert.Equal(t, "tok-t1", ins[0].Token)
		keys, err := tx.IdempotencyKeys("t1")
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"key:/1 t1": "p-t1"}, keys)
		return nil
	}))

	ev := &simulator.Event{ID: "e1", TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "p-t1", CreatedAt: at,
		Status: simulator.DeliveryPending, Body: []byte(`{"signedAt":""}`)}
	pending := func() int {
		var n int
		require.NoError(t, db.View(func(tx simulator.Tx) error { refs, err := tx.PendingEvents("t1"); n = len(refs); return err }))
		return n
	}
	held := func() bool {
		var h bool
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) {
			e, err := tx.EventRecord("t1", "e1")
			require.NoError(t, err)
			h, err = tx.EventHeld(e)
			return err
		}))
		return h
	}
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.AppendEvent(ev) }))
	assert.Equal(t, 1, pending())
	assert.False(t, held())
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.HoldEvent(ev) }))
	assert.Equal(t, 0, pending(), "a held event is out of the queue")
	assert.True(t, held())
	ev.Status = simulator.DeliveryDelivered
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutEvent(ev) }))
	assert.False(t, held(), "only a PENDING event is held")
}
