package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// PruneEvents deletes at most PruneBatch events per call (one write
// transaction), past the newest keep finished events or, by age, the oldest
// first; pending events are walked over and never deleted.
func TestPruneEventsBatches(t *testing.T) {
	base := time.UnixMicro(1700000000000000).UTC() // appendEvents' times: 1 ms apart
	tests := []struct {
		name   string
		keep   int
		before time.Time
		want   []int // deleted per call until 0
		left   int   // delivered events left
	}{
		{"count", 10, time.Time{}, []int{simulator.PruneBatch, 400 - 10 - simulator.PruneBatch, 0}, 10},
		{"age", 0, base.Add(600 * time.Millisecond), []int{simulator.PruneBatch, 300 - simulator.PruneBatch, 0}, 100},
		{"age then count", 50, base.Add(200 * time.Millisecond), []int{simulator.PruneBatch, 400 - 50 - simulator.PruneBatch, 0}, 50},
		{"within the bound", 400, time.Time{}, []int{0}, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			appendEvents(t, db, "t1", 1, 800) // even: PENDING, odd: DELIVERED
			var got []int
			for range tc.want {
				var n int
				require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { n, err = tx.PruneEvents("t1", tc.keep, tc.before); return }))
				got = append(got, n)
			}
			assert.Equal(t, tc.want, got)
			var evs []*simulator.Event
			require.NoError(t, db.View(func(tx simulator.Tx) (err error) { evs, err = tx.Events("t1", simulator.EventQuery{}); return }))
			delivered, pending := 0, 0
			for _, e := range evs {
				if e.Status == simulator.DeliveryPending {
					pending++
					continue
				}
				delivered++
				assert.False(t, !tc.before.IsZero() && e.CreatedAt.Before(tc.before), "%s is older than the cut", e.ID)
			}
			assert.Equal(t, 400, pending, "pending events are never pruned")
			assert.Equal(t, tc.left, delivered)
			if tc.keep > 0 && tc.left == tc.keep {
				assert.Equal(t, "t1-e0-799", evs[0].ID, "the newest are kept")
			}
		})
	}
}

// A record whose top-level status comes after an object (the shape with the
// body inline) is decoded to read its status instead of being misread.
func TestPruneEventsStatusAfterObject(t *testing.T) {
	db := openDB(t)
	rec := func(id, status string, us int) [2]string {
		k := fmt.Sprintf("t:t1:evt:%020d:%s", 1700000000000000+us, id)
		return [2]string{k, fmt.Sprintf(`{"id":%q,"tenantId":"t1","eventType":"PAYMENT.STATUS","paymentId":"p1","createdAt":"2023-11-14T22:13:20Z","body":{"status":"PENDING"},"status":%q}`, id, status)}
	}
	require.NoError(t, db.PutRaw([][2]string{rec("a", "DELIVERED", 1), rec("b", "PENDING", 2), rec("c", "EXHAUSTED", 3)}))
	require.NoError(t, db.Migrate())
	var n int
	require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { n, err = tx.PruneEvents("t1", 1, time.Time{}); return }))
	assert.Equal(t, 1, n, "a goes; c is the one kept, b is pending")
	var evs []*simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { evs, err = tx.Events("t1", simulator.EventQuery{}); return }))
	require.Len(t, evs, 2)
	assert.Equal(t, []string{"c", "b"}, []string{evs[0].ID, evs[1].ID})
}
