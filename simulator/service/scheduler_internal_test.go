package service

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// disputeProcessor authorizes as the fake does and schedules a dispute
// with scripted steps (what a scenario's dispute.then makes).
type disputeProcessor struct {
	*processors.Fake
	plan simulator.DisputeDecision
}

func (p disputeProcessor) Authorize(ctx context.Context, t *simulator.Tenant, pay *simulator.Payment) simulator.AuthorizeDecision {
	d := p.Fake.Authorize(ctx, t, pay)
	plan := p.plan
	d.Dispute = &plan
	return d
}

// The loop reads a job before it takes the tenant's lock; a clock advance
// holding the lock meanwhile may run or move it. runOne runs the job as it
// is once it holds the lock: a dispute step an advance ran is not run a
// second time (which would take the next step, LOST, a day early).
func TestSchedulerRunsAJobAsStoredWhenItHoldsTheLock(t *testing.T) {
	tests := []struct {
		name string
		// meanwhile is what happens between the loop's read and its lock.
		meanwhile  func(t *testing.T, s *Service, clk *clock.Manual, tn *simulator.Tenant, j *simulator.Job)
		wantStatus string
		wantSteps  int
	}{
		{"an advance ran it", func(t *testing.T, s *Service, _ *clock.Manual, tn *simulator.Tenant, _ *simulator.Job) {
			_, err := s.AdvanceClock(context.Background(), tn, 2*time.Hour)
			require.NoError(t, err)
		}, "CHALLENGED", 1},
		{"it was moved later", func(t *testing.T, s *Service, clk *clock.Manual, _ *simulator.Tenant, j *simulator.Job) {
			clk.Advance(2 * time.Hour) // due on the clock the loop read it with
			require.NoError(t, s.store.Update(func(tx simulator.Tx) error {
				cur, err := tx.Job(j.TenantID, j.ID)
				require.NoError(t, err)
				require.NotNil(t, cur)
				cur.RealDue = clk.Now().Add(time.Hour)
				return tx.PutJob(cur)
			}))
		}, "OPEN", 0},
		{"nothing: it runs", func(_ *testing.T, _ *Service, clk *clock.Manual, _ *simulator.Tenant, _ *simulator.Job) {
			clk.Advance(2 * time.Hour)
		}, "CHALLENGED", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
			require.NoError(t, err)
			t.Cleanup(func() { _ = db.Close() })
			catalog, err := cards.Parse(fixtures.Cards)
			require.NoError(t, err)
			clk := clock.NewManual(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC))
			proc := disputeProcessor{Fake: processors.NewFake(nil, nil), plan: simulator.DisputeDecision{After: time.Minute, Reason: "FRAUDULENT",
				Then: []simulator.DisputeStep{{Status: "CHALLENGED", After: time.Hour}, {Status: "LOST", After: 24 * time.Hour}}}}
			s := NewService(db, clk, &idgen.Seq{}, catalog, proc, nil, Config{})
			tn, err := s.EnsureTenant(TenantSpec{ID: "t1", SigningSecret: "s", APIKeys: []simulator.APIKey{{Key: "k", Scopes: simulator.AllScopes}}})
			require.NoError(t, err)
			amount := int64(9100)
			cs, err := s.CreateSession(tn, simulator.SessionData{OrderID: "o", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalAuto)
			require.NoError(t, err)
			tk, err := s.Tokenize(cs.ClientToken, CardInput{Number: "4111111111111111", CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030"})
			require.NoError(t, err)
			p, err := s.CreatePayment(context.Background(), tn, PaymentRequest{Token: tk.Instrument.Token})
			require.NoError(t, err)
			_, err = s.AdvanceClock(context.Background(), tn, time.Minute) // the dispute opens; its first step is due at +1h1m
			require.NoError(t, err)
			tn, err = s.Tenant(tn.ID)
			require.NoError(t, err)

			var read *simulator.Job // what the loop read
			require.NoError(t, db.View(func(tx simulator.Tx) error {
				jobs, err := tx.DueJobs(tn.ID, time.Unix(1<<40, 0), 0)
				require.Len(t, jobs, 1)
				read = jobs[0]
				return err
			}))
			require.Equal(t, simulator.JobDisputeStatus, read.Kind)

			tc.meanwhile(t, s, clk, tn, read)
			s.sched.runOne(context.Background(), read)

			ds, err := s.Disputes(tn, p.ID)
			require.NoError(t, err)
			require.Len(t, ds, 1)
			assert.Equal(t, tc.wantStatus, string(ds[0].Status))
			evs, err := s.Events(tn, simulator.EventQuery{Type: simulator.EventDisputeStatus})
			require.NoError(t, err)
			assert.Len(t, evs, tc.wantSteps, "one DISPUTE.STATUS per step taken")
		})
	}
}
