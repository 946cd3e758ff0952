package service

import (
	"errors"
	"sync"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// DefaultMigrationFlush is how often, at most, a tenant's migration notes
// are written to the store when none is configured.
const DefaultMigrationFlush = time.Second

// migrationLog counts the migration notes requests hit in memory, per
// tenant, so that a request (a read above all) writes nothing for them: a
// tenant's counts are stored at most once per interval, in the
// background, at shutdown (FlushMigrationNotes), and never after its reset
// or deletion. Memory stays bounded as the stored notes are: one note per
// kind, MigrationExamples request ids each, per tenant with unstored counts.
type migrationLog struct {
	every time.Duration

	mu      sync.Mutex
	pending map[string]*simulator.MigrationNotes // tenant id -> counts not stored yet

	// store orders the writes of notes with the reads that merge pending
	// counts and with tenant resets and deletes: a read never sees counts
	// taken for a write that has not committed, and a write never lands
	// after a reset that dropped its counts.
	store sync.Mutex
}

// RecordMigration counts the 2.4 differences one request made with an older
// version hit, in the tenant's migration notes. The counts are kept in
// memory and stored within the flush interval (MigrationNotes shows them at
// once); they persist across restarts and beyond the journal's bound.
func (s *Service) RecordMigration(t *simulator.Tenant, requestID string, hits []simulator.MigrationHit) error {
	if len(hits) == 0 {
		return nil
	}
	s.recordMigration(t.ID, requestID, hits, s.Now(t))
	return nil
}

func (s *Service) recordMigration(tid, requestID string, hits []simulator.MigrationHit, at time.Time) {
	ml := &s.migrations
	ml.mu.Lock()
	defer ml.mu.Unlock()
	p := ml.pending[tid]
	if p == nil {
		if ml.pending == nil {
			ml.pending = map[string]*simulator.MigrationNotes{}
		}
		p = &simulator.MigrationNotes{TenantID: tid}
		ml.pending[tid] = p
		time.AfterFunc(ml.every, func() { _ = s.flushMigration(tid) })
	}
	for _, h := range hits {
		p.Record(h, requestID, at)
	}
}

// MigrationNotes reads the tenant's migration notes, the counts not stored
// yet included.
func (s *Service) MigrationNotes(t *simulator.Tenant) (*simulator.MigrationNotes, error) {
	ml := &s.migrations
	ml.store.Lock()
	defer ml.store.Unlock()
	var m *simulator.MigrationNotes
	err := s.Store.View(func(tx simulator.Tx) (err error) {
		m, err = tx.MigrationNotes(t.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	ml.mu.Lock()
	m.Merge(ml.pending[t.ID])
	ml.mu.Unlock()
	return m, nil
}

// FlushMigrationNotes stores every tenant's unstored migration counts now
// (shutdown calls it before the store closes).
func (s *Service) FlushMigrationNotes() error {
	ml := &s.migrations
	ml.mu.Lock()
	ids := make([]string, 0, len(ml.pending))
	for id := range ml.pending {
		ids = append(ids, id)
	}
	ml.mu.Unlock()
	var errs []error
	for _, id := range ids {
		errs = append(errs, s.flushMigration(id))
	}
	return errors.Join(errs...)
}

// flushMigration adds tenant tid's unstored counts to its stored notes in
// one write. A tenant gone meanwhile gets nothing back; a failed write keeps
// the counts for the next try.
func (s *Service) flushMigration(tid string) error {
	ml := &s.migrations
	ml.store.Lock()
	defer ml.store.Unlock()
	ml.mu.Lock()
	d := ml.pending[tid]
	delete(ml.pending, tid)
	ml.mu.Unlock()
	if d == nil {
		return nil
	}
	err := s.Store.Update(func(tx simulator.Tx) error {
		if tn, err := tx.Tenant(tid); err != nil || tn == nil {
			return err
		}
		m, err := tx.MigrationNotes(tid)
		if err != nil {
			return err
		}
		m.Merge(d)
		return tx.PutMigrationNotes(m)
	})
	if err != nil {
		s.Log.Error("migration notes not stored; retrying", "err", err, "tenant", tid)
		ml.mu.Lock()
		if cur := ml.pending[tid]; cur != nil {
			d.Merge(cur) // cur was recorded after d
		} else {
			time.AfterFunc(ml.every, func() { _ = s.flushMigration(tid) })
		}
		ml.pending[tid] = d
		ml.mu.Unlock()
	}
	return err
}

// dropMigration forgets tenant tid's unstored counts (its data is being
// reset or deleted) and holds back note writes until the returned func is
// called, after the reset or deletion committed.
func (s *Service) dropMigration(tid string) (unlock func()) {
	ml := &s.migrations
	ml.store.Lock()
	ml.mu.Lock()
	delete(ml.pending, tid)
	ml.mu.Unlock()
	return ml.store.Unlock
}
