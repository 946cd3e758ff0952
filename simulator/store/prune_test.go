package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// PruneEvents deletes at most PruneBatch events per call (one write
// transaction), past the newest keep finished events or, by age, the oldest
// first; pending events are walked over and never deleted. A call resumed
// from the boundary the last one answered deletes the same events as a
// call that walks the kept ones again.
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
		for _, resume := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/resume=%v", tc.name, resume), func(t *testing.T) {
				pruneEventsBatches(t, tc.keep, tc.before, tc.want, tc.left, resume)
			})
		}
	}
}

// pruneEventsBatches appends 800 events (even: PENDING, odd: DELIVERED),
// calls PruneEvents once per entry of want (resuming from the boundary each
// call answers, or not), and checks what each deleted and what is left.
func pruneEventsBatches(t *testing.T, keep int, before time.Time, want []int, left int, resume bool) {
	db := openDB(t)
	appendEvents(t, db, "t1", 1, 800)
	var got []int
	var from simulator.PruneFrom
	for range want {
		var n int
		var next simulator.PruneFrom
		require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { n, next, err = tx.PruneEvents("t1", keep, before, from); return }))
		if resume {
			from = next
		}
		got = append(got, n)
	}
	assert.Equal(t, want, got)
	var evs []*simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { evs, err = tx.Events("t1", simulator.EventQuery{}); return }))
	delivered, pending := 0, 0
	for _, e := range evs {
		if e.Status == simulator.DeliveryPending {
			pending++
			continue
		}
		delivered++
		assert.False(t, !before.IsZero() && e.CreatedAt.Before(before), "%s is older than the cut", e.ID)
	}
	assert.Equal(t, 400, pending, "pending events are never pruned")
	assert.Equal(t, left, delivered)
	if keep > 0 && left == keep {
		assert.Equal(t, "t1-e0-799", evs[0].ID, "the newest are kept")
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
	require.NoError(t, db.PutRaw("t1", [][2]string{rec("a", "DELIVERED", 1), rec("b", "PENDING", 2), rec("c", "EXHAUSTED", 3)}))
	require.NoError(t, db.Migrate())
	var n int
	require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { n, _, err = tx.PruneEvents("t1", 1, time.Time{}, ""); return }))
	assert.Equal(t, 1, n, "a goes; c is the one kept, b is pending")
	var evs []*simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { evs, err = tx.Events("t1", simulator.EventQuery{}); return }))
	require.Len(t, evs, 2)
	assert.Equal(t, []string{"c", "b"}, []string{evs[0].ID, evs[1].ID})
}

// BenchmarkPruneEventsBacklog: one pruning pass over a tenant with 1,000
// events kept and eight batches beyond them (every second event finished),
// each batch walking the kept events again or resuming below them.
func BenchmarkPruneEventsBacklog(b *testing.B) {
	const keep = 1000
	for _, resume := range []bool{false, true} {
		b.Run(fmt.Sprintf("resume=%v", resume), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
				require.NoError(b, err)
				appendEvents(b, db, "t1", 1, 2*(keep+8*simulator.PruneBatch))
				b.StartTimer()
				var from simulator.PruneFrom
				for {
					var n int
					var next simulator.PruneFrom
					require.NoError(b, db.Update(func(tx simulator.Tx) (err error) {
						n, next, err = tx.PruneEvents("t1", keep, time.Time{}, from)
						return
					}))
					if resume {
						from = next
					}
					if n < simulator.PruneBatch {
						break
					}
				}
				b.StopTimer()
				_ = db.Close()
				b.StartTimer()
			}
		})
	}
}
