package store_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

func putPayment(t *testing.T, db *store.DB, p *simulator.Payment) {
	t.Helper()
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
}

func withAmount(id string, amount int64) *simulator.Payment {
	p := payment(id, simulator.StatusAuthorized)
	p.Amount = amount
	return p
}

// TestOwnedPayments: every read hands out a value of the caller's own, a
// committed write is read at once and a rolled-back one never, and a
// writer changing its value after the put changes nothing stored.
func TestOwnedPayments(t *testing.T) {
	db := openDB(t)
	putPayment(t, db, withAmount("p1", 1))
	boom := errors.New("roll back")

	steps := []struct {
		name string
		do   func(t *testing.T)
		want int64 // amount read afterwards
	}{
		{"every read is a value of its own", func(t *testing.T) {
			a, b := read(t, db, "t1", "p1"), read(t, db, "t1", "p1")
			assert.NotSame(t, a, b)
			a.Amount, a.Metadata["k"] = 50, "changed by a reader"
			b.Amount, b.Metadata["k"] = 60, "changed by a reader"
			c := read(t, db, "t1", "p1")
			assert.NotSame(t, b, c)
			assert.Equal(t, "v", c.Metadata["k"])
		}, 1},
		{"a rolled-back write is not read", func(t *testing.T) {
			err := db.Update(func(tx simulator.Tx) error {
				require.NoError(t, tx.PutPayment(withAmount("p1", 99)))
				return boom
			})
			require.ErrorIs(t, err, boom)
		}, 1},
		{"a committed write is read at once", func(t *testing.T) { putPayment(t, db, withAmount("p1", 2)) }, 2},
		{"a transaction reads its own writes", func(t *testing.T) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error {
				p, err := tx.Payment("t1", "p1")
				require.NoError(t, err)
				p.Amount = 3
				p.Metadata["k"] = "changed in the transaction"
				require.NoError(t, tx.PutPayment(p))
				p.Metadata["k"] = "changed after the put"
				again, err := tx.Payment("t1", "p1")
				require.NoError(t, err)
				assert.Equal(t, int64(3), again.Amount)
				assert.Equal(t, "changed in the transaction", again.Metadata["k"])
				again.Amount = 77
				return nil
			}))
			assert.Equal(t, "changed in the transaction", read(t, db, "t1", "p1").Metadata["k"])
		}, 3},
		{"reset data is gone", func(t *testing.T) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t1", false) }))
			assert.Nil(t, read(t, db, "t1", "p1"))
			putPayment(t, db, withAmount("p1", 4))
		}, 4},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.do(t)
			p := read(t, db, "t1", "p1")
			require.NotNil(t, p)
			assert.Equal(t, st.want, p.Amount)
		})
	}

	for _, id := range []string{"nope", "", "p1:x", "../p1"} {
		assert.Nil(t, read(t, db, "t1", id), id)
	}
	assert.Nil(t, read(t, db, "t2", "p1"), "another tenant's id is unknown")
}

// TestOwnedRecords: sessions (by id and by client token), instruments and
// attempts follow writes and deletes like payments, and what a caller
// changes in a value it read is not read by the next caller.
func TestOwnedRecords(t *testing.T) {
	db := openDB(t)
	now := time.Unix(1700000000, 0).UTC()
	cs := &simulator.ClientSession{ID: "s1", TenantID: "t1", ClientToken: simulator.WithTenant("t1", "cst_1"), ExpiresAt: now.Add(time.Hour),
		Data: simulator.SessionData{OrderID: "o1", Metadata: map[string]any{"k": "v"}}}
	in := &simulator.Instrument{Token: "tok1", TenantID: "t1", TokenType: simulator.TokenSingleUse, SessionID: "s1", CreatedAt: now}
	a := &simulator.Attempt{ID: "a1", TenantID: "t1", SessionID: "s1", Token: "tok1", Status: simulator.AttemptAwaiting}
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		return errors.Join(tx.PutSession(cs), tx.PutInstrument(in), tx.PutAttempt(a))
	}))
	cs.Data.Metadata["k"] = "changed by the writer after the commit"

	type got struct{ orderID, meta, byToken, used, attempt string }
	// read reads every record, then changes what it read.
	read := func(t *testing.T) got {
		var g got
		require.NoError(t, db.View(func(tx simulator.Tx) error {
			s1, err1 := tx.Session("t1", "s1")
			byTok, err2 := tx.SessionByToken(simulator.WithTenant("t1", "cst_1"))
			i1, err3 := tx.Instrument("t1", "tok1")
			a1, err4 := tx.Attempt("t1", "a1")
			if s1 != nil {
				g.orderID, g.meta = s1.Data.OrderID, fmt.Sprint(s1.Data.Metadata["k"])
				s1.Data.OrderID, s1.Data.Metadata["k"] = "changed by a reader", "changed by a reader"
			}
			if byTok != nil {
				g.byToken = byTok.Data.OrderID
				byTok.Data.OrderID = "changed by a reader"
			}
			if i1 != nil {
				g.used = fmt.Sprint(i1.Used)
				i1.Used = !i1.Used
			}
			if a1 != nil {
				g.attempt = string(a1.Status)
				a1.Status = simulator.AttemptExpired
			}
			return errors.Join(err1, err2, err3, err4)
		}))
		return g
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
		want got
	}{
		{"as stored", func(*testing.T) {}, got{"o1", "v", "o1", "false", string(simulator.AttemptAwaiting)}},
		{"a reader's changes are its own", func(t *testing.T) { read(t) }, got{"o1", "v", "o1", "false", string(simulator.AttemptAwaiting)}},
		{"writes are read at once", func(t *testing.T) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error {
				s, err := tx.SessionByToken(simulator.WithTenant("t1", "cst_1"))
				require.NoError(t, err)
				s.Data.OrderID, s.Data.Metadata["k"] = "o2", "changed"
				i, err := tx.Instrument("t1", "tok1")
				require.NoError(t, err)
				i.Used = true
				at, err := tx.Attempt("t1", "a1")
				require.NoError(t, err)
				at.Status = simulator.AttemptApproved
				return errors.Join(tx.PutSession(s), tx.PutInstrument(i), tx.PutAttempt(at))
			}))
		}, got{"o2", "changed", "o2", "true", string(simulator.AttemptApproved)}},
		{"the tenant's data deleted", func(t *testing.T) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t1", false) }))
		}, got{}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.do(t)
			assert.Equal(t, st.want, read(t))
		})
	}
}

// TestDeepMetadataReadsBack: metadata as deep as the API accepts (32 levels
// in the request body) reads back from a stored session and payment.
func TestDeepMetadataReadsBack(t *testing.T) {
	db := openDB(t)
	deep := map[string]any{"leaf": "v"}
	for range 30 {
		deep = map[string]any{"a": deep}
	}
	cs := &simulator.ClientSession{ID: "s1", TenantID: "t1", ClientToken: simulator.WithTenant("t1", "cst_1"), Data: simulator.SessionData{Metadata: deep}}
	p := payment("p1", simulator.StatusAuthorized)
	p.Metadata = deep
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return errors.Join(tx.PutSession(cs), tx.PutPayment(p)) }))
	var s *simulator.ClientSession
	var got *simulator.Payment
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		var err1, err2 error
		s, err1 = tx.Session("t1", "s1")
		got, err2 = tx.Payment("t1", "p1")
		return errors.Join(err1, err2)
	}))
	assert.Equal(t, deep, s.Data.Metadata)
	assert.Equal(t, deep, got.Metadata)
}
