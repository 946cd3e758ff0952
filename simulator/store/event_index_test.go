package store_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// appendEvents appends n events per payment for payments pay-0..pay-(np-1)
// of tenant tid, interleaved in time, alternating types and statuses.
func appendEvents(t testing.TB, db *store.DB, tid string, np, n int) {
	t.Helper()
	base := time.UnixMicro(1700000000000000).UTC()
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		for i := 0; i < n; i++ {
			for p := 0; p < np; p++ {
				e := &simulator.Event{ID: fmt.Sprintf("%s-e%d-%d", tid, p, i), TenantID: tid, PaymentID: fmt.Sprintf("pay-%d", p),
					Type: simulator.EventPaymentStatus, Status: simulator.DeliveryPending, CreatedAt: base.Add(time.Duration(i*np+p) * time.Millisecond),
					Body: json.RawMessage(`{"n":1}`)}
				if i%3 == 2 {
					e.Type = simulator.EventPaymentRefund
				}
				if i%2 == 1 {
					e.Status = simulator.DeliveryDelivered
				}
				if err := tx.AppendEvent(e); err != nil {
					return err
				}
			}
		}
		return nil
	}))
}

// byScan is what the listing answered before the index: every event of the
// tenant, newest first, filtered.
func byScan(t *testing.T, db *store.DB, tid string, q simulator.EventQuery) []*simulator.Event {
	t.Helper()
	var all []*simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { all, err = tx.Events(tid, simulator.EventQuery{}); return }))
	var out []*simulator.Event
	for _, e := range all {
		if e.PaymentID == q.PaymentID && (q.Type == "" || e.Type == q.Type) && (q.Status == "" || e.Status == q.Status) &&
			(q.Limit <= 0 || len(out) < q.Limit) {
			out = append(out, e)
		}
	}
	return out
}

func listed(t *testing.T, db *store.DB, tid string, q simulator.EventQuery) []*simulator.Event {
	t.Helper()
	var out []*simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { out, err = tx.Events(tid, q); return }))
	return out
}

// One payment's events among many (other payments, another tenant with the
// same payment ids) list exactly as the full scan filtered them, newest
// first, with every filter and limit, and after a prune and a reset.
func TestEventsOfOnePaymentAmongMany(t *testing.T) {
	db := openDB(t)
	appendEvents(t, db, "t1", 40, 6)
	appendEvents(t, db, "t2", 40, 6)
	appendEvents(t, db, "t10", 3, 2) // a tenant id that t1 is a prefix of
	tests := []struct {
		name string
		q    simulator.EventQuery
		want int
	}{
		{"all of one payment", simulator.EventQuery{PaymentID: "pay-7"}, 6},
		{"first payment", simulator.EventQuery{PaymentID: "pay-0"}, 6},
		{"last payment", simulator.EventQuery{PaymentID: "pay-39"}, 6},
		{"payment id a prefix of others", simulator.EventQuery{PaymentID: "pay-1"}, 6},
		{"limit", simulator.EventQuery{PaymentID: "pay-7", Limit: 2}, 2},
		{"type", simulator.EventQuery{PaymentID: "pay-7", Type: simulator.EventPaymentRefund}, 2},
		{"status", simulator.EventQuery{PaymentID: "pay-7", Status: simulator.DeliveryDelivered}, 3},
		{"status and limit", simulator.EventQuery{PaymentID: "pay-7", Status: simulator.DeliveryPending, Limit: 1}, 1},
		{"unknown payment", simulator.EventQuery{PaymentID: "pay-x"}, 0},
		{"quote in the id", simulator.EventQuery{PaymentID: `pay-"7`}, 0},
	}
	// first while the index is built (scans, or the index once ready), then
	// with the index for sure
	for _, phase := range []string{"building", "indexed"} {
		if phase == "indexed" {
			require.True(t, store.WaitEventIndex(db, "t1"))
		}
		for _, tt := range tests {
			t.Run(phase+"/"+tt.name, func(t *testing.T) {
				got := listed(t, db, "t1", tt.q)
				assert.Len(t, got, tt.want)
				assert.Equal(t, byScan(t, db, "t1", tt.q), got)
				for i := 1; i < len(got); i++ {
					assert.True(t, got[i-1].CreatedAt.After(got[i].CreatedAt), "newest first")
				}
				for _, e := range got {
					assert.Equal(t, "t1", e.TenantID)
				}
			})
		}
	}

	var n int
	require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { n, _, err = tx.PruneEvents("t1", 10, time.Time{}, ""); return }))
	assert.Equal(t, 120-10, n, "delivered events beyond the newest 10")
	got := listed(t, db, "t1", simulator.EventQuery{PaymentID: "pay-7"})
	assert.Equal(t, byScan(t, db, "t1", simulator.EventQuery{PaymentID: "pay-7"}), got)
	assert.Len(t, got, 3, "pruned events leave the index; pending ones stay")

	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t1", false) }))
	assert.Empty(t, listed(t, db, "t1", simulator.EventQuery{PaymentID: "pay-7"}))
	assert.Len(t, listed(t, db, "t2", simulator.EventQuery{PaymentID: "pay-7"}), 6, "another tenant's events stay")
}

// A file without the index whose events have their body apart at evb:
// (records without it) is indexed when it is opened.
func TestEventsOfPaymentInFileWithoutIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	old, err := buntdb.Open(path)
	require.NoError(t, err)
	base := time.UnixMicro(1700000000000000).UTC()
	require.NoError(t, old.Update(func(tx *buntdb.Tx) error {
		for i := 0; i < 5; i++ {
			pid := fmt.Sprintf("old-%d", i%2)
			e := simulator.Event{ID: fmt.Sprintf("e%d", i), TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: pid,
				CreatedAt: base.Add(time.Duration(i) * time.Second), Status: simulator.DeliveryDelivered}
			b, err := json.Marshal(e)
			if err != nil {
				return err
			}
			k := fmt.Sprintf("t:t1:evt:%020d:%s", e.CreatedAt.UnixMicro(), e.ID)
			for _, kv := range [][2]string{{k, string(b)}, {"t:t1:evi:" + e.ID, k}, {"t:t1:evb:" + e.ID, `{"old":true}`}} {
				if _, _, err := tx.Set(kv[0], kv[1], nil); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	require.NoError(t, old.Close())

	db, err := store.Open(path, store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	got := listed(t, db, "t1", simulator.EventQuery{PaymentID: "old-0"})
	require.Len(t, got, 3)
	assert.Equal(t, []string{"e4", "e2", "e0"}, []string{got[0].ID, got[1].ID, got[2].ID})
	assert.Equal(t, byScan(t, db, "t1", simulator.EventQuery{PaymentID: "old-1"}), listed(t, db, "t1", simulator.EventQuery{PaymentID: "old-1"}))
}

// BenchmarkEventsOfPayment lists one payment's 2 events in a tenant holding
// `others` events of other payments: the cost does not grow with them.
func BenchmarkEventsOfPayment(b *testing.B) {
	for _, others := range []int{100, 1000, 10000, 100000} {
		b.Run(fmt.Sprintf("others=%d", others), func(b *testing.B) {
			db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
			require.NoError(b, err)
			defer db.Close()
			appendEvents(b, db, "t1", others/2, 2)
			require.True(b, store.WaitEventIndex(db, "t1"))
			q := simulator.EventQuery{PaymentID: "pay-17", Limit: 100}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var out []*simulator.Event
				if err := db.View(func(tx simulator.Tx) (err error) { out, err = tx.Events("t1", q); return }); err != nil || len(out) != 2 {
					b.Fatal(err, len(out))
				}
			}
		})
	}
}
