package store_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestPutPaymentWithEvent: storing a payment with an event of it in one
// call leaves the tenant's file as PutPayment and AppendEvent do, byte for
// byte (the event's copy of the payment is the payment's record); an event
// that is not of that payment alone is refused, and nothing is written.
func TestPutPaymentWithEvent(t *testing.T) {
	at := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	mk := func() (*simulator.Payment, *simulator.Event) {
		p := payment("p1", simulator.StatusAuthorized)
		p.Transactions = []simulator.Transaction{{ID: "tx1", Type: "SALE", Date: at, Amount: 100, ProcessorStatus: simulator.StatusAuthorized}}
		ev := &simulator.Event{ID: "e1", TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "p1", CreatedAt: at,
			Status: simulator.DeliveryPending, Payment: p, Version: "2.4", TraceParent: "tp"}
		return p, ev
	}
	files := func(put func(tx simulator.Tx) error) map[string]string {
		db := openDB(t)
		require.NoError(t, db.Update(put))
		raw := map[string]string{}
		require.NoError(t, db.TenantRecords("t1", func(k, v string) bool { raw[k] = v; return true }))
		return raw
	}
	apart := files(func(tx simulator.Tx) error {
		p, ev := mk()
		if err := tx.AppendEvent(ev); err != nil {
			return err
		}
		return tx.PutPayment(p)
	})
	together := files(func(tx simulator.Tx) error {
		p, ev := mk()
		return tx.PutPaymentWithEvent(p, ev)
	})
	require.NotEmpty(t, apart)
	assert.Equal(t, apart, together)

	db := openDB(t)
	for name, ev := range map[string]func(p *simulator.Payment, ev *simulator.Event){
		"another payment": func(_ *simulator.Payment, ev *simulator.Event) {
			ev.Payment = payment("p1", simulator.StatusAuthorized)
		},
		"a dispute too": func(_ *simulator.Payment, ev *simulator.Event) { ev.Dispute = &simulator.Dispute{ID: "d1"} },
	} {
		err := db.Update(func(tx simulator.Tx) error {
			p, e := mk()
			ev(p, e)
			return tx.PutPaymentWithEvent(p, e)
		})
		assert.Error(t, err, name)
	}
	assert.Nil(t, read(t, db, "t1", "p1"), "nothing written")
}
