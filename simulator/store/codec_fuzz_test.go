package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// FuzzRecordRoundTrip: a payment (with the free-form metadata whose numbers
// must keep their text), its event and a session read back exactly as they
// were written, whatever their strings hold.
func FuzzRecordRoundTrip(f *testing.F) {
	f.Add("order-1", "cust-1", "k", "v", "12345678901234567890", int64(1700000000123456789), int64(1000), true)
	f.Add("a<b>&\"\\", "é\x00\xff", "", "\u2028", "1.50", int64(0), int64(-5), false)
	f.Fuzz(func(t *testing.T, order, cust, key, val, num string, nanos, amount int64, first6 bool) {
		at := time.Unix(0, nanos).UTC()
		if y := at.Year(); y < 1 || y > 9999 {
			t.Skip()
		}
		p, ev, cs := typicalRecords()
		p.TenantID, cs.TenantID = "t1", "t1"
		p.OrderID, p.CustomerID, p.Amount, p.Date, p.DateUpdated = order, cust, amount, at, at
		p.Metadata = map[string]any{key: val, "n": json.Number(num), "nested": map[string]any{"l": []any{json.Number(num), val, true, nil}}}
		p.PaymentMethod.Data = (&simulator.Instrument{Card: p.Card, ExpiryMonth: val, ExpiryYear: order, CardholderName: cust}).CardData(first6)
		b, err := encodePayment(p)
		require.NoError(t, err)
		got, err := decodePayment(string(b), "t1")
		require.NoError(t, err)
		require.Equal(t, p, got)

		er := evRecordOf(ev)
		e := er.event("t1")
		e.Payment, e.Body = p, nil
		e.Attempts = append(e.Attempts, simulator.DeliveryAttempt{At: at, Error: val, Headers: map[string]string{key: val}})
		st, err := eventInputs(e, nil)
		require.NoError(t, err)
		v, err := eventValue(&st)
		require.NoError(t, err)
		require.Equal(t, e.PaymentID, eventPaymentID(v))
		back, err := decodeEventStore(v)
		require.NoError(t, err)
		gotE := back.R.event("t1")
		var pr payRecord
		_, err = pr.UnmarshalMsg(back.P)
		require.NoError(t, err)
		gotE.Payment, err = pr.payment("t1")
		require.NoError(t, err)
		gotE.Body = nil
		require.Equal(t, e, gotE)

		cs.Data.OrderID, cs.Data.Metadata = order, p.Metadata
		cs.CreatedAt = at
		b, err = marshal(sessionRecordOf(cs))
		require.NoError(t, err)
		gotCS, err := decodeSession(string(b), "t1")
		require.NoError(t, err)
		require.Equal(t, cs, gotCS)
	})
}
