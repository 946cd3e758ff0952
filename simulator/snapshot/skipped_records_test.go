package snapshot_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// LeaveOut takes out the unreadable records and, transitively, what refers
// to them; what refers to nothing taken out stays.
func TestLeaveOut(t *testing.T) {
	data := func() snapshot.Data {
		return snapshot.Data{
			Sessions:        []*simulator.ClientSession{{ID: "s1", CurrentAttemptID: "a1"}, {ID: "s2"}},
			Instruments:     []*simulator.Instrument{{Token: "i1", SessionID: "s1"}, {Token: "i2"}},
			Payments:        []*simulator.Payment{{ID: "p1"}, {ID: "p2", SessionID: "s2"}},
			Attempts:        []*simulator.Attempt{{ID: "a1", SessionID: "s1", PaymentID: "p1"}},
			Disputes:        []*simulator.Dispute{{ID: "d1", PaymentID: "p1"}},
			Events:          []*simulator.Event{{ID: "e1", PaymentID: "p1", DisputeID: "d1"}, {ID: "e2", PaymentID: "p2"}},
			Jobs:            []*simulator.Job{{ID: "j1", PaymentID: "p1"}, {ID: "j2", PaymentID: "p2"}},
			IdempotencyKeys: []snapshot.Idempotency{{Key: "k1", PaymentID: "p1"}, {Key: "k2", PaymentID: "p2"}},
		}
	}
	cases := []struct {
		name       string
		unreadable []simulator.UnreadableRecord
		skipped    []string // kind id, in order
	}{
		{"none", nil, nil},
		{"a payment", []simulator.UnreadableRecord{{Key: "pay:p1", Kind: simulator.RecordPayment, ID: "p1"}},
			[]string{"payment p1", "attempt a1", "dispute d1", "event e1", "job j1", "idempotencyKey k1", "session s1", "instrument i1"}},
		{"an event", []simulator.UnreadableRecord{{Key: "evt:1:e2", Kind: simulator.RecordEvent, ID: "e2"}},
			[]string{"event e2"}},
	}
	t.Run("a payment the tenant lost", func(t *testing.T) {
		d := data()
		d.Payments = d.Payments[1:] // p1 gone with a truncated file
		var got []string
		for _, s := range d.LeaveOut(nil) {
			got = append(got, s.Kind+" "+s.ID+": "+s.Reason)
		}
		assert.Equal(t, []string{
			"attempt a1: refers to payment p1, which the tenant does not have",
			"dispute d1: refers to payment p1, which the tenant does not have",
			"event e1: refers to payment p1, which the tenant does not have",
			"job j1: refers to payment p1, which the tenant does not have",
			"idempotencyKey k1: refers to payment p1, which the tenant does not have",
			"session s1: refers to attempt a1, which was left out",
			"instrument i1: refers to session s1, which was left out",
		}, got)
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := data()
			var got []string
			for _, s := range d.LeaveOut(tc.unreadable) {
				got = append(got, s.Kind+" "+s.ID)
				require.NotEmpty(t, s.Reason)
			}
			assert.Equal(t, tc.skipped, got)
			left := len(d.Sessions) + len(d.Instruments) + len(d.Payments) + len(d.Attempts) + len(d.Disputes) + len(d.Events) + len(d.Jobs) + len(d.IdempotencyKeys)
			assert.Equal(t, 14-len(tc.skipped), left, "the rest stays")
		})
	}
}

// A sealed snapshot with a skipped member opens (the checksum covers it).
func TestSkippedMemberSealsAndOpens(t *testing.T) {
	at := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	s := &snapshot.Snapshot{ExportedAt: at, Tenant: snapshot.Tenant{ID: "t_1", Now: at, ClockOffset: "0s", Keys: []snapshot.Key{{Scopes: simulator.AllScopes}}},
		Skipped: []snapshot.Skipped{{Kind: simulator.RecordPayment, ID: "p1", Key: "pay:p1", Reason: "its stored record does not decode"}}}
	b, err := s.Seal()
	require.NoError(t, err)
	got, err := snapshot.Open(b, 1<<20)
	require.NoError(t, err)
	assert.Equal(t, s.Skipped, got.Skipped)
}
