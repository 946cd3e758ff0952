package service

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// Scheduler runs stored jobs when they fall due on their tenant's clock. It
// is the one place timed work runs: background authorization, expiries,
// timeout resolutions, settlements, refunds, disputes, tenant TTLs. Jobs live
// in the store, so a restart (or kill -9) resumes them.
type Scheduler struct {
	svc  *Service
	wake chan struct{}
	// tenantMu serialises clock advances and due runs per tenant.
	tenantMu sync.Map // tenant id -> *sync.Mutex
	// expiries: a tenant's ttl was set or found passed, so the loop reads
	// the next tenant expiry again (other wake-ups do not).
	expiries atomic.Bool
}

// tenantExpiriesChanged wakes the loop to read the next tenant expiry again.
func (sc *Scheduler) tenantExpiriesChanged() {
	sc.expiries.Store(true)
	sc.Kick()
}

// newScheduler makes the scheduler of svc (NewService keeps it; the
// service wakes it through Service.Kick).
func newScheduler(svc *Service) *Scheduler {
	return &Scheduler{svc: svc, wake: make(chan struct{}, 1)}
}

// Kick makes the loop look at the next job again.
func (sc *Scheduler) Kick() {
	select {
	case sc.wake <- struct{}{}:
	default:
	}
}

func (sc *Scheduler) lock(tenantID string) func() {
	m, _ := sc.tenantMu.LoadOrStore(tenantID, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// forget drops a deleted tenant's lock, so that sandboxes creating many
// short-lived tenants do not grow.
func (sc *Scheduler) forget(tenantID string) { sc.tenantMu.Delete(tenantID) }

// Run processes due jobs, and tenant expiries (wall clock, ExpireTenants),
// until ctx is done.
func (sc *Scheduler) Run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	x := tenantExpiries{first: true}
	for {
		var wait time.Duration = time.Hour
		if tenantsAt := sc.expireTenants(&x); !tenantsAt.IsZero() {
			wait = min(wait, max(tenantsAt.Sub(sc.svc.clock.Now()), 0))
		}
		var j *simulator.Job
		err := sc.svc.store.View(func(tx simulator.Tx) (err error) { j, err = tx.NextJob(); return })
		if err != nil {
			sc.svc.log.Error("scheduler: reading jobs", "err", err)
			wait = min(wait, time.Second)
		} else if j != nil {
			jw := j.RealDue.Sub(sc.svc.clock.Now())
			if jw <= 0 {
				sc.runOne(ctx, j)
				if ctx.Err() != nil {
					return
				}
				continue
			}
			wait = min(wait, jw)
		}
		if wait <= 0 {
			continue // tenant expiries are due
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-sc.wake:
			x.refresh = sc.expiries.Swap(false)
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// tenantExpiries is what the loop knows of tenant expiries: expiryAt is the
// next tenant's ttl, read again when refresh is set (tenantExpiriesChanged);
// pruneAt is when the oldest expired-tenant record leaves its window. The
// first round runs ExpireTenants whatever is due, to learn pruneAt.
type tenantExpiries struct {
	expiryAt, pruneAt time.Time
	refresh, first    bool
}

// expireTenants runs ExpireTenants when a tenant expiry or prune is due (and
// on the first round), and answers when the next one is due (zero: none).
func (sc *Scheduler) expireTenants(x *tenantExpiries) time.Time {
	if x.refresh {
		x.refresh = false
		if err := sc.svc.store.View(func(tx simulator.Tx) (err error) { x.expiryAt, err = tx.NextTenantExpiry(); return }); err != nil {
			sc.svc.log.Error("scheduler: reading tenant expiries", "err", err)
			x.expiryAt = sc.svc.clock.Now().Add(time.Second)
		}
	}
	tenantsAt := earliest(x.expiryAt, x.pruneAt)
	if now := sc.svc.clock.Now(); x.first || (!tenantsAt.IsZero() && !now.Before(tenantsAt)) {
		x.first = false
		var err error
		if x.expiryAt, x.pruneAt, err = sc.svc.ExpireTenants(); err != nil {
			sc.svc.log.Error("scheduler: expiring tenants", "err", err)
			x.expiryAt, x.pruneAt = now.Add(time.Second), time.Time{}
		}
		if !x.expiryAt.IsZero() && !x.expiryAt.After(now) { // what is due was expired: an index entry it could not use
			x.expiryAt = now.Add(time.Second) // is looked at again later, not in a spin
		}
		tenantsAt = earliest(x.expiryAt, x.pruneAt)
	}
	return tenantsAt
}

// runOne runs job j, read before the tenant's lock was taken, as it is once
// the lock is held: a clock advance holding the lock meanwhile may have run
// it (a dispute's step would otherwise run twice, the second time taking the
// next step early) or moved it.
func (sc *Scheduler) runOne(ctx context.Context, j *simulator.Job) {
	unlock := sc.lock(j.TenantID)
	cur, err := sc.current(j)
	if err == nil && cur != nil {
		err = sc.svc.runJob(ctx, cur)
	}
	unlock()
	if err != nil {
		sc.svc.log.Error("scheduler: job failed; retrying in 1s", "job", j.ID, "kind", j.Kind, "tenant", j.TenantID, "err", err)
		_ = sc.svc.store.Update(func(tx simulator.Tx) error {
			cur, err := tx.Job(j.TenantID, j.ID)
			if err != nil || cur == nil {
				return err
			}
			cur.RealDue = simulator.NormTime(sc.svc.clock.Now().Add(time.Second))
			return tx.PutJob(cur)
		})
	}
}

// current answers job j as stored now, nil when it is gone or no longer due
// on the real clock (the loop reads it again when it is).
func (sc *Scheduler) current(j *simulator.Job) (*simulator.Job, error) {
	var cur *simulator.Job
	err := sc.svc.store.View(func(tx simulator.Tx) (err error) { cur, err = tx.Job(j.TenantID, j.ID); return })
	if err != nil || cur == nil || cur.RealDue.After(sc.svc.clock.Now()) {
		return nil, err
	}
	return cur, nil
}

// RunDue runs, in time order, every job of tenant t due at or before until
// (including jobs that running them schedules within the window).
func (sc *Scheduler) RunDue(ctx context.Context, t *simulator.Tenant, until time.Time) error {
	_, err := sc.runDue(ctx, t, until, until, false, time.Time{})
	return err
}

// runDue runs, in time order, every job of tenant t due at or before until
// (including jobs that running them schedules within the window) and, with
// hooks, every webhook attempt that falls due from from to until, each at
// its instant on the tenant clock: at one instant jobs go first, so the
// events they make are attempted at that instant. Waiting for attempts stops
// at deadline (real time); from then on only jobs run, and background
// delivery makes the attempts left once the caller releases its hold.
func (sc *Scheduler) runDue(ctx context.Context, t *simulator.Tenant, from, until time.Time, hooks bool, deadline time.Time) (fired []Fired, err error) {
	wh := sc.svc.webhooks
	hooks = hooks && wh != nil && wh.Settle(ctx, t.ID, deadline)
	cursor, stalls := from, 0
	for range 100000 {
		var jobs []*simulator.Job
		if err := sc.svc.store.View(func(tx simulator.Tx) (err error) { jobs, err = tx.DueJobs(t.ID, until, 1); return }); err != nil {
			return fired, err
		}
		var at time.Time
		due := false
		if hooks {
			at, due = wh.NextDue(t.ID, cursor)
			due = due && !at.After(until)
		}
		if len(jobs) > 0 && (!due || !jobs[0].Due.After(at)) {
			j := jobs[0]
			fired = append(fired, Fired{Kind: string(j.Kind), At: j.Due, PaymentID: j.PaymentID, AttemptID: j.AttemptID})
			if j.Due.After(cursor) {
				cursor = j.Due
			}
			if err := sc.svc.runJob(ctx, j); err != nil {
				return fired, err
			}
			continue
		}
		if !due {
			return fired, nil
		}
		ran, done := wh.RunAt(ctx, t.ID, at, deadline)
		fired = append(fired, ran...)
		cursor = at
		if stalls++; len(ran) > 0 {
			stalls = 0
		}
		// Past the bound, or an instant that keeps running nothing (its
		// events changed under it): background delivery takes the rest.
		if !done || stalls > 2 {
			hooks = false
		}
	}
	return fired, nil
}

// AdvanceClock moves tenant t's clock forward by d and runs everything that
// falls due, in time order, before it returns the new now.
func (s *Service) AdvanceClock(ctx context.Context, t *simulator.Tenant, d time.Duration) (time.Time, error) {
	now, _, err := s.AdvanceClockFired(ctx, t, d)
	return now, err
}

// AdvanceClockFired is AdvanceClock that also answers what it ran, in time
// order: the scheduled jobs and the webhook attempts that fell due within
// the advance, each at its instant on the tenant clock. It waits for the
// attempts up to AdvanceWait; those still in flight then are answered as
// Pending and finish on their own. A duration that is not positive, or that
// would overflow the tenant clock, is a 422 at $.duration: the clock never
// goes backwards.
func (s *Service) AdvanceClockFired(ctx context.Context, t *simulator.Tenant, d time.Duration) (time.Time, []Fired, error) {
	if d <= 0 {
		return time.Time{}, nil, errAdvance("duration must be positive")
	}
	unlock := s.sched.lock(t.ID)
	defer unlock()
	defer s.store.Hold(t.ID)() // the advance's transactions and the attempts it waits for use the tenant's data
	deadline := time.Now().Add(s.advanceWait)
	if s.webhooks != nil {
		defer s.webhooks.Hold(t.ID)()
	}
	var cur *simulator.Tenant
	err := s.store.Update(func(tx simulator.Tx) error {
		var err error
		if cur, err = tx.Tenant(t.ID); err != nil || cur == nil {
			return err
		}
		if cur.ClockOffset > math.MaxInt64-d { // the clock never wraps (and so never goes back)
			return errAdvance(fmt.Sprintf("duration would overflow the tenant clock (it can still move %s)", time.Duration(math.MaxInt64-cur.ClockOffset)))
		}
		cur.ClockOffset += d
		if err := tx.PutTenant(cur); err != nil {
			return err
		}
		jobs, err := tx.DueJobs(t.ID, time.Unix(1<<40, 0), 0)
		if err != nil {
			return err
		}
		for _, j := range jobs { // remap to the new offset
			j.RealDue = simulator.NormTime(j.Due.Add(-cur.ClockOffset))
			if err := tx.PutJob(j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return time.Time{}, nil, err
	}
	if cur == nil {
		return time.Time{}, nil, simulator.Errorf(simulator.CodeUnauthorized, "The tenant no longer exists")
	}
	now := s.now(cur)
	fired, err := s.sched.runDue(ctx, cur, now.Add(-d), now, true, deadline)
	s.Kick()
	return now, fired, err
}

// errAdvance is the 422 of a clock advance that is not positive or would overflow.
func errAdvance(why string) error {
	return simulator.ValidationError("ClockAdvanceRequest", simulator.FieldError{Path: "$.duration", Description: why})
}

// runJob executes one job: the effect and the job's deletion share a
// transaction. The interceptors are around it (tracing: one job span, of
// the clock advance's trace when one runs it, else the root of its own).
func (s *Service) runJob(ctx context.Context, j *simulator.Job) error {
	if !s.observers.Intercepted() {
		return s.job(ctx, j)
	}
	return s.observers.Job(ctx, j, func(ctx context.Context) error { return s.job(ctx, j) })
}

// job runs j (runJob).
func (s *Service) job(ctx context.Context, j *simulator.Job) error {
	var t *simulator.Tenant
	if err := s.store.View(func(tx simulator.Tx) (err error) { t, err = tx.Tenant(j.TenantID); return }); err != nil {
		return err
	}
	if t == nil { // tenant gone: drop the job
		return s.store.Update(func(tx simulator.Tx) error { return tx.DeleteJob(j) })
	}
	switch j.Kind {
	case simulator.JobAuthorize:
		return s.authorizeJob(ctx, t, j)
	case simulator.JobExpireTenant: // a ttl runs on the wall clock (ExpireTenants), not as a job: a stored one is dropped
		return s.store.Update(func(tx simulator.Tx) error { return tx.DeleteJob(j) })
	case simulator.JobExpireAttempt:
		return s.update(ctx, func(tx simulator.Tx) error {
			if err := tx.DeleteJob(j); err != nil {
				return err
			}
			return s.expireAttemptJob(tx, t, j, s.now(t))
		})
	case simulator.JobDisputeStatus:
		return s.disputeStepJob(ctx, t, j)
	case simulator.JobDispute:
		var amount *int64
		if j.Dispute != nil && j.Dispute.Amount > 0 {
			amount = &j.Dispute.Amount
		}
		_, err := s.openDispute(ctx, t, j.PaymentID, j.Reason, amount, j)
		if simulator.ErrorCode(err) != "" { // payment gone or not disputable: drop
			return s.store.Update(func(tx simulator.Tx) error { return tx.DeleteJob(j) })
		}
		return err
	}
	var note *timeoutNote // the migration note of a resolved timeout, counted once committed
	_, err := s.mutatePaymentAt(ctx, t, j.PaymentID, "", j.Due, func(tx simulator.Tx, p *simulator.Payment, now time.Time) error {
		note = nil
		if cur, err := tx.Job(t.ID, j.ID); err != nil || cur == nil {
			return errorsJoin(err, errNoChange)
		}
		if err := tx.DeleteJob(j); err != nil {
			return err
		}
		switch j.Kind {
		case simulator.JobResolveTimeout:
			note = timeoutMigration(p, now)
			return s.resolveTimeout(ctx, tx, t, p, now)
		case simulator.JobSettle:
			settle(p, simulator.PaymentStatus(j.Status))
		case simulator.JobResolveRefund:
			return s.resolveRefund(tx, p, j, now)
		}
		return nil
	})
	if simulator.ErrorCode(err) == simulator.CodePaymentError { // payment gone (reset): drop the job
		return s.store.Update(func(tx simulator.Tx) error { return tx.DeleteJob(j) })
	}
	if err == nil && note != nil {
		s.Publish(observe.Happening{Kind: observe.DifferenceHit, TenantID: t.ID, RequestID: note.requestID, At: note.at,
			Differences: []observe.Difference{note.hit}})
	}
	return err
}

// timeoutNote is the migration note of a timeout resolved below 2.4,
// counted for the request that got the timeout's 504.
type timeoutNote struct {
	hit       observe.Difference
	requestID string
	at        time.Time
}

// timeoutMigration is the note resolveTimeout's change to p will hit (nil:
// none): a timeout of a payment made with a version that has no
// GATEWAY_TIMEOUT decision type, resolving to a decline or failure.
func timeoutMigration(p *simulator.Payment, now time.Time) *timeoutNote {
	if p.Status != simulator.StatusPending || p.Timeout == nil || p.Timeout.ResolveTo == simulator.StatusAuthorized ||
		!p.APIVersion.Has(simulator.DiffGatewayTimeout) {
		return nil
	}
	return &timeoutNote{
		hit: observe.Difference{Kind: simulator.DiffGatewayTimeout,
			Message: "This payment's timeout resolved with statusReason type APPLICATION_ERROR on " + string(p.APIVersion) + "; on 2.4 the type is GATEWAY_TIMEOUT"},
		requestID: p.Timeout.RequestID, at: now,
	}
}

// settle resolves a SETTLING payment to status (SETTLED or FAILED, with the
// default reason); a payment that may no longer settle is left as it is.
func settle(p *simulator.Payment, status simulator.PaymentStatus) {
	if p.CheckSettle() != nil {
		return
	}
	p.Status = status
	if sale := p.Sale(); sale != nil {
		sale.ProcessorStatus = p.Status
	}
	if p.Status == simulator.StatusFailed {
		p.StatusReason = simulator.DefaultReason(simulator.StatusFailed)
	}
}

// earliest is the earlier of two instants, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// authorizeJob authorizes a PENDING payment in the background (after approve,
// or after a restart cut a synchronous authorization short).
func (s *Service) authorizeJob(ctx context.Context, t *simulator.Tenant, j *simulator.Job) error {
	p, err := s.Payment(t, j.PaymentID)
	if err != nil || p.Status != simulator.StatusPending || p.Processor != nil || p.ThreeDS != nil || p.Timeout != nil {
		return s.store.Update(func(tx simulator.Tx) error { return tx.DeleteJob(j) })
	}
	d := s.processor.Authorize(ctx, t, p)
	_, err = s.applyAuthorization(ctx, t, p.ID, d, false, "")
	return err
}

// resolveTimeout ends a gateway timeout as the scenario said.
func (s *Service) resolveTimeout(ctx context.Context, tx simulator.Tx, t *simulator.Tenant, p *simulator.Payment, now time.Time) error {
	if p.Status != simulator.StatusPending || p.Timeout == nil {
		return nil
	}
	to := p.Timeout.ResolveTo
	p.Timeout = nil
	var acct simulator.ProcessorAccount
	if p.Plan != nil && len(p.Plan.Steps) > 0 {
		acct = p.Plan.Steps[0].Account // the processor that timed out (stored: no store read inside this transaction)
	} else {
		acct = s.processor.Accounts(t)[0]
	}
	st := simulator.AuthStep{Account: acct, Status: to}
	if to != simulator.StatusAuthorized {
		st.Reason = &simulator.StatusReason{Type: "GATEWAY_TIMEOUT", Code: "ERROR", Message: "The processor did not answer in time"}
		if p.APIVersion.Has(simulator.DiffGatewayTimeout) {
			st.Reason.Type = "APPLICATION_ERROR"
		}
		if to != simulator.StatusDeclined {
			st.Status = simulator.StatusFailed
		}
	}
	return s.runSteps(ctx, tx, t, p, simulator.AuthorizeDecision{Steps: []simulator.AuthStep{st}}, now)
}

// resolveRefund settles or fails a PENDING refund.
func (s *Service) resolveRefund(tx simulator.Tx, p *simulator.Payment, j *simulator.Job, now time.Time) error {
	for i := range p.Transactions {
		txn := &p.Transactions[i]
		if txn.ID != j.TransactionID || txn.ProcessorStatus != simulator.StatusPending {
			continue
		}
		txn.ProcessorStatus = simulator.PaymentStatus(j.Status)
		if txn.ProcessorStatus == simulator.StatusSettled {
			p.Processor.AmountRefunded += txn.Amount
		} else {
			txn.ProcessorStatus = simulator.StatusFailed
			txn.ProcessorStatusReason = simulator.DefaultReason(simulator.StatusFailed)
			p.ReleaseRefund(txn.Allocations)
		}
		return s.appendEvent(tx, s.newEvent(simulator.EventPaymentRefund, p, now), p, nil)
	}
	return nil
}

// newJob makes a job due at due on t's clock.
func (s *Service) newJob(t *simulator.Tenant, kind simulator.JobKind, due time.Time) *simulator.Job {
	return &simulator.Job{
		ID: s.ids.NewID(simulator.IDUUID), TenantID: t.ID, Kind: kind,
		Due: simulator.NormTime(due), RealDue: simulator.NormTime(due.Add(-t.ClockOffset)),
	}
}

// UpcomingJobs lists the tenant's scheduled jobs in due order, at most
// limit of them (0: all).
func (s *Service) UpcomingJobs(t *simulator.Tenant, limit int) ([]*simulator.Job, error) {
	var jobs []*simulator.Job
	err := s.store.View(func(tx simulator.Tx) (err error) { jobs, err = tx.DueJobs(t.ID, time.Unix(1<<40, 0), limit); return })
	return jobs, err
}
