package service

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// OpenDispute opens a dispute on an authorized or settled payment and sends
// DISPUTE.OPENED (control plane). amount nil disputes what was captured (or
// authorized). Errors: PaymentError, InvalidPaymentStatus, RequestValidationError.
func (s *Service) OpenDispute(ctx context.Context, t *simulator.Tenant, paymentID, reason string, amount *int64) (*simulator.Dispute, error) {
	return s.openDispute(ctx, t, paymentID, reason, amount, nil)
}

// openDispute opens a dispute; job is the scenario's JobDispute (deleted in
// the same transaction; its plan's Then steps are scheduled from the opening).
func (s *Service) openDispute(ctx context.Context, t *simulator.Tenant, paymentID, reason string, amount *int64, job *simulator.Job) (*simulator.Dispute, error) {
	if reason == "" {
		reason = simulator.DisputeReasons[0]
	}
	var out *simulator.Dispute
	err := s.update(ctx, func(tx simulator.Tx) error {
		if job != nil {
			if cur, err := tx.Job(t.ID, job.ID); err != nil || cur == nil {
				return err
			}
			if err := tx.DeleteJob(job); err != nil {
				return err
			}
		}
		p, err := tx.Payment(t.ID, paymentID)
		if err != nil {
			return err
		}
		if p == nil {
			return simulator.ErrPaymentNotFound()
		}
		if err := p.CheckDispute(); err != nil {
			return err
		}
		amt, err := disputeAmount(p, amount, job != nil)
		if err != nil {
			return err
		}
		now := s.now(t)
		if job != nil && job.Due.Before(now) { // opened at its due time, also when a clock advance jumped past it
			now = job.Due
		}
		d := &simulator.Dispute{
			ID: s.ids.NewID(simulator.IDUUID), TenantID: t.ID, PaymentID: p.ID, OrderID: p.OrderID, Reason: reason,
			Amount: amt, CurrencyCode: p.CurrencyCode, Status: simulator.DisputeOpen, Type: "DISPUTE", OpenedAt: now, UpdatedAt: now,
			PaymentMethodType: p.PaymentMethod.PaymentMethodType, Network: p.PaymentMethod.Data.BinData.Network,
		}
		if sale := p.Sale(); sale != nil {
			d.TransactionID = sale.ProcessorTransactionID
		}
		if p.Processor != nil {
			d.Processor, d.ProcessorMerchantID = p.Processor.Name, p.Processor.ProcessorMerchantID
		}
		if job != nil && job.Dispute != nil && len(job.Dispute.Then) > 0 {
			d.Then = slices.Clone(job.Dispute.Then)
			if err := s.scheduleDisputeStep(tx, t, d, now); err != nil {
				return err
			}
		}
		if err := tx.PutDispute(d); err != nil {
			return err
		}
		out = d
		return s.appendEvent(tx, s.newEvent(simulator.EventDisputeOpened, p, now), p, d)
	})
	if err == nil {
		s.Kick()
	}
	return out, err
}

// disputeAmount is the amount a dispute of p opens for: the amount asked
// (1 to the payment's amount), else the scenario's dispute.amount for a
// dispute a scenario scheduled, else the captured amount, else the
// authorized one. Errors: RequestValidationError ($.amount).
func disputeAmount(p *simulator.Payment, amount *int64, scheduled bool) (int64, error) {
	amt := p.Captured()
	if amt == 0 {
		amt = p.Authorized
	}
	if scheduled && p.Plan != nil && p.Plan.Dispute != nil && p.Plan.Dispute.Amount > 0 {
		amt = min(p.Plan.Dispute.Amount, p.Amount) // the scenario's dispute.amount
	}
	if amount != nil {
		if *amount <= 0 || *amount > p.Amount {
			return 0, simulator.ValidationError("DisputeRequest", simulator.FieldError{Path: "$.amount", Description: "amount must be between 1 and the payment amount"})
		}
		amt = *amount
	}
	return amt, nil
}

// scheduleDisputeStep stores the job of d's next scripted step, due its After
// past from.
func (s *Service) scheduleDisputeStep(tx simulator.Tx, t *simulator.Tenant, d *simulator.Dispute, from time.Time) error {
	j := s.newJob(t, simulator.JobDisputeStatus, from.Add(d.Then[0].After))
	j.PaymentID, j.DisputeID = d.PaymentID, d.ID
	return tx.PutJob(j)
}

// disputeStepJob runs a dispute's next scripted step and schedules the one
// after it, in one transaction with the job's deletion.
func (s *Service) disputeStepJob(ctx context.Context, t *simulator.Tenant, j *simulator.Job) error {
	err := s.update(ctx, func(tx simulator.Tx) error {
		if err := tx.DeleteJob(j); err != nil {
			return err
		}
		d, err := tx.Dispute(t.ID, j.DisputeID)
		if err != nil || d == nil || len(d.Then) == 0 {
			return err
		}
		step := d.Then[0]
		d.Then = d.Then[1:]
		now := s.now(t)
		if j.Due.Before(now) { // moved at its due time, also when a clock advance jumped past it
			now = j.Due
		}
		if len(d.Then) > 0 {
			if err := s.scheduleDisputeStep(tx, t, d, j.Due); err != nil {
				return err
			}
		}
		return s.moveDispute(tx, t, d, step.Status, "", now)
	})
	if err == nil {
		s.Kick()
	}
	return err
}

// SetDisputeStatus moves a dispute to status (and type, when given) and sends
// DISPUTE.STATUS. Errors: RequestValidationError (bad status or type),
// NotFound (no such dispute of this tenant).
func (s *Service) SetDisputeStatus(ctx context.Context, t *simulator.Tenant, id string, status simulator.DisputeStatus, typ string) (*simulator.Dispute, error) {
	var errs []simulator.FieldError
	if !status.IsMove() {
		errs = append(errs, simulator.FieldError{Path: "$.status", Description: "status must be one of " + strings.Join(simulator.Names(simulator.DisputeMoves), ", ")})
	}
	if typ != "" && !slices.Contains(simulator.DisputeTypes, typ) {
		errs = append(errs, simulator.FieldError{Path: "$.type", Description: "type must be one of " + strings.Join(simulator.DisputeTypes, ", ")})
	}
	if len(errs) > 0 {
		return nil, simulator.ValidationError("DisputeStatusRequest", errs...)
	}
	var out *simulator.Dispute
	err := s.update(ctx, func(tx simulator.Tx) error {
		d, err := tx.Dispute(t.ID, id)
		if err != nil {
			return err
		}
		if d == nil {
			return simulator.Errorf(simulator.CodeNotFound, "No dispute %q in this tenant", id)
		}
		out = d
		return s.moveDispute(tx, t, d, status, typ, s.now(t))
	})
	if err == nil {
		s.Kick()
	}
	return out, err
}

// moveDispute stores d in its new status and appends DISPUTE.STATUS.
func (s *Service) moveDispute(tx simulator.Tx, t *simulator.Tenant, d *simulator.Dispute, status simulator.DisputeStatus, typ string, now time.Time) error {
	d.Status, d.UpdatedAt = status, now
	if typ != "" {
		d.Type = typ
	}
	if err := tx.PutDispute(d); err != nil {
		return err
	}
	p, err := tx.Payment(t.ID, d.PaymentID)
	if err != nil {
		return err
	}
	if p == nil { // the payment is gone (reset): the dispute record stays, with no event
		return nil
	}
	return s.appendEvent(tx, s.newEvent(simulator.EventDisputeStatus, p, now), p, d)
}

// Disputes lists the tenant's disputes, newest first, of one payment when
// paymentID is set.
func (s *Service) Disputes(t *simulator.Tenant, paymentID string) ([]*simulator.Dispute, error) {
	out, _, err := s.DisputesAndUnreadable(t, paymentID)
	return out, err
}

// DisputesAndUnreadable is Disputes, and the keys of the disputes left out
// because their records do not decode.
func (s *Service) DisputesAndUnreadable(t *simulator.Tenant, paymentID string) ([]*simulator.Dispute, []string, error) {
	var out []*simulator.Dispute
	var unreadable []string
	err := s.store.View(func(tx simulator.Tx) (err error) {
		out, err = tx.Disputes(t.ID, paymentID)
		unreadable = unreadableKeys(tx)
		return
	})
	return out, unreadable, err
}

// SettleNow moves a SETTLING payment to SETTLED at once (control plane).
// Errors: PaymentError, InvalidPaymentStatus.
func (s *Service) SettleNow(ctx context.Context, t *simulator.Tenant, id string) (*simulator.Payment, error) {
	return s.mutatePayment(ctx, t, id, func(tx simulator.Tx, p *simulator.Payment, now time.Time) error {
		if err := p.CheckSettle(); err != nil {
			return err
		}
		p.Status = simulator.StatusSettled
		if sale := p.Sale(); sale != nil {
			sale.ProcessorStatus = simulator.StatusSettled
		}
		return nil
	})
}
