package store_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// An event whose id carries its creation time (simulator.NewEventID) is
// stored under one key, with no evi entry; any other id (random, a test's
// fixed id, a version 7 id of another time, as a snapshot may bring) keeps
// its evi entry. Either reads back by id, is updated, listed in (created,
// id) order with several events in one millisecond and in one
// microsecond, and pruned without leaving an entry behind.
func TestEventIDsCarryTheirKey(t *testing.T) {
	base := time.UnixMilli(1764400000123).UTC()
	us := func(n int) time.Time { return base.Add(time.Duration(n) * time.Microsecond) }
	tests := []struct {
		name    string
		id      string
		created time.Time
		evi     bool
	}{
		{"timed", simulator.NewEventID(simulator.RandomIDs{}, us(0)), us(0), false},
		{"timed, same microsecond", simulator.NewEventID(simulator.RandomIDs{}, us(0)), us(0), false},
		{"timed, next microsecond", simulator.NewEventID(simulator.RandomIDs{}, us(1)), us(1), false},
		{"timed, last microsecond of the millisecond", simulator.NewEventID(simulator.RandomIDs{}, us(999)), us(999), false},
		{"timed, nanoseconds below the microsecond", simulator.NewEventID(simulator.RandomIDs{}, us(500).Add(999)), us(500).Add(999), false},
		{"random", simulator.RandomIDs{}.NewID(simulator.IDUUID), us(1), true},
		{"fixed", "00000000-0000-4000-8000-000000000005", us(0), true},
		{"not a uuid", "e-fixed", us(2), true},
		{"version 7 of another time", simulator.NewEventID(simulator.RandomIDs{}, us(3)), us(1), true},
	}
	db := openDB(t)
	body := func(id string) json.RawMessage {
		return json.RawMessage(`{"eventType":"PAYMENT.STATUS","id":"` + id + `"}`)
	}
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		for _, tc := range tests {
			e := &simulator.Event{ID: tc.id, TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "p1",
				CreatedAt: tc.created, Status: simulator.DeliveryPending, Body: body(tc.id)}
			if err := tx.AppendEvent(e); err != nil {
				return err
			}
		}
		return nil
	}))
	raw := map[string]string{}
	require.NoError(t, db.TenantRecords("t1", func(k, v string) bool { raw[k] = v; return true }))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := fmt.Sprintf("evt:%020d:%s", tc.created.UnixMicro(), tc.id)
			assert.Contains(t, raw, k)
			eviV, evi := raw["evi:"+tc.id]
			assert.Equal(t, tc.evi, evi, "an evi entry")
			if evi {
				assert.Equal(t, fmt.Sprintf("%020d", tc.created.UnixMicro()), eviV)
			}
			var e, rec *simulator.Event
			require.NoError(t, db.View(func(tx simulator.Tx) (err error) {
				if e, err = tx.Event("t1", tc.id); err != nil {
					return err
				}
				rec, err = tx.EventRecord("t1", tc.id)
				return err
			}))
			require.NotNil(t, e)
			require.NotNil(t, rec)
			assert.Equal(t, tc.id, e.ID)
			assert.Equal(t, string(body(tc.id)), string(e.Body), "the body byte for byte")
			assert.Equal(t, tc.created.UnixMicro(), rec.CreatedAt.UnixMicro())

			e.Status = simulator.DeliveryDelivered
			e.Attempts = []simulator.DeliveryAttempt{{At: us(2000), StatusCode: 200}}
			require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutEvent(e) }))
			require.NoError(t, db.View(func(tx simulator.Tx) (err error) { e, err = tx.Event("t1", tc.id); return }))
			assert.Equal(t, simulator.DeliveryDelivered, e.Status)
			assert.Equal(t, string(body(tc.id)), string(e.Body))
		})
	}
	var none *simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) {
		none, err = tx.Event("t1", simulator.NewEventID(simulator.RandomIDs{}, us(0)))
		return err
	}))
	assert.Nil(t, none, "an id no event has")

	want := slices.Clone(tests)
	slices.SortFunc(want, func(a, b struct {
		name    string
		id      string
		created time.Time
		evi     bool
	}) int {
		if c := b.created.Truncate(time.Microsecond).Compare(a.created.Truncate(time.Microsecond)); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	var wantIDs []string
	for _, tc := range want {
		wantIDs = append(wantIDs, tc.id)
	}
	for _, q := range []simulator.EventQuery{{}, {PaymentID: "p1"}} {
		var list []*simulator.Event
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { list, err = tx.Events("t1", q); return }))
		var got []string
		for _, e := range list {
			got = append(got, e.ID)
		}
		assert.Equal(t, wantIDs, got, "newest first, in (created, id) order: %+v", q)
	}

	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		_, _, err := tx.PruneEvents("t1", 0, us(5000), "")
		return err
	}))
	require.NoError(t, db.TenantRecords("t1", func(k, v string) bool {
		assert.NotContains(t, k, ":evt:")
		assert.NotContains(t, k, ":evi:", "pruned with its event")
		return true
	}))
}
