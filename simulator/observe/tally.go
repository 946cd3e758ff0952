package observe

import (
	"errors"
	"log/slog"
	"sync"
	"time"
)

// DefaultFlush is how often, at most, a Ledger writes a tenant's records
// when no interval is given.
const DefaultFlush = time.Second

// Ledger writes the tallies made on it behind, per tenant: what they count
// (on a read request above all) writes nothing at once; a tenant's counts
// of every tally are added to its stored records in one write, at most
// once per interval in the background, at Close, and never after its
// reset or deletion (Drop). Memory stays bounded as the stored records
// are, per tenant with unstored counts. It is the Keeper of its tallies.
type Ledger struct {
	store Store
	every time.Duration
	log   *slog.Logger

	tallies []tally

	mu        sync.Mutex
	scheduled map[string]bool // tenants with a write scheduled
	// failing holds the tenants whose last write failed: the next try
	// waits longer each time (up to MaxRetryWait) and the failure is
	// logged once, then again only when it changes or every MaxRetryWait,
	// so a tenant whose file cannot be opened does not flood the log.
	failing map[string]*failure

	// write orders the writes of counts with the reads that merge pending
	// counts and with tenant resets and deletes: a read never sees counts
	// taken for a write that has not committed, and a write never lands
	// after a reset that dropped its counts.
	write sync.Mutex
}

var _ Keeper = (*Ledger)(nil)

// NewLedger writes behind to st, at most once per every (0: DefaultFlush)
// per tenant. A failed write is logged to log (nil: discarded) and tried
// again.
func NewLedger(st Store, every time.Duration, log *slog.Logger) *Ledger {
	if every <= 0 {
		every = DefaultFlush
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Ledger{store: st, every: every, log: log}
}

// tally is a Tally as its Ledger handles it.
type tally interface {
	// take removes and answers the tenant's unstored counts (nil: none).
	take(tid string) any
	// putBack returns counts take answered (a write failed), before what
	// was counted since.
	putBack(tid string, counts any)
	// stored is the tenant's stored record with counts added.
	stored(tid string, counts any) (Record, error)
	// drop forgets the tenant's unstored counts.
	drop(tid string)
}

// Record is one record an observer keeps: its kind and its value.
type Record struct {
	Kind  string
	Value any
}

// MaxRetryWait bounds the wait before another try of a tenant's failed
// write, and how long the same failure goes unlogged.
const MaxRetryWait = 10 * time.Minute

// failure is a tenant's run of failed writes.
type failure struct {
	wait   time.Duration // before the next try
	msg    string        // the last error logged
	logged time.Time     // when it was logged
}

// schedule makes sure a write of tenant tid's counts is scheduled: after
// the interval, or after the tenant's retry wait while its writes fail.
func (l *Ledger) schedule(tid string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.scheduled[tid] {
		return
	}
	if l.scheduled == nil {
		l.scheduled = map[string]bool{}
	}
	l.scheduled[tid] = true
	wait := l.every
	if f := l.failing[tid]; f != nil {
		wait = f.wait
	}
	time.AfterFunc(wait, func() { _ = l.flush(tid) })
}

// failed records a failed write of tid's counts: it doubles the tenant's
// retry wait (from the interval, up to MaxRetryWait) and logs the failure
// when it is new, different from the last one logged, or last logged
// MaxRetryWait ago.
func (l *Ledger) failed(tid string, err error) {
	now := time.Now()
	l.mu.Lock()
	if l.failing == nil {
		l.failing = map[string]*failure{}
	}
	f := l.failing[tid]
	if f == nil {
		f = &failure{wait: l.every}
		l.failing[tid] = f
	}
	f.wait = min(2*f.wait, MaxRetryWait)
	msg, wait := err.Error(), f.wait
	log := msg != f.msg || now.Sub(f.logged) >= MaxRetryWait
	if log {
		f.msg, f.logged = msg, now
	}
	l.mu.Unlock()
	if log {
		l.log.Error("counts not stored; retrying", "err", err, "tenant", tid, "retry_in", wait)
	}
}

// recovered ends tid's run of failed writes, if any, with a log line.
func (l *Ledger) recovered(tid string) {
	l.mu.Lock()
	f := l.failing[tid]
	delete(l.failing, tid)
	l.mu.Unlock()
	if f != nil {
		l.log.Info("counts stored again", "tenant", tid)
	}
}

// flush adds tenant tid's unstored counts to its stored records in one
// write. A tenant gone meanwhile gets nothing back; a failed write keeps
// the counts for the next try.
func (l *Ledger) flush(tid string) error {
	l.write.Lock()
	defer l.write.Unlock()
	l.mu.Lock()
	delete(l.scheduled, tid) // a count from here on schedules the next write
	l.mu.Unlock()
	var took []any
	var recs []Record
	var err error
	for _, t := range l.tallies {
		d := t.take(tid)
		took = append(took, d)
		if d == nil || err != nil {
			continue
		}
		var r Record
		if r, err = t.stored(tid, d); err == nil {
			recs = append(recs, r)
		}
	}
	if err == nil && len(recs) > 0 {
		err = l.store.SaveObserved(tid, recs...)
	}
	if err != nil {
		l.failed(tid, err)
		for i, t := range l.tallies {
			if took[i] != nil {
				t.putBack(tid, took[i])
			}
		}
		l.schedule(tid)
		return err
	}
	l.recovered(tid)
	return nil
}

// Close stores every tenant's unstored counts now (shutdown calls it
// before the store closes).
func (l *Ledger) Close() error {
	l.mu.Lock()
	ids := make([]string, 0, len(l.scheduled))
	for id := range l.scheduled {
		ids = append(ids, id)
	}
	l.mu.Unlock()
	var errs []error
	for _, id := range ids {
		errs = append(errs, l.flush(id))
	}
	return errors.Join(errs...)
}

// Drop forgets tenant tid's unstored counts (its data is being reset or
// deleted) and holds back writes until the returned func is called, after
// the reset or deletion committed.
func (l *Ledger) Drop(tid string) (release func()) {
	l.write.Lock()
	l.mu.Lock()
	delete(l.failing, tid)
	l.mu.Unlock()
	for _, t := range l.tallies {
		t.drop(tid)
	}
	return l.write.Unlock
}

// Tally is an observer's state of type S per tenant, counted in memory and
// written behind by its Ledger as records of its kind.
type Tally[S any] struct {
	kind   string
	ledger *Ledger
	// fresh is an empty state of a tenant; merge adds newer (counted after
	// dst) to dst.
	fresh func(tenantID string) *S
	merge func(dst, newer *S)

	mu      sync.Mutex
	pending map[string]*S // tenant id -> counts not stored yet
}

// NewTally is a Tally of the records of kind, written behind by l.
func NewTally[S any](l *Ledger, kind string, fresh func(tenantID string) *S, merge func(dst, newer *S)) *Tally[S] {
	t := &Tally[S]{kind: kind, ledger: l, fresh: fresh, merge: merge}
	l.write.Lock()
	l.tallies = append(l.tallies, t)
	l.write.Unlock()
	return t
}

// Count runs fn on tenant tid's unstored counts; the first count since
// the last write schedules the next.
func (t *Tally[S]) Count(tid string, fn func(s *S)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pending[tid]
	if p == nil {
		if t.pending == nil {
			t.pending = map[string]*S{}
		}
		p = t.fresh(tid)
		t.pending[tid] = p
		t.ledger.schedule(tid)
	}
	fn(p)
}

// Read is tenant tid's state: the stored record with the counts not stored
// yet added, no write landing in between. It writes nothing.
func (t *Tally[S]) Read(tid string) (*S, error) {
	t.ledger.write.Lock()
	defer t.ledger.write.Unlock()
	s, err := t.load(tid)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.pending[tid]; p != nil {
		t.merge(s, p)
	}
	return s, nil
}

// Import stores s as tenant tid's state (a snapshot's, for a tenant just
// made from it); what the tenant counted meanwhile is added to it.
func (t *Tally[S]) Import(tid string, s *S) error {
	t.ledger.write.Lock()
	defer t.ledger.write.Unlock()
	cur := t.fresh(tid)
	found, err := t.ledger.store.LoadObserved(tid, t.kind, cur)
	if err != nil {
		return err
	}
	if found {
		t.merge(s, cur)
	}
	return t.ledger.store.SaveObserved(tid, Record{Kind: t.kind, Value: s})
}

// load reads tenant tid's stored record (an empty state when none).
func (t *Tally[S]) load(tid string) (*S, error) {
	s := t.fresh(tid)
	if _, err := t.ledger.store.LoadObserved(tid, t.kind, s); err != nil {
		return nil, err
	}
	return s, nil
}

func (t *Tally[S]) take(tid string) any {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.pending[tid]
	delete(t.pending, tid)
	if d == nil {
		return nil
	}
	return d
}

func (t *Tally[S]) putBack(tid string, counts any) {
	d := counts.(*S)
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur := t.pending[tid]; cur != nil {
		t.merge(d, cur) // cur was counted after d
	}
	if t.pending == nil {
		t.pending = map[string]*S{}
	}
	t.pending[tid] = d
}

func (t *Tally[S]) stored(tid string, counts any) (Record, error) {
	s, err := t.load(tid)
	if err != nil {
		return Record{}, err
	}
	t.merge(s, counts.(*S))
	return Record{Kind: t.kind, Value: s}, nil
}

func (t *Tally[S]) drop(tid string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.pending, tid)
}
