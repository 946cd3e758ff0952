package service

import (
	"errors"
	"sync"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// DefaultMigrationFlush is how often, at most, a tenant's counts (migration
// notes and report counts) are written to the store when none is
// configured.
const DefaultMigrationFlush = time.Second

// countLog counts in memory, per tenant, what requests and background work
// add to the tenant's migration notes and CI report counts, so that a
// request (a read above all) writes nothing for them: a tenant's counts are
// stored, both records in one write, at most once per interval in the
// background, at shutdown (FlushCounts), and never after its reset or
// deletion. Memory stays bounded as the stored records are, per tenant
// with unstored counts.
type countLog struct {
	every time.Duration

	mu      sync.Mutex
	pending map[string]*tenantCounts // tenant id -> counts not stored yet

	// store orders the writes of counts with the reads that merge pending
	// counts and with tenant resets and deletes: a read never sees counts
	// taken for a write that has not committed, and a write never lands
	// after a reset that dropped its counts.
	store sync.Mutex
}

// tenantCounts are one tenant's counts not stored yet (nil: none of that
// kind).
type tenantCounts struct {
	mig *simulator.MigrationNotes
	rep *simulator.ReportCounts
}

// merge adds d (counted after c) to c.
func (c *tenantCounts) merge(d *tenantCounts) {
	if d.mig != nil {
		if c.mig == nil {
			c.mig = &simulator.MigrationNotes{TenantID: d.mig.TenantID}
		}
		c.mig.Merge(d.mig)
	}
	if d.rep != nil {
		if c.rep == nil {
			c.rep = &simulator.ReportCounts{TenantID: d.rep.TenantID}
		}
		c.rep.Merge(d.rep)
	}
}

// count runs fn on tenant tid's unstored counts under the log's lock; the
// first count since the last write schedules the next.
func (s *Service) count(tid string, fn func(c *tenantCounts)) {
	cl := &s.counts
	cl.mu.Lock()
	defer cl.mu.Unlock()
	p := cl.pending[tid]
	if p == nil {
		if cl.pending == nil {
			cl.pending = map[string]*tenantCounts{}
		}
		p = &tenantCounts{}
		cl.pending[tid] = p
		time.AfterFunc(cl.every, func() { _ = s.flushCounts(tid) })
	}
	fn(p)
}

// countReport runs fn on tenant tid's unstored report counts.
func (s *Service) countReport(tid string, fn func(r *simulator.ReportCounts)) {
	s.count(tid, func(c *tenantCounts) {
		if c.rep == nil {
			c.rep = &simulator.ReportCounts{TenantID: tid}
		}
		fn(c.rep)
	})
}

// readCounts runs read in a read transaction, then merge with tenant tid's
// unstored counts (nil: none), with no write landing in between.
func (s *Service) readCounts(tid string, read func(tx simulator.Tx) error, merge func(p *tenantCounts)) error {
	cl := &s.counts
	cl.store.Lock()
	defer cl.store.Unlock()
	if err := s.store.View(read); err != nil {
		return err
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	merge(cl.pending[tid])
	return nil
}

// FlushCounts stores every tenant's unstored counts now (shutdown calls it
// before the store closes).
func (s *Service) FlushCounts() error {
	cl := &s.counts
	cl.mu.Lock()
	ids := make([]string, 0, len(cl.pending))
	for id := range cl.pending {
		ids = append(ids, id)
	}
	cl.mu.Unlock()
	var errs []error
	for _, id := range ids {
		errs = append(errs, s.flushCounts(id))
	}
	return errors.Join(errs...)
}

// FlushMigrationNotes is FlushCounts: the migration notes are stored with
// the rest of the counts.
func (s *Service) FlushMigrationNotes() error { return s.FlushCounts() }

// flushCounts adds tenant tid's unstored counts to its stored records in
// one write. A tenant gone meanwhile gets nothing back; a failed write
// keeps the counts for the next try.
func (s *Service) flushCounts(tid string) error {
	cl := &s.counts
	cl.store.Lock()
	defer cl.store.Unlock()
	cl.mu.Lock()
	d := cl.pending[tid]
	delete(cl.pending, tid)
	cl.mu.Unlock()
	if d == nil {
		return nil
	}
	err := s.store.Update(func(tx simulator.Tx) error {
		if tn, err := tx.Tenant(tid); err != nil || tn == nil {
			return err
		}
		if d.mig != nil {
			m, err := tx.MigrationNotes(tid)
			if err != nil {
				return err
			}
			m.Merge(d.mig)
			if err := tx.PutMigrationNotes(m); err != nil {
				return err
			}
		}
		if d.rep != nil {
			r, err := tx.ReportCounts(tid)
			if err != nil {
				return err
			}
			r.Merge(d.rep)
			if err := tx.PutReportCounts(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.log.Error("counts not stored; retrying", "err", err, "tenant", tid)
		cl.mu.Lock()
		if cur := cl.pending[tid]; cur != nil {
			d.merge(cur) // cur was counted after d
		} else {
			time.AfterFunc(cl.every, func() { _ = s.flushCounts(tid) })
		}
		cl.pending[tid] = d
		cl.mu.Unlock()
	}
	return err
}

// dropCounts forgets tenant tid's unstored counts (its data is being reset
// or deleted) and holds back count writes until the returned func is
// called, after the reset or deletion committed.
func (s *Service) dropCounts(tid string) (unlock func()) {
	cl := &s.counts
	cl.store.Lock()
	cl.mu.Lock()
	delete(cl.pending, tid)
	cl.mu.Unlock()
	return cl.store.Unlock
}
