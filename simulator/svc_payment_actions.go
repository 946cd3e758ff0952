package simulator

import (
	"context"
	"time"
)

// AuthorizePayment authorizes a PENDING payment at the named merchant account.
// Errors: PaymentNotFoundError, MerchantAccountNotFound, PaymentAlreadyAuthorized,
// InvalidPaymentStatus, IdempotencyKeyAlreadyExists.
func (s *Service) AuthorizePayment(ctx context.Context, t *Tenant, id, merchantID, name, idemKey string) (*Payment, error) {
	var acct *ProcessorAccount
	for _, a := range s.Processor.Accounts(t.ID) {
		if a.ProcessorMerchantID == merchantID && (name == "" || a.Name == name) {
			a := a
			acct = &a
			break
		}
	}
	snap, err := s.preflight(t, id, idemKey) // 409 comes before 404 (SANDBOX.md section 11)
	if err != nil {
		if ErrorCode(err) == CodePaymentError {
			return nil, Errorf(CodePaymentNotFoundError, "The payment could not be found")
		}
		return nil, err
	}
	if acct == nil {
		return nil, Errorf(CodeMerchantAccountNotFound, "The merchant account could not be found").
			WithRecovery("Use the processorMerchantId of a processor of the scenarios in force (GET /_sandbox/scenarios).")
	}
	if err := snap.CheckAuthorize(); err != nil {
		return nil, err
	}
	probe := snap.Clone() // the rules see the merchant account asked for (when processorMerchantId)
	probe.Processor = &ProcessorState{Name: acct.Name, ProcessorMerchantID: acct.ProcessorMerchantID}
	d := s.Processor.Authorize(ctx, t.ID, probe)
	fs := finalStep(d)
	d.Steps = []AuthStep{{Account: *acct, Status: fs.Status, Reason: fs.Reason}}
	if fs.Status == "" {
		d.Steps[0].Status = StatusAuthorized
	}
	d.ThreeDS, d.Timeout = ThreeDSNone, nil
	return s.mutatePaymentKey(t, id, idemKey, func(tx Tx, p *Payment, now time.Time) error {
		if err := p.CheckAuthorize(); err != nil {
			return err
		}
		_ = tx.DeleteJob(&Job{ID: authJobID(p.ID), TenantID: t.ID})
		return s.runSteps(tx, t, p, d, now)
	})
}

// CaptureRequest is POST /payments/{id}/capture.
type CaptureRequest struct {
	Amount         *int64
	Final          bool
	Metadata       map[string]any
	IdempotencyKey string
}

// CapturePayment captures all (amount nil) or part of an authorized payment.
// Errors: PaymentError, InvalidPaymentStatus, RequestValidationError ($.amount),
// IdempotencyKeyAlreadyExists.
func (s *Service) CapturePayment(ctx context.Context, t *Tenant, id string, req CaptureRequest) (*Payment, error) {
	snap, err := s.preflight(t, id, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	amt, err := snap.CheckCapture(req.Amount)
	if err != nil {
		return nil, err
	}
	d := s.Processor.Capture(ctx, t.ID, snap, amt)
	return s.mutatePaymentKey(t, id, req.IdempotencyKey, func(tx Tx, p *Payment, now time.Time) error {
		amt, err := p.CheckCapture(req.Amount)
		if err != nil {
			return err
		}
		if len(req.Metadata) > 0 {
			merged := mergeMaps(p.Metadata, req.Metadata)
			if err := CheckMetadataSize("PaymentCaptureAPIRequest", "$.metadata", merged); err != nil {
				return err
			}
			p.Metadata = merged
		}
		sale := p.sale()
		if d.Status == StatusFailed {
			r := d.Reason
			if r == nil {
				r = defaultReason(StatusFailed)
			}
			p.Status, p.StatusReason = StatusFailed, r
			sale.ProcessorStatus, sale.ProcessorStatusReason = StatusFailed, r
			return nil
		}
		final := req.Final
		sale.Events = append(sale.Events, TransactionEvent{ID: s.IDs.NewID(IDUUID), Date: now, Type: EventCaptureSucceeded, Amount: &amt, Final: &final})
		p.Processor.AmountCaptured += amt
		switch {
		case p.Captured() < p.Authorized:
			p.Status, p.FinalCaptured = StatusPartiallySettled, final
		case d.Status == StatusSettling:
			p.Status = StatusSettling
			j := s.newJob(t, JobSettle, now.Add(d.SettleAfter))
			j.PaymentID, j.Status = p.ID, string(d.SettleTo)
			if d.SettleTo == "" {
				j.Status = string(StatusSettled)
			}
			if err := tx.PutJob(j); err != nil {
				return err
			}
		default:
			p.Status = StatusSettled
		}
		sale.ProcessorStatus = p.Status
		return nil
	})
}

// preflight reads the payment for a decision taken outside the store
// transaction, after the idempotency check (409 comes before existence). The
// payment is Service.Payment's: shared, not to be changed (the transaction
// that acts reads it again).
func (s *Service) preflight(t *Tenant, id, idemKey string) (*Payment, error) {
	if err := s.checkIdempotencyKey(t, idemKey); err != nil {
		return nil, err
	}
	return s.Payment(t, id)
}

// CancelPayment voids a PENDING or AUTHORIZED payment.
// Errors: PaymentError, InvalidPaymentStatus, IdempotencyKeyAlreadyExists.
func (s *Service) CancelPayment(ctx context.Context, t *Tenant, id, reason, idemKey string) (*Payment, error) {
	return s.mutatePaymentKey(t, id, idemKey, func(tx Tx, p *Payment, now time.Time) error {
		if err := p.CheckCancel(); err != nil {
			return err
		}
		if p.ThreeDS != nil {
			if err := tx.DeleteChallenge(p.ThreeDS.ChallengeToken); err != nil {
				return err
			}
		}
		p.Status, p.Required, p.ThreeDS, p.Timeout = StatusCancelled, nil, nil, nil
		if sale := p.sale(); sale != nil && sale.ProcessorStatus == StatusAuthorized {
			sale.ProcessorStatus = StatusCancelled
			sale.Events = append(sale.Events, TransactionEvent{ID: s.IDs.NewID(IDUUID), Date: now, Type: EventCancellationSucceeded})
			if reason != "" {
				sale.Reason = reason
			}
		}
		return nil
	})
}

// RefundRequest is POST /payments/{id}/refund.
type RefundRequest struct {
	Amount             *int64
	TransactionEventID string
	Reason             string
	OrderID            string
	IdempotencyKey     string
}

// RefundPayment refunds all that is left (amount nil) or part of a settled
// payment, optionally against one capture. The status stays; a REFUND
// transaction records the outcome. Errors: PaymentError, InvalidPaymentStatus,
// RequestValidationError, UnprocessableRefundAmount, PaymentAlreadyRefunded,
// IdempotencyKeyAlreadyExists.
func (s *Service) RefundPayment(ctx context.Context, t *Tenant, id string, req RefundRequest) (*Payment, error) {
	snap, err := s.preflight(t, id, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	amt, err := snap.CheckRefund(req.Amount, req.TransactionEventID)
	if err != nil {
		return nil, err
	}
	d := s.Processor.Refund(ctx, t.ID, snap, amt)
	var refundEvent *Event
	p, err := s.mutatePaymentKey(t, id, req.IdempotencyKey, func(tx Tx, p *Payment, now time.Time) error {
		amt, err := p.CheckRefund(req.Amount, req.TransactionEventID)
		if err != nil {
			return err
		}
		txn := Transaction{
			ID: s.IDs.NewID(IDUUID), Type: TxnRefund, Date: now, Amount: amt, CurrencyCode: p.CurrencyCode,
			ProcessorStatus: d.Status, ProcessorName: p.Processor.Name, ProcessorMerchantID: p.Processor.ProcessorMerchantID,
			ProcessorTransactionID: processorID(s.IDs, IDProcessorTxn, p.Processor.Name), CardTokenType: p.CardTokenType,
			Reason: req.Reason, CaptureEventID: req.TransactionEventID,
		}
		if d.Status == StatusFailed {
			txn.ProcessorStatusReason = d.Reason
			if txn.ProcessorStatusReason == nil {
				txn.ProcessorStatusReason = defaultReason(StatusFailed)
			}
		} else {
			txn.Allocations = p.allocateRefund(amt, req.TransactionEventID)
		}
		switch d.Status {
		case StatusSettled:
			p.Processor.AmountRefunded += amt
		case StatusPending:
			j := s.newJob(t, JobResolveRefund, now.Add(d.After))
			j.PaymentID, j.TransactionID, j.Status = p.ID, txn.ID, string(d.ResolveTo)
			if d.ResolveTo == "" {
				j.Status = string(StatusSettled)
			}
			if err := tx.PutJob(j); err != nil {
				return err
			}
		}
		p.Transactions = append(p.Transactions, txn)
		if d.Status != StatusPending {
			refundEvent = s.newEvent(EventPaymentRefund, p, now)
			return s.appendEvent(tx, refundEvent, p, nil)
		}
		return nil
	})
	return p, err
}

// allocateRefund spreads amt over the capture events (the targeted one, else
// oldest first) and marks it against them.
func (p *Payment) allocateRefund(amt int64, eventID string) map[string]int64 {
	alloc := map[string]int64{}
	for i := range p.Transactions {
		for j := range p.Transactions[i].Events {
			ev := &p.Transactions[i].Events[j]
			if ev.Type != EventCaptureSucceeded || (eventID != "" && ev.ID != eventID) || amt == 0 {
				continue
			}
			take := min(*ev.Amount-ev.Refunded, amt)
			if take > 0 {
				ev.Refunded += take
				alloc[ev.ID] = take
				amt -= take
			}
		}
	}
	return alloc
}

// releaseRefund undoes allocateRefund for a refund that failed.
func (p *Payment) releaseRefund(alloc map[string]int64) {
	for id, n := range alloc {
		if ev := p.CaptureEvent(id); ev != nil {
			ev.Refunded -= n
		}
	}
}

// ResumePayment continues a payment after its 3DS challenge was answered.
// Errors: PaymentError, InvalidPaymentStatus, RequestValidationError
// ($.resumeToken), IdempotencyKeyAlreadyExists.
func (s *Service) ResumePayment(ctx context.Context, t *Tenant, id, resumeToken, idemKey string) (*Payment, error) {
	snap, err := s.preflight(t, id, idemKey)
	if err != nil {
		return nil, err
	}
	if err := snap.CheckResume(resumeToken); err != nil {
		return nil, err
	}
	var d AuthorizeDecision
	if snap.ThreeDS.Result == ThreeDSAuthSuccess {
		if snap.Plan != nil { // the decision taken at creation, not the rules in force now
			d = snap.Plan.Decision()
		} else {
			d = s.Processor.Authorize(ctx, t.ID, snap)
		}
	}
	return s.mutatePaymentKey(t, id, idemKey, func(tx Tx, p *Payment, now time.Time) error {
		if err := p.CheckResume(resumeToken); err != nil {
			return err
		}
		if err := tx.DeleteChallenge(p.ThreeDS.ChallengeToken); err != nil {
			return err
		}
		result := p.ThreeDS.Result
		p.PaymentMethod.ThreeDSecure = &ThreeDSecure{ResponseCode: result, ProtocolVersion: "2.2.0", ChallengeIssued: true}
		if result == ThreeDSAuthFailed {
			p.PaymentMethod.ThreeDSecure.ReasonCode = "CARD_AUTHENTICATION_FAILED"
			s.decline(p, now, authFailed3DS())
			return nil
		}
		p.ThreeDS, p.Required = nil, nil
		return s.runSteps(tx, t, p, d, now)
	})
}

// AnswerChallenge records the shopper's 3DS result for the challenge whose
// requiredAction.clientToken is challengeToken and hands out the resumeToken.
// Errors: ClientSessionValidationError (unknown challenge), RequestValidationError.
func (s *Service) AnswerChallenge(challengeToken, result string) (string, *Payment, error) {
	if result != ThreeDSAuthSuccess && result != ThreeDSAuthFailed {
		return "", nil, ValidationError("ThreeDSChallengeRequest", FieldError{Path: "$.result", Description: "result must be AUTH_SUCCESS or AUTH_FAILED"})
	}
	var snap *Payment
	if err := s.Store.View(func(tx Tx) (err error) { snap, err = tx.PaymentByChallenge(challengeToken); return }); err != nil {
		return "", nil, err
	}
	if snap == nil {
		return "", nil, errClientToken()
	}
	t, err := s.Tenant(snap.TenantID)
	if err != nil {
		return "", nil, err
	}
	var resume string
	p, err := s.mutatePayment(t, snap.ID, func(tx Tx, p *Payment, now time.Time) error {
		if p.ThreeDS == nil || p.ThreeDS.ChallengeToken != challengeToken || p.Status != StatusPending {
			return errClientToken()
		}
		p.ThreeDS.Result = result
		if p.ThreeDS.ResumeToken == "" {
			p.ThreeDS.ResumeToken = s.IDs.NewID(IDUUID)
		}
		resume = p.ThreeDS.ResumeToken
		return nil
	})
	return resume, p, err
}

// CompleteChallenge is the control plane's shortcut: answer the challenge and resume.
// Errors: PaymentError, InvalidPaymentStatus, RequestValidationError.
func (s *Service) CompleteChallenge(ctx context.Context, t *Tenant, id, result string) (*Payment, error) {
	p, err := s.Payment(t, id)
	if err != nil {
		return nil, err
	}
	if err := p.CheckChallenge(); err != nil {
		return nil, err
	}
	resume, _, err := s.AnswerChallenge(p.ThreeDS.ChallengeToken, result)
	if err != nil {
		return nil, err
	}
	return s.ResumePayment(ctx, t, id, resume, "")
}
