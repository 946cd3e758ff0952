package store_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

func hotPayment(t *testing.T, db *store.DB, tid, id string) *simulator.Payment {
	t.Helper()
	p, err := db.HotPayment(tid, id)
	require.NoError(t, err)
	return p
}

func putPayment(t *testing.T, db *store.DB, p *simulator.Payment) {
	t.Helper()
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
}

func withAmount(id string, amount int64) *simulator.Payment {
	p := payment(id, simulator.StatusAuthorized)
	p.Amount = amount
	return p
}

// TestHotPayments: the lock-free reader shares one value until a write,
// sees every committed write at once and no rolled-back one, and a
// transaction sees its own writes in private copies.
func TestHotPayments(t *testing.T) {
	db := openDB(t)
	putPayment(t, db, withAmount("p1", 1))
	boom := errors.New("roll back")

	steps := []struct {
		name string
		do   func(t *testing.T)
		want int64 // amount HotPayment reads afterwards
	}{
		{"first read fills, the next shares it", func(t *testing.T) {
			assert.Same(t, hotPayment(t, db, "t1", "p1"), hotPayment(t, db, "t1", "p1"))
		}, 1},
		{"a rolled-back write publishes nothing", func(t *testing.T) {
			err := db.Update(func(tx simulator.Tx) error {
				require.NoError(t, tx.PutPayment(withAmount("p1", 99)))
				return boom
			})
			require.ErrorIs(t, err, boom)
		}, 1},
		{"a committed write is read at once", func(t *testing.T) { putPayment(t, db, withAmount("p1", 2)) }, 2},
		{"a transaction reads private copies and its own writes", func(t *testing.T) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error {
				p, err := tx.Payment("t1", "p1")
				require.NoError(t, err)
				assert.NotSame(t, hotPayment(t, db, "t1", "p1"), p)
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
			assert.Equal(t, "changed in the transaction", hotPayment(t, db, "t1", "p1").Metadata["k"])
		}, 3},
		{"a read transaction's copy is its own", func(t *testing.T) {
			require.NoError(t, db.View(func(tx simulator.Tx) error {
				p, err := tx.Payment("t1", "p1")
				p.Amount = 55
				return err
			}))
		}, 3},
		{"reset data is gone", func(t *testing.T) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t1", false) }))
			assert.Nil(t, hotPayment(t, db, "t1", "p1"))
			putPayment(t, db, withAmount("p1", 4))
		}, 4},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.do(t)
			p := hotPayment(t, db, "t1", "p1")
			require.NotNil(t, p)
			assert.Equal(t, st.want, p.Amount)
		})
	}

	for _, id := range []string{"nope", "", "p1:x", "../p1"} {
		assert.Nil(t, hotPayment(t, db, "t1", id), id)
	}
	assert.Nil(t, hotPayment(t, db, "t2", "p1"), "another tenant's id is unknown")
}

// TestHotRecords: sessions (by id and by client token), instruments and
// attempts follow writes and deletes like payments.
func TestHotRecords(t *testing.T) {
	db := openDB(t)
	now := time.Unix(1700000000, 0).UTC()
	cs := &simulator.ClientSession{ID: "s1", TenantID: "t1", ClientToken: "cst_1", ExpiresAt: now.Add(time.Hour),
		Data: simulator.SessionData{OrderID: "o1", Metadata: map[string]any{"k": "v"}}}
	in := &simulator.Instrument{Token: "tok1", TenantID: "t1", TokenType: simulator.TokenSingleUse, SessionID: "s1", CreatedAt: now}
	a := &simulator.Attempt{ID: "a1", TenantID: "t1", SessionID: "s1", Token: "tok1", Status: simulator.AttemptAwaiting}
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		return errors.Join(tx.PutSession(cs), tx.PutInstrument(in), tx.PutAttempt(a))
	}))

	type got struct{ orderID, byToken, used, attempt string }
	read := func(t *testing.T) got {
		var g got
		s1, err := db.HotSession("t1", "s1")
		require.NoError(t, err)
		byTok, err := db.HotSessionByToken("cst_1")
		require.NoError(t, err)
		i1, err := db.HotInstrument("t1", "tok1")
		require.NoError(t, err)
		a1, err := db.HotAttempt("t1", "a1")
		require.NoError(t, err)
		if s1 != nil {
			g.orderID = s1.Data.OrderID
		}
		if byTok != nil {
			g.byToken = byTok.Data.OrderID
		}
		if i1 != nil {
			g.used = fmt.Sprint(i1.Used)
		}
		if a1 != nil {
			g.attempt = string(a1.Status)
		}
		return g
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
		want got
	}{
		{"first reads fill", func(*testing.T) {}, got{"o1", "o1", "false", string(simulator.AttemptAwaiting)}},
		{"writes are read at once", func(t *testing.T) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error {
				s, err := tx.SessionByToken("cst_1")
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
		}, got{"o2", "o2", "true", string(simulator.AttemptApproved)}},
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
	assert.Equal(t, "v", cs.Data.Metadata["k"], "the writer's value was not shared")
}

// TestHotBound: however many records are read, the cache holds at most its
// bound, and records evicted are read again from the store.
func TestHotBound(t *testing.T) {
	assert.Equal(t, 16384, store.HotMaxEntries, "the bound of the cache")
	db := openDB(t)
	db.SetHotGenSize(4)
	const n = 300
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		for i := range n {
			if err := tx.PutPayment(withAmount(fmt.Sprint("p", i), int64(i))); err != nil {
				return err
			}
		}
		return nil
	}))
	for round := range 2 {
		for i := range n {
			p := hotPayment(t, db, "t1", fmt.Sprint("p", i))
			require.NotNil(t, p, "round %d payment %d", round, i)
			assert.Equal(t, int64(i), p.Amount)
		}
		assert.LessOrEqual(t, db.HotLen(), 16*2*4)
	}
}

// TestHotNeverStale: writers change payments (some commits roll back, one
// payment is deleted and written again) while readers read through the
// cache, with generations turning over all the time. A read that starts
// after a write returned never sees anything older than that write, nor a
// rolled-back value. Run it with -race.
func TestHotNeverStale(t *testing.T) {
	db := openDB(t)
	db.SetHotGenSize(2)
	const (
		keys    = 4
		writes  = 150 // per writer
		writers = 3
		readers = 3
		fillers = 64
	)
	id := func(k int) string { return fmt.Sprint("p", k) }
	for k := range keys {
		putPayment(t, db, withAmount(id(k), 0))
	}
	for f := range fillers {
		putPayment(t, db, withAmount(fmt.Sprint("f", f), 0))
	}
	// done[k]: the highest amount of payment k whose Update has returned.
	var done [keys]atomic.Int64
	raise := func(a *atomic.Int64, v int64) {
		for cur := a.Load(); cur < v && !a.CompareAndSwap(cur, v); cur = a.Load() {
		}
	}
	// Payment "d" of tenant t2 goes through versions: a multiple of 3 is a
	// delete, others a write of that amount. dStarted is the version being
	// committed, dDone the last one returned.
	var dStarted, dDone atomic.Int64
	stop := make(chan struct{})
	var failures atomic.Int64
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 5 {
			t.Errorf(format, args...)
		}
	}

	var wg sync.WaitGroup
	var writersWG sync.WaitGroup
	for w := range writers {
		writersWG.Add(1)
		go func() {
			defer writersWG.Done()
			for i := range writes {
				k := (w + i) % keys
				var amount int64
				err := db.Update(func(tx simulator.Tx) error {
					p, err := tx.Payment("t1", id(k))
					if err != nil || p == nil {
						return fmt.Errorf("reading %s: %v", id(k), err)
					}
					p.Amount++
					amount = p.Amount
					return tx.PutPayment(p)
				})
				if err != nil {
					fail("write: %v", err)
					return
				}
				raise(&done[k], amount)
				_ = db.Update(func(tx simulator.Tx) error { // rolled back: never read
					_ = tx.PutPayment(withAmount(id(k), -1))
					return errors.New("roll back")
				})
			}
		}()
	}
	writersWG.Add(1)
	go func() { // payment d of t2: deleted and written again
		defer writersWG.Done()
		for v := int64(1); v <= 120; v++ {
			dStarted.Store(v)
			var err error
			if v%3 == 0 {
				err = db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t2", false) })
			} else {
				p := withAmount("d", v)
				p.TenantID = "t2"
				err = db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) })
			}
			if err != nil {
				fail("version %d: %v", v, err)
				return
			}
			dDone.Store(v)
		}
	}()
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				k := (r + n) % keys
				floor := done[k].Load()
				var p *simulator.Payment
				var err error
				if n%5 == 0 { // a read transaction publishes what it decodes too
					err = db.View(func(tx simulator.Tx) (err error) { p, err = tx.Payment("t1", id(k)); return })
				} else {
					p, err = db.HotPayment("t1", id(k))
				}
				switch {
				case err != nil || p == nil:
					fail("reading %s: %v %v", id(k), p, err)
				case p.Amount < floor:
					fail("%s: read amount %d after the write of %d returned", id(k), p.Amount, floor)
				}

				before := dDone.Load()
				d, err := db.HotPayment("t2", "d")
				after := dStarted.Load()
				if err != nil {
					fail("reading d: %v", err)
					continue
				}
				if d == nil {
					deleted := false // some delete in [before, after]
					for v := before; v <= after; v++ {
						deleted = deleted || (v > 0 && v%3 == 0)
					}
					if !deleted && before > 0 {
						fail("d read as deleted with versions %d..%d", before, after)
					}
				} else if d.Amount < before || d.Amount > after {
					fail("d read at version %d with versions %d..%d", d.Amount, before, after)
				}

				f, err := db.HotPayment("t1", fmt.Sprint("f", n%fillers)) // turns generations over
				if err != nil || f == nil {
					fail("filler: %v %v", f, err)
				}
			}
		}()
	}
	writersWG.Wait()
	close(stop)
	wg.Wait()
	for k := range keys {
		p := hotPayment(t, db, "t1", id(k))
		require.NotNil(t, p)
		assert.Equal(t, done[k].Load(), p.Amount)
	}
	assert.Equal(t, int64(writers*writes), func() (n int64) {
		for k := range keys {
			n += done[k].Load()
		}
		return n
	}())
}

// TestHotLateReader: a lock-free reader that missed and read the store, then
// stalls before publishing while a write, a write and the key's eviction, or
// a delete commits, publishes nothing that hides them.
func TestHotLateReader(t *testing.T) {
	cases := []struct {
		name  string
		meant func(t *testing.T, db *store.DB)
		want  int64 // amount read afterwards, 0: no payment
	}{
		{"a newer write", func(t *testing.T, db *store.DB) { putPayment(t, db, withAmount("p1", 2)) }, 2},
		{"a newer write, then evicted", func(t *testing.T, db *store.DB) {
			putPayment(t, db, withAmount("p1", 2))
			for f := range 200 { // every shard turns over several times
				hotPayment(t, db, "t1", fmt.Sprint("f", f))
			}
		}, 2},
		{"a delete", func(t *testing.T, db *store.DB) {
			require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("t1", false) }))
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := openDB(t)
			db.SetHotGenSize(2)
			putPayment(t, db, withAmount("p1", 1))
			require.NoError(t, db.Update(func(tx simulator.Tx) error {
				for f := range 200 {
					if err := tx.PutPayment(withAmount(fmt.Sprint("f", f), 0)); err != nil {
						return err
					}
				}
				return nil
			}))
			stalled, resume := make(chan struct{}), make(chan struct{})
			db.SetHotMissHook(func(key string) {
				if key == "t:t1:pay:p1" {
					close(stalled)
					<-resume
				}
			})
			late := make(chan *simulator.Payment)
			go func() {
				p, _ := db.HotPayment("t1", "p1")
				late <- p
			}()
			<-stalled
			db.SetHotMissHook(nil)
			c.meant(t, db)
			close(resume)
			if p := <-late; assert.NotNil(t, p) {
				assert.Equal(t, int64(1), p.Amount, "the late reader itself read before")
			}
			p := hotPayment(t, db, "t1", "p1")
			if c.want == 0 {
				assert.Nil(t, p)
			} else if assert.NotNil(t, p) {
				assert.Equal(t, c.want, p.Amount)
			}
		})
	}
}
