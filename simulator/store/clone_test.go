package store_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// cloneID is an id a checkout's values hold, with its kind.
type cloneID struct {
	ID   string
	Kind simulator.IDKind
}

// recordedIDs are random ids, each remembered with its kind as the values
// hold it (cloneForm).
type recordedIDs struct {
	mu  sync.Mutex
	ids []cloneID
}

func (r *recordedIDs) NewID(kind simulator.IDKind) string {
	id := simulator.RandomIDs{}.NewID(kind)
	r.mu.Lock()
	r.ids = append(r.ids, cloneID{ID: cloneForm(id), Kind: kind})
	r.mu.Unlock()
	return id
}

// jsonCopies is a NewCopy (store.CloneOptions) of the test's own: each
// clone's copy of a value is the value through JSON with fresh ids of
// newID in place of ids (bench seed has a faster one).
func jsonCopies(t *testing.T, ids []cloneID, newID func(simulator.IDKind) string) func() func(any) any {
	return func() func(any) any {
		var pairs []string
		for _, id := range ids {
			fresh := newID(id.Kind)
			pairs = append(pairs, id.ID, fresh)
			if tag := simulator.SessionTag(id.ID); tag != "" { // a session's id as its client token holds it
				pairs = append(pairs, tag, simulator.SessionTag(fresh))
			}
		}
		r := strings.NewReplacer(pairs...)
		return func(v any) any {
			if s, ok := v.(string); ok {
				return r.Replace(s)
			}
			b, err := json.Marshal(v)
			require.NoError(t, err)
			out := reflect.New(reflect.TypeOf(v).Elem())
			dec := json.NewDecoder(strings.NewReader(r.Replace(string(b))))
			dec.UseNumber()
			require.NoError(t, dec.Decode(out.Interface()))
			return out.Interface()
		}
	}
}

// cloneForm is the part of an id its records hold whole: a client token is
// stored with its tenant's tag after its cst_ prefix (simulator.WithTenant).
func cloneForm(id string) string { return strings.TrimPrefix(id, "cst_") }

// CloneCheckouts stores copies of a tenant's one checkout, each with fresh
// ids, that the service reads like the original: payments listed, sessions
// and tokens answering; within the retention bound only the newest
// checkouts keep their events, the original's deleted when it is not among
// them.
func TestCloneCheckouts(t *testing.T) {
	tests := []struct {
		name       string
		clones     int
		batch      int
		keepEvents func(perCheckout int) int
		withEvents int // checkouts that keep their events
	}{
		{"every event kept", 4, 2, func(int) int { return 0 }, 5},
		{"two newest keep theirs", 4, 3, func(n int) int { return 2 * n }, 2},
		{"bound above the checkouts", 2, 10, func(n int) int { return 100 * n }, 3},
		{"no clone", 0, 1, func(int) int { return 0 }, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
			require.NoError(t, err)
			t.Cleanup(func() { _ = db.Close() })
			cat, err := cards.Parse(fixtures.Cards)
			require.NoError(t, err)
			ids := &recordedIDs{}
			svc := service.NewService(db, clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)),
				ids, cat, processors.NewFake(nil, nil), nil, service.Config{})
			tn, err := svc.EnsureTenant(service.TenantSpec{ID: "seed", SigningSecret: "s",
				APIKeys: []simulator.APIKey{{Key: "key", Scopes: simulator.AllScopes}}})
			require.NoError(t, err)
			ids.ids = nil // the checkout's ids only
			amount := int64(1000)
			cs, err := svc.CreateSession(tn, simulator.SessionData{OrderID: "seed", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalAuto)
			require.NoError(t, err)
			tk, err := svc.Tokenize(cs.ClientToken, service.CardInput{Number: "4111111111111111", CVV: "123",
				ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Seed"})
			require.NoError(t, err)
			orig, err := svc.CreatePayment(context.Background(), tn, service.PaymentRequest{Token: tk.Instrument.Token})
			require.NoError(t, err)
			evs, err := svc.Events(tn, simulator.EventQuery{PaymentID: orig.ID})
			require.NoError(t, err)
			require.NotEmpty(t, evs)

			fresh := &recordedIDs{}
			newID := func(k simulator.IDKind) string { return cloneForm(fresh.NewID(k)) }
			size, kept, err := db.CloneCheckouts(tn.ID, store.CloneOptions{NewCopy: jsonCopies(t, ids.ids, newID),
				Clones: tc.clones, Batch: tc.batch, KeepEvents: tc.keepEvents(len(evs))})
			require.NoError(t, err)
			assert.Equal(t, len(evs), size.Events, "the checkout's events are measured")
			assert.Positive(t, size.Keys)
			assert.Less(t, size.EventBytes, size.Bytes)
			assert.Equal(t, tc.withEvents*len(evs), kept)

			page, err := svc.ListPayments(tn, simulator.PaymentQuery{Limit: 100})
			require.NoError(t, err)
			require.Len(t, page.Payments, tc.clones+1)
			seen := map[string]bool{}
			events := 0
			for _, p := range page.Payments {
				assert.False(t, seen[p.ID], "each clone has its own id")
				seen[p.ID] = true
				got, err := svc.Payment(tn, p.ID)
				require.NoError(t, err)
				assert.Equal(t, orig.Status, got.Status)
				assert.Equal(t, orig.Amount, got.Amount)
				evs, err := svc.Events(tn, simulator.EventQuery{PaymentID: p.ID})
				require.NoError(t, err)
				events += len(evs)
			}
			assert.Equal(t, kept, events, "the events stored are those reported kept")
			_, _, err = svc.ClientSession(cs.ClientToken)
			require.NoError(t, err, "the original's client token answers")
			var sessions []*simulator.ClientSession
			require.NoError(t, db.View(func(tx simulator.Tx) (err error) { sessions, err = tx.Sessions(tn.ID); return }))
			require.Len(t, sessions, tc.clones+1)
			for _, s := range sessions {
				sid, ok := simulator.SessionOfToken(s.ClientToken)
				assert.True(t, ok && sid == s.ID, "a clone's client token names its session")
				got, _, err := svc.ClientSession(s.ClientToken)
				if assert.NoError(t, err, "a clone's client token answers") {
					assert.Equal(t, s.ID, got.ID)
				}
			}
			require.NoError(t, db.TenantRecords(tn.ID, func(k, _ string) bool {
				assert.NotContains(t, k, ":ctok:", "no token entry for a token that names its session")
				return true
			}))
		})
	}
}
