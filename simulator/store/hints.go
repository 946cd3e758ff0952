package store

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// hints holds every tenant's next-due hint in memory (loaded from the
// catalog at Open) so that NextJob, TenantsWithPending and the idle close
// open no tenant to learn that it has nothing due.
//
// A writer changes a hint only earlier (a job due sooner, pending events
// appearing): its transaction buffers the catalog record and, at commit,
// after the catalog's commit and before its tenant's (under the tenant's
// lock), moves the memory hint (apply; ver counts every change). A reader
// that finds a hint too early (the tenant's file says later, or nothing)
// corrects it outside any tenant's lock (correct): only when neither the
// memory hint (ver) nor the catalog record changed since it took the hint
// before reading the file, so a correction never undoes a writer's move.
type hints struct {
	mu sync.Mutex
	m  map[string]hintState
}

type hintState struct {
	h   hint
	ver uint64
}

// load reads every hint of the catalog.
func (hs *hints) load(cat *buntdb.DB) error {
	hs.m = map[string]hintState{}
	var ferr error
	err := cat.View(func(tx *buntdb.Tx) error {
		return tx.AscendGreaterOrEqual("", pHint, func(k, v string) bool {
			if !strings.HasPrefix(k, pHint) {
				return false
			}
			h, err := parseHint(v)
			if err != nil {
				ferr = err
				return false
			}
			hs.m[unesc(k[len(pHint):])] = hintState{h: h}
			return true
		})
	})
	return errors.Join(err, ferr)
}

// get is tenant tid's hint and its version.
func (hs *hints) get(tid string) hintState {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.m[tid]
}

// due reports whether tenant tid may have work before until (a job due,
// or pending events).
func (hs *hints) due(tid string, until time.Time) bool {
	h := hs.get(tid).h
	return h.Pending || !h.JobDue.IsZero() && h.JobDue.Before(until)
}

// apply records a committing transaction's hint changes: reset ones first
// (their tenant's data is gone), then the moves earlier.
func (hs *hints) apply(reset map[string]bool, set map[string]hint) {
	if len(reset) == 0 && len(set) == 0 {
		return
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	for tid := range reset {
		if _, moved := set[tid]; !moved {
			delete(hs.m, tid)
		}
	}
	for tid, h := range set {
		cur := hs.m[tid]
		if reset[tid] {
			cur.h = hint{}
		}
		cur.h = earlier(cur.h, h)
		cur.ver++
		hs.m[tid] = cur
	}
}

// earlier merges two lower bounds.
func earlier(a, b hint) hint {
	if a.JobDue.IsZero() || !b.JobDue.IsZero() && b.JobDue.Before(a.JobDue) {
		a.JobDue = b.JobDue
	}
	a.Pending = a.Pending || b.Pending
	return a
}

// curHint is tenant tid's hint as this transaction left it.
func (t *Tx) curHint(tid string) hint {
	if h, ok := t.hintSet[tid]; ok {
		return h
	}
	if t.hintReset[tid] {
		return hint{}
	}
	return t.d.hints.get(tid).h
}

// moveHint makes tenant tid's hint at least as early as h (the catalog
// record is written only when it moves).
func (t *Tx) moveHint(tid string, h hint) {
	cur := t.curHint(tid)
	next := earlier(cur, h)
	if next == cur {
		if _, ok := t.hintSet[tid]; ok || !t.hintReset[tid] {
			return
		}
	}
	if t.hintSet == nil {
		t.hintSet = map[string]hint{}
	}
	t.hintSet[tid] = next
	t.catSet(kHint(tid), next.value())
}

// resetHint drops tenant tid's hint (its data is deleted).
func (t *Tx) resetHint(tid string) {
	if t.hintReset == nil {
		t.hintReset = map[string]bool{}
	}
	t.hintReset[tid] = true
	delete(t.hintSet, tid)
	t.catDel(kHint(tid))
}

// correct replaces tenant tid's hint, taken as was before reading the
// tenant's file, by the truth that file told, unless a writer moved it
// since (in memory or in the catalog).
func (d *DB) correctHint(tid string, was hintState, truth hint) {
	d.hints.mu.Lock()
	defer d.hints.mu.Unlock()
	if cur, ok := d.hints.m[tid]; !ok || cur.ver != was.ver || cur.h != was.h {
		return
	}
	err := d.catalog.Update(func(tx *buntdb.Tx) error {
		v, err := tx.Get(kHint(tid))
		if err != nil && !errors.Is(err, buntdb.ErrNotFound) {
			return err
		}
		if v != was.h.value() && !(errors.Is(err, buntdb.ErrNotFound) && was.h == hint{}) {
			return errHintMoved
		}
		if truth == (hint{}) {
			_, err = tx.Delete(kHint(tid))
			if errors.Is(err, buntdb.ErrNotFound) {
				err = nil
			}
			return err
		}
		_, _, err = tx.Set(kHint(tid), truth.value(), nil)
		return err
	})
	if err != nil {
		return // moved by a writer, or unwritable: the hint stays early, which is safe
	}
	d.lastWrite.Store(time.Now().UnixNano())
	d.disk.committed()
	if truth == (hint{}) {
		delete(d.hints.m, tid)
		return
	}
	d.hints.m[tid] = hintState{h: truth, ver: was.ver + 1}
}

var errHintMoved = errors.New("store: hint moved")

// NextJob returns the job with the earliest real due time over all
// tenants: it visits tenants in the order of their hints (lower bounds),
// reads each one's earliest job from its file and stops once the next hint
// is no earlier than the best job found; a hint found too early is
// corrected. A tenant whose file cannot be opened is skipped (its jobs
// wait until it can).
func (t *Tx) NextJob() (*simulator.Job, error) {
	type cand struct {
		tid string
		st  hintState
	}
	t.d.hints.mu.Lock()
	cands := make([]cand, 0, len(t.d.hints.m))
	for tid, st := range t.d.hints.m {
		if !st.h.JobDue.IsZero() {
			cands = append(cands, cand{tid, st})
		}
	}
	t.d.hints.mu.Unlock()
	slices.SortFunc(cands, func(a, b cand) int { return a.st.h.JobDue.Compare(b.st.h.JobDue) })
	type fix struct {
		cand
		truth hint
	}
	var best *simulator.Job
	var fixes []fix
	for _, c := range cands {
		if best != nil && !c.st.h.JobDue.Before(best.RealDue) {
			break
		}
		j, err := t.earliestJob(c.tid)
		var te *simulator.Error
		if errors.As(err, &te) && te.Code == simulator.CodeTenantUnavailable {
			continue
		}
		if err != nil {
			return nil, err
		}
		if j == nil || j.RealDue.After(c.st.h.JobDue) {
			truth := c.st.h
			truth.JobDue = time.Time{}
			if j != nil {
				truth.JobDue = j.RealDue
			}
			fixes = append(fixes, fix{c, truth})
		}
		if j != nil && (best == nil || j.RealDue.Before(best.RealDue)) {
			best = j
		}
	}
	if len(fixes) > 0 && !t.write {
		t.endTenant() // corrections take no tenant's lock
		for _, f := range fixes {
			t.d.correctHint(f.tid, f.st, f.truth)
		}
	}
	return best, nil
}

// earliestJob is tenant tid's job with the earliest real due time. Jobs are
// kept in tenant-clock due order (jobd); a job's real due time is never
// before its due time less the tenant's clock offset, so the walk stops
// once that bound reaches the best found.
func (t *Tx) earliestJob(tid string) (*simulator.Job, error) {
	var offset time.Duration
	if tn, err := t.Tenant(tid); err != nil {
		return nil, err
	} else if tn != nil {
		offset = tn.ClockOffset
	}
	var best *simulator.Job
	var ferr error
	p := pJobDue
	err := t.prefix(tid, p, func(k, _ string) bool {
		due, err := stampTime(k[len(p):])
		if err != nil {
			ferr = err
			return false
		}
		if best != nil && !due.Add(-offset).Before(best.RealDue) {
			return false
		}
		j, err := t.Job(tid, k[strings.LastIndexByte(k, ':')+1:])
		if err != nil {
			ferr = err
			return false
		}
		if j != nil && (best == nil || j.RealDue.Before(best.RealDue)) {
			best = j
		}
		return true
	})
	return best, errors.Join(err, ferr)
}

// TenantsWithPending implements simulator.Tx: the tenants whose hint says
// they may have PENDING events. An open tenant's own file answers for it
// (its hint is corrected when it has none left).
func (t *Tx) TenantsWithPending() ([]string, error) {
	type cand struct {
		tid string
		st  hintState
	}
	t.d.hints.mu.Lock()
	var cands []cand
	for tid, st := range t.d.hints.m {
		if st.h.Pending {
			cands = append(cands, cand{tid, st})
		}
	}
	t.d.hints.mu.Unlock()
	slices.SortFunc(cands, func(a, b cand) int { return strings.Compare(a.tid, b.tid) })
	var out []string
	var none []cand
	for _, c := range cands {
		if !t.d.reg.isOpen(c.tid) {
			out = append(out, c.tid)
			continue
		}
		any := false
		err := t.prefix(c.tid, pPending, func(string, string) bool { any = true; return false })
		if err != nil || any { // an unreadable tenant is left to the reader, which logs it
			out = append(out, c.tid)
			continue
		}
		none = append(none, c)
	}
	if len(none) > 0 && !t.write {
		t.endTenant()
		for _, c := range none {
			truth := c.st.h
			truth.Pending = false
			t.d.correctHint(c.tid, c.st, truth)
		}
	}
	return out, nil
}
