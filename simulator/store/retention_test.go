package store_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// TestPruneEventsRetention: a prune pass applies the bound exactly, by
// count and by age, as events are appended, finished, pruned, reset and
// the store reopened; a pass with nothing over the bound reads no event.
func TestPruneEventsRetention(t *testing.T) {
	base := time.UnixMicro(1700000000000000).UTC()
	path := filepath.Join(t.TempDir(), "ps.db")
	open := func(t *testing.T) *store.DB {
		db, err := store.Open(path, store.FsyncNever, store.Options{})
		require.NoError(t, err)
		return db
	}
	db := open(t)
	t.Cleanup(func() { _ = db.Close() })
	add := func(t *testing.T, from, to int, st string) {
		require.NoError(t, db.Update(func(tx simulator.Tx) error {
			for i := from; i <= to; i++ {
				e := &simulator.Event{ID: fmt.Sprintf("e%02d", i), TenantID: "t1", PaymentID: "pay-1", Type: simulator.EventPaymentStatus,
					Status: st, CreatedAt: base.Add(time.Duration(i) * time.Millisecond), Body: json.RawMessage(`{"n":1}`)}
				if err := tx.AppendEvent(e); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	steps := []struct {
		name   string
		do     func(t *testing.T)
		keep   int
		before int // ms after base; 0: no age bound
		pruned int
		idle   bool // the pass reads no event
		left   string
	}{
		{"over the count", func(t *testing.T) {
			add(t, 0, 19, simulator.DeliveryDelivered)
			add(t, 20, 24, simulator.DeliveryPending)
		},
			10, 0, 10, false, "e10-e19"},
		{"nothing over", nil, 10, 0, 0, true, "e10-e19"},
		{"appended finished", func(t *testing.T) { add(t, 25, 29, simulator.DeliveryDelivered) }, 10, 0, 5, false, "e15-e19 e25-e29"},
		{"nothing over again", nil, 10, 0, 0, true, "e15-e19 e25-e29"},
		{"a pending event delivered", func(t *testing.T) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error {
				e, err := tx.EventRecord("t1", "e20")
				require.NoError(t, err)
				e.Status = simulator.DeliveryDelivered
				return tx.PutEvent(e)
			}))
		}, 10, 0, 1, false, "e16-e20 e25-e29"},
		{"rolled back append", func(t *testing.T) {
			assert.Error(t, db.Update(func(tx simulator.Tx) error {
				require.NoError(t, tx.AppendEvent(&simulator.Event{ID: "e30", TenantID: "t1", PaymentID: "pay-1", Type: simulator.EventPaymentStatus,
					Status: simulator.DeliveryDelivered, CreatedAt: base.Add(30 * time.Millisecond), Body: json.RawMessage(`{"n":1}`)}))
				return fmt.Errorf("roll back")
			}))
		}, 10, 0, 0, true, "e16-e20 e25-e29"},
		{"reopened", func(t *testing.T) { require.NoError(t, db.Close()); db = open(t) }, 10, 0, 0, false, "e16-e20 e25-e29"},
		{"reopened, nothing over", nil, 10, 0, 0, true, "e16-e20 e25-e29"},
		{"over the age", nil, 10, 19, 3, false, "e19-e20 e25-e29"},
		{"nothing older", nil, 10, 19, 0, true, "e19-e20 e25-e29"},
		{"reset", func(t *testing.T) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t1", false) }))
			add(t, 40, 41, simulator.DeliveryDelivered)
		}, 1, 0, 1, false, "e41"},
		{"reset, nothing over", nil, 1, 0, 0, true, "e41"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.do != nil {
				st.do(t)
			}
			var before time.Time
			if st.before > 0 {
				before = base.Add(time.Duration(st.before) * time.Millisecond)
			}
			reads := db.PruneReads()
			var n int
			require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { n, _, err = tx.PruneEvents("t1", st.keep, before, ""); return }))
			assert.Equal(t, st.pruned, n, "pruned")
			if st.idle {
				assert.Zero(t, db.PruneReads()-reads, "events read by a pass with nothing to do")
			}
			var evs []*simulator.Event
			require.NoError(t, db.View(func(tx simulator.Tx) (err error) { evs, err = tx.Events("t1", simulator.EventQuery{}); return }))
			assert.Equal(t, expand(st.left), finishedIDs(evs))
		})
	}
}

// expand turns "e10-e12 e15" into [e15 e12 e11 e10] (newest first, as Events lists).
func expand(s string) []string {
	var out []string
	var from, to int
	for _, part := range strings.Fields(s) {
		if n, _ := fmt.Sscanf(part, "e%d-e%d", &from, &to); n == 2 {
			for i := from; i <= to; i++ {
				out = append(out, fmt.Sprintf("e%02d", i))
			}
			continue
		}
		out = append(out, part)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func finishedIDs(evs []*simulator.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Status != simulator.DeliveryPending {
			out = append(out, e.ID)
		}
	}
	return out
}

// BenchmarkPruneEventsIdle: a prune pass over a tenant of 900 finished
// events, none over the bound (keep 1000).
func BenchmarkPruneEventsIdle(b *testing.B) {
	db, err := store.Open(filepath.Join(b.TempDir(), "ps.db"), store.FsyncNever, store.Options{})
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })
	appendEvents(b, db, "t1", 1, 1800) // odd ones DELIVERED
	b.ReportAllocs()
	for b.Loop() {
		require.NoError(b, db.Update(func(tx simulator.Tx) error {
			n, _, err := tx.PruneEvents("t1", 1000, time.Time{}, "")
			if n != 0 {
				b.Fatalf("pruned %d", n)
			}
			return err
		}))
	}
}
