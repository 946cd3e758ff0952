package service

import (
	"context"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// AuthorizePayment authorizes a PENDING payment at the named merchant account.
// Errors: PaymentNotFoundError, MerchantAccountNotFound, PaymentAlreadyAuthorized,
// InvalidPaymentStatus, IdempotencyKeyAlreadyExists.
func (s *Service) AuthorizePayment(ctx context.Context, t *simulator.Tenant, id, merchantID, name, idemKey string) (*simulator.Payment, error) {
	var acct *simulator.ProcessorAccount
	for _, a := range s.processor.Accounts(t) {
		if a.ProcessorMerchantID == merchantID && (name == "" || a.Name == name) {
			a := a
			acct = &a
			break
		}
	}
	snap, err := s.preflight(t, id, idemKey) // 409 comes before 404 (docs/api.md)
	if err != nil {
		if simulator.ErrorCode(err) == simulator.CodePaymentError {
			return nil, simulator.Errorf(simulator.CodePaymentNotFoundError, "The payment could not be found")
		}
		return nil, err
	}
	if acct == nil {
		return nil, simulator.Errorf(simulator.CodeMerchantAccountNotFound, "The merchant account could not be found").
			WithRecovery("Use the processorMerchantId of a processor of the scenarios in force (GET /_sandbox/scenarios).")
	}
	if err := snap.CheckAuthorize(); err != nil {
		return nil, err
	}
	// The rules see the merchant account asked for (when processorMerchantId);
	// snap is this call's own read, the transaction below reads the payment again.
	snap.Processor = &simulator.ProcessorState{Name: acct.Name, ProcessorMerchantID: acct.ProcessorMerchantID}
	d := s.processor.Authorize(ctx, t, snap)
	fs := simulator.FinalStep(d)
	d.Steps = []simulator.AuthStep{{Account: *acct, Status: fs.Status, Reason: fs.Reason}}
	if fs.Status == "" {
		d.Steps[0].Status = simulator.StatusAuthorized
	}
	d.ThreeDS, d.Timeout = simulator.ThreeDSNone, nil
	return s.mutatePaymentKey(ctx, t, id, idemKey, func(tx simulator.Tx, p *simulator.Payment, now time.Time) error {
		if err := p.CheckAuthorize(); err != nil {
			return err
		}
		_ = tx.DeleteJob(&simulator.Job{ID: authJobID(p.ID), TenantID: t.ID})
		return s.runSteps(ctx, tx, t, p, d, now)
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
func (s *Service) CapturePayment(ctx context.Context, t *simulator.Tenant, id string, req CaptureRequest) (*simulator.Payment, error) {
	snap, err := s.preflight(t, id, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	amt, err := snap.CheckCapture(req.Amount)
	if err != nil {
		return nil, err
	}
	d := s.processor.Capture(ctx, t, snap, amt)
	return s.mutatePaymentKey(ctx, t, id, req.IdempotencyKey, func(tx simulator.Tx, p *simulator.Payment, now time.Time) error {
		amt, err := p.CheckCapture(req.Amount)
		if err != nil {
			return err
		}
		if len(req.Metadata) > 0 {
			merged := mergeMaps(p.Metadata, req.Metadata)
			if err := simulator.CheckMetadataSize("PaymentCaptureAPIRequest", "$.metadata", merged); err != nil {
				return err
			}
			p.Metadata = merged
		}
		sale := p.Sale()
		if d.Status == simulator.StatusFailed {
			r := d.Reason
			if r == nil {
				r = simulator.DefaultReason(simulator.StatusFailed)
			}
			p.Status, p.StatusReason = simulator.StatusFailed, r
			sale.ProcessorStatus, sale.ProcessorStatusReason = simulator.StatusFailed, r
			return nil
		}
		final := req.Final
		sale.Events = append(sale.Events, simulator.TransactionEvent{ID: s.ids.NewID(simulator.IDUUID), Date: now, Type: simulator.EventCaptureSucceeded, Amount: &amt, Final: &final})
		p.Processor.AmountCaptured += amt
		switch {
		case p.Captured() < p.Authorized:
			p.Status, p.FinalCaptured = simulator.StatusPartiallySettled, final
		case d.Status == simulator.StatusSettling:
			p.Status = simulator.StatusSettling
			j := s.newJob(t, simulator.JobSettle, now.Add(d.SettleAfter))
			j.PaymentID, j.Status = p.ID, string(d.SettleTo)
			if d.SettleTo == "" {
				j.Status = string(simulator.StatusSettled)
			}
			if err := tx.PutJob(j); err != nil {
				return err
			}
		default:
			p.Status = simulator.StatusSettled
		}
		sale.ProcessorStatus = p.Status
		return nil
	})
}

// preflight reads the payment for a decision taken outside the store
// transaction, after the idempotency check (409 comes before existence). The
// payment is Service.Payment's: shared, not to be changed (the transaction
// that acts reads it again).
func (s *Service) preflight(t *simulator.Tenant, id, idemKey string) (*simulator.Payment, error) {
	if err := s.checkIdempotencyKey(t, idemKey); err != nil {
		return nil, err
	}
	return s.Payment(t, id)
}

// CancelPayment voids a PENDING or AUTHORIZED payment.
// Errors: PaymentError, InvalidPaymentStatus, IdempotencyKeyAlreadyExists.
func (s *Service) CancelPayment(ctx context.Context, t *simulator.Tenant, id, reason, idemKey string) (*simulator.Payment, error) {
	return s.mutatePaymentKey(ctx, t, id, idemKey, func(tx simulator.Tx, p *simulator.Payment, now time.Time) error {
		if err := p.CheckCancel(); err != nil {
			return err
		}
		if p.ThreeDS != nil {
			if err := tx.DeleteChallenge(p.ThreeDS.ChallengeToken); err != nil {
				return err
			}
		}
		p.Status, p.Required, p.ThreeDS, p.Timeout = simulator.StatusCancelled, nil, nil, nil
		if sale := p.Sale(); sale != nil && sale.ProcessorStatus == simulator.StatusAuthorized {
			sale.ProcessorStatus = simulator.StatusCancelled
			sale.Events = append(sale.Events, simulator.TransactionEvent{ID: s.ids.NewID(simulator.IDUUID), Date: now, Type: simulator.EventCancellationSucceeded})
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
func (s *Service) RefundPayment(ctx context.Context, t *simulator.Tenant, id string, req RefundRequest) (*simulator.Payment, error) {
	snap, err := s.preflight(t, id, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	amt, err := snap.CheckRefund(req.Amount, req.TransactionEventID)
	if err != nil {
		return nil, err
	}
	d := s.processor.Refund(ctx, t, snap, amt)
	var refundEvent *simulator.Event
	p, err := s.mutatePaymentKey(ctx, t, id, req.IdempotencyKey, func(tx simulator.Tx, p *simulator.Payment, now time.Time) error {
		amt, err := p.CheckRefund(req.Amount, req.TransactionEventID)
		if err != nil {
			return err
		}
		txn := simulator.Transaction{
			ID: s.ids.NewID(simulator.IDUUID), Type: simulator.TxnRefund, Date: now, Amount: amt, CurrencyCode: p.CurrencyCode,
			ProcessorStatus: d.Status, ProcessorName: p.Processor.Name, ProcessorMerchantID: p.Processor.ProcessorMerchantID,
			ProcessorTransactionID: simulator.NewProcessorID(s.ids, simulator.IDProcessorTxn, p.Processor.Name), CardTokenType: p.CardTokenType,
			Reason: req.Reason, CaptureEventID: req.TransactionEventID,
		}
		if d.Status == simulator.StatusFailed {
			txn.ProcessorStatusReason = d.Reason
			if txn.ProcessorStatusReason == nil {
				txn.ProcessorStatusReason = simulator.DefaultReason(simulator.StatusFailed)
			}
		} else {
			txn.Allocations = p.AllocateRefund(amt, req.TransactionEventID)
		}
		switch d.Status {
		case simulator.StatusSettled:
			p.Processor.AmountRefunded += amt
		case simulator.StatusPending:
			j := s.newJob(t, simulator.JobResolveRefund, now.Add(d.After))
			j.PaymentID, j.TransactionID, j.Status = p.ID, txn.ID, string(d.ResolveTo)
			if d.ResolveTo == "" {
				j.Status = string(simulator.StatusSettled)
			}
			if err := tx.PutJob(j); err != nil {
				return err
			}
		}
		p.Transactions = append(p.Transactions, txn)
		if d.Status != simulator.StatusPending {
			refundEvent = s.newEvent(simulator.EventPaymentRefund, p, now)
			return s.appendEvent(tx, refundEvent, p, nil)
		}
		return nil
	})
	return p, err
}

// ResumePayment continues a payment after its 3DS challenge was answered.
// Errors: PaymentError, InvalidPaymentStatus, RequestValidationError
// ($.resumeToken), IdempotencyKeyAlreadyExists.
func (s *Service) ResumePayment(ctx context.Context, t *simulator.Tenant, id, resumeToken, idemKey string) (*simulator.Payment, error) {
	snap, err := s.preflight(t, id, idemKey)
	if err != nil {
		return nil, err
	}
	if err := snap.CheckResume(resumeToken); err != nil {
		return nil, err
	}
	var d simulator.AuthorizeDecision
	if snap.ThreeDS.Result == simulator.ThreeDSAuthSuccess {
		if snap.Plan != nil { // the decision taken at creation, not the rules in force now
			d = snap.Plan.Decision()
		} else {
			d = s.processor.Authorize(ctx, t, snap)
		}
	}
	return s.mutatePaymentKey(ctx, t, id, idemKey, func(tx simulator.Tx, p *simulator.Payment, now time.Time) error {
		if err := p.CheckResume(resumeToken); err != nil {
			return err
		}
		if err := tx.DeleteChallenge(p.ThreeDS.ChallengeToken); err != nil {
			return err
		}
		result := p.ThreeDS.Result
		p.PaymentMethod.ThreeDSecure = &simulator.ThreeDSecure{ResponseCode: result, ProtocolVersion: "2.2.0", ChallengeIssued: true}
		if result == simulator.ThreeDSAuthFailed {
			p.PaymentMethod.ThreeDSecure.ReasonCode = "CARD_AUTHENTICATION_FAILED"
			s.decline(p, now, simulator.AuthFailed3DS())
			return nil
		}
		p.ThreeDS, p.Required = nil, nil
		return s.runSteps(ctx, tx, t, p, d, now)
	})
}

// ChallengePayment reads the payment whose 3DS challenge takes the
// shopper's answer at challengeToken (the challenge page shows it; see
// simulator.Payment.CheckChallengeAnswer). Errors:
// ClientSessionValidationError (no such challenge, or none awaiting an
// answer).
func (s *Service) ChallengePayment(challengeToken string) (*simulator.Payment, error) {
	if challengeToken == "" {
		return nil, simulator.ErrClientToken()
	}
	var p *simulator.Payment
	if err := s.store.View(func(tx simulator.Tx) (err error) { p, err = tx.PaymentByChallenge(challengeToken); return }); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, s.errClientToken(challengeToken)
	}
	if err := p.CheckChallengeAnswer(challengeToken); err != nil {
		return nil, err
	}
	return p, nil
}

// AnswerChallenge records the shopper's 3DS result for the challenge whose
// requiredAction.clientToken is challengeToken and hands out the resumeToken.
// Errors: ClientSessionValidationError (unknown challenge), RequestValidationError.
func (s *Service) AnswerChallenge(challengeToken, result string) (string, *simulator.Payment, error) {
	if result != simulator.ThreeDSAuthSuccess && result != simulator.ThreeDSAuthFailed {
		return "", nil, simulator.ValidationError("ThreeDSChallengeRequest", simulator.FieldError{Path: "$.result", Description: "result must be AUTH_SUCCESS or AUTH_FAILED"})
	}
	var snap *simulator.Payment
	if err := s.store.View(func(tx simulator.Tx) (err error) { snap, err = tx.PaymentByChallenge(challengeToken); return }); err != nil {
		return "", nil, err
	}
	if snap == nil {
		return "", nil, s.errClientToken(challengeToken)
	}
	t, err := s.Tenant(snap.TenantID)
	if err != nil {
		return "", nil, err
	}
	var resume string
	// Untraced (no context here): the answer changes no status, so makes no event.
	p, err := s.mutatePayment(context.Background(), t, snap.ID, func(tx simulator.Tx, p *simulator.Payment, now time.Time) error {
		if err := p.CheckChallengeAnswer(challengeToken); err != nil {
			return err
		}
		p.ThreeDS.Result = result
		if p.ThreeDS.ResumeToken == "" {
			p.ThreeDS.ResumeToken = s.ids.NewID(simulator.IDUUID)
		}
		resume = p.ThreeDS.ResumeToken
		return nil
	})
	return resume, p, err
}

// CompleteChallenge is the control plane's shortcut: answer the challenge and resume.
// Errors: PaymentError, InvalidPaymentStatus, RequestValidationError.
func (s *Service) CompleteChallenge(ctx context.Context, t *simulator.Tenant, id, result string) (*simulator.Payment, error) {
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

// processorName is the processor that authorized p ("" before any did).
func processorName(p *simulator.Payment) string {
	if p.Processor == nil {
		return ""
	}
	return p.Processor.Name
}
