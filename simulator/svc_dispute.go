package simulator

import "time"

// OpenDispute opens a dispute on an authorized or settled payment and sends
// DISPUTE.OPENED (control plane). amount nil disputes what was captured (or
// authorized). Errors: PaymentError, InvalidPaymentStatus, RequestValidationError.
func (s *Service) OpenDispute(t *Tenant, paymentID, reason string, amount *int64) (*Dispute, error) {
	return s.openDispute(t, paymentID, reason, amount, nil)
}

func (s *Service) openDispute(t *Tenant, paymentID, reason string, amount *int64, job *Job) (*Dispute, error) {
	if reason == "" {
		reason = "FRAUDULENT"
	}
	var out *Dispute
	err := s.Store.Update(func(tx Tx) error {
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
			return errPaymentNotFound()
		}
		switch p.Status {
		case StatusAuthorized, StatusSettling, StatusPartiallySettled, StatusSettled:
		default:
			return Errorf(CodeInvalidPaymentStatus, "A %s payment cannot be disputed", lower(p.Status)).WithPayment(p)
		}
		amt := p.Captured()
		if amt == 0 {
			amt = p.Authorized
		}
		if job != nil && p.Plan != nil && p.Plan.Dispute != nil && p.Plan.Dispute.Amount > 0 {
			amt = min(p.Plan.Dispute.Amount, p.Amount) // the scenario's dispute.amount
		}
		if amount != nil {
			if *amount <= 0 || *amount > p.Amount {
				return ValidationError("DisputeRequest", FieldError{Path: "$.amount", Description: "amount must be between 1 and the payment amount"})
			}
			amt = *amount
		}
		now := s.now(t)
		d := &Dispute{ID: s.IDs.NewID(IDUUID), PaymentID: p.ID, Reason: reason, Amount: amt, OpenedAt: now}
		if sale := p.sale(); sale != nil {
			d.TransactionID = sale.ProcessorTransactionID
		}
		ev := s.newEvent(EventDisputeOpened, p, now)
		ev.Dispute = d
		out = d
		return tx.AppendEvent(ev)
	})
	return out, err
}

// SettleNow moves a SETTLING payment to SETTLED at once (control plane).
// Errors: PaymentError, InvalidPaymentStatus.
func (s *Service) SettleNow(t *Tenant, id string) (*Payment, error) {
	return s.mutatePayment(t, id, func(tx Tx, p *Payment, now time.Time) error {
		if p.Status != StatusSettling {
			return Errorf(CodeInvalidPaymentStatus, "Only a settling payment can be settled; this one is %s", p.Status).WithPayment(p)
		}
		p.Status = StatusSettled
		if sale := p.sale(); sale != nil {
			sale.ProcessorStatus = StatusSettled
		}
		return nil
	})
}
