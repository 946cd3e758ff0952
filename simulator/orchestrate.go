package simulator

import (
	"context"
	"time"
)

// mutatePayment loads payment id of tenant t, lets fn change it inside one
// store transaction (fn may also write other records), stamps dateUpdated and
// appends a PAYMENT.STATUS event when the status moved. fn returning
// errNoChange leaves everything as it was and answers the current payment.
func (s *Service) mutatePayment(t *Tenant, id string, fn func(tx Tx, p *Payment, now time.Time) error) (*Payment, error) {
	return s.mutatePaymentKey(t, id, "", fn)
}

// mutatePaymentKey is mutatePayment for a request with an X-Idempotency-Key:
// the key is checked before anything else and claimed in the same
// transaction, only when the request changed something.
func (s *Service) mutatePaymentKey(t *Tenant, id, idemKey string, fn func(tx Tx, p *Payment, now time.Time) error) (*Payment, error) {
	return s.mutatePaymentAt(t, id, idemKey, time.Time{}, fn)
}

// mutatePaymentAt is mutatePaymentKey whose change happened at the tenant
// time at, when that is not zero and already past: a scheduled job run after
// it fell due (by a clock advance that jumped over it) stamps its change,
// events and dateUpdated with its due time, never earlier than the payment's
// last update.
func (s *Service) mutatePaymentAt(t *Tenant, id, idemKey string, at time.Time, fn func(tx Tx, p *Payment, now time.Time) error) (*Payment, error) {
	var out *Payment
	kick := false
	err := s.Store.Update(func(tx Tx) error {
		if err := checkIdempotency(tx, t, idemKey); err != nil {
			return err
		}
		p, err := tx.Payment(t.ID, id)
		if err != nil {
			return err
		}
		if p == nil {
			return errPaymentNotFound()
		}
		now := s.now(t)
		if !at.IsZero() && at.Before(now) {
			now = at
			if now.Before(p.DateUpdated) {
				now = p.DateUpdated
			}
		}
		before := p.Status
		updated := p.DateUpdated
		if now.After(p.DateUpdated) {
			p.DateUpdated = now // before fn, so events fn appends carry it
		}
		if err := fn(tx, p, now); err != nil {
			if err == errNoChange {
				p.DateUpdated = updated
				out = p
				return nil
			}
			return err
		}
		if p.Status != before {
			if err := s.appendEvent(tx, s.newEvent(EventPaymentStatus, p, now), p, nil); err != nil {
				return err
			}
		}
		if idemKey != "" {
			if err := tx.ClaimIdempotency(t.ID, idemKey, p.ID); err != nil {
				return err
			}
		}
		kick = true
		out = p
		return tx.PutPayment(p)
	})
	if err != nil {
		return nil, err
	}
	s.waits.notify(id)
	if kick {
		s.Kick()
	}
	return out, nil
}

type noChange struct{}

func (noChange) Error() string { return "no change" }

var errNoChange error = noChange{}

// authorizeNow runs the processor for a PENDING payment and applies its
// decision. A timeout decision holds the caller until ctx's deadline (the
// request timeout) and answers RequestTimeout; the payment resolves later.
func (s *Service) authorizeNow(ctx context.Context, t *Tenant, p *Payment) (*Payment, error) {
	return s.authorizeWith(ctx, t, p, s.Processor.Authorize(ctx, t.ID, p))
}

// authorizeWith is authorizeNow with the processor's decision d already taken.
func (s *Service) authorizeWith(ctx context.Context, t *Tenant, p *Payment, d AuthorizeDecision) (*Payment, error) {
	notePayment(ctx, p) // a 504 answered meanwhile names it
	sleepLatency(ctx, d.Latency)
	out, err := s.applyAuthorization(t, p.ID, d, false)
	if err != nil {
		return nil, err
	}
	if d.Timeout != nil && out.Timeout != nil {
		holdTimeout(ctx, d.Timeout.HoldFor) // hold the caller for holdFor, else until the request timeout
		return out, errRequestTimeout(out)
	}
	return out, nil
}

func errRequestTimeout(p *Payment) error {
	return Errorf(CodeRequestTimeout, "The request exceeded the timeout; the payment goes on and resolves later").
		WithRecovery("Use GET /payments/{id} (or /_sandbox/wait) to get the state of the payment").WithPayment(p)
}

// applyAuthorization applies an authorize decision to a PENDING payment.
// authenticated is true when 3DS already passed (resume after AUTH_SUCCESS).
func (s *Service) applyAuthorization(t *Tenant, id string, d AuthorizeDecision, authenticated bool) (*Payment, error) {
	return s.mutatePayment(t, id, func(tx Tx, p *Payment, now time.Time) error {
		if p.Status != StatusPending || p.Timeout != nil || (p.ThreeDS != nil && !authenticated) {
			return errNoChange // decided already (a job and a request raced)
		}
		_ = tx.DeleteJob(&Job{ID: authJobID(p.ID), TenantID: t.ID})
		return s.authorizeTx(tx, t, p, d, authenticated, now)
	})
}

// authorizeTx applies decision d to the PENDING payment p inside tx: a 3DS
// challenge or a timeout starts (with its token or recovery job), or the
// processors' answers are recorded.
func (s *Service) authorizeTx(tx Tx, t *Tenant, p *Payment, d AuthorizeDecision, authenticated bool, now time.Time) error {
	p.Rule = d.Rule
	if !authenticated {
		p.Plan = planOf(d) // chosen once: it governs the rest of the payment's life
		switch d.ThreeDS {
		case ThreeDSChallenge:
			tok := s.IDs.NewID(IDUUID)
			p.ThreeDS = &ThreeDSState{ChallengeToken: tok}
			p.Required = &RequiredAction{Name: ActionThreeDS, Description: "The customer must complete a 3DS challenge", ClientToken: tok}
			p.PaymentMethod.ThreeDSecure = &ThreeDSecure{ResponseCode: "CHALLENGE", ProtocolVersion: "2.2.0", ChallengeIssued: true}
			return tx.PutChallenge(tok, t.ID, p.ID)
		case ThreeDSFrictionlessFail:
			p.PaymentMethod.ThreeDSecure = &ThreeDSecure{ResponseCode: ThreeDSAuthFailed, ReasonCode: "CARD_AUTHENTICATION_FAILED", ProtocolVersion: "2.2.0"}
			s.decline(p, now, authFailed3DS())
			return nil
		case ThreeDSFrictionlessPass:
			p.PaymentMethod.ThreeDSecure = &ThreeDSecure{ResponseCode: ThreeDSAuthSuccess, ProtocolVersion: "2.2.0"}
		}
	}
	if d.Timeout != nil {
		p.Timeout = &TimeoutState{ResolveTo: d.Timeout.ResolveTo, ResolveAt: norm(p.Date.Add(d.Timeout.After))}
		j := s.newJob(t, JobResolveTimeout, p.Timeout.ResolveAt)
		j.PaymentID = p.ID
		return tx.PutJob(j)
	}
	return s.runSteps(tx, t, p, d, now)
}

// runSteps records each processor's answer as a SALE transaction; a soft
// decline falls back to the next processor.
func (s *Service) runSteps(tx Tx, t *Tenant, p *Payment, d AuthorizeDecision, now time.Time) error {
	steps := d.Steps
	if len(steps) == 0 {
		accts := s.Processor.Accounts(t.ID)
		steps = []AuthStep{{Account: accts[0], Status: StatusAuthorized}}
	}
	final := finalStep(AuthorizeDecision{Steps: steps})
	for _, st := range steps {
		txn := Transaction{
			ID: s.IDs.NewID(IDUUID), Type: TxnSale, Date: now, Amount: p.Amount, CurrencyCode: p.CurrencyCode,
			ProcessorStatus: st.Status, ProcessorName: st.Account.Name, ProcessorMerchantID: st.Account.ProcessorMerchantID,
			ProcessorTransactionID: processorID(s.IDs, IDProcessorTxn, st.Account.Name), CardTokenType: p.CardTokenType,
		}
		p.Processor = &ProcessorState{Name: st.Account.Name, ProcessorMerchantID: st.Account.ProcessorMerchantID}
		if st.Status == StatusAuthorized {
			if st.Account.AuthorizationCode {
				txn.AuthorizationCode = processorID(s.IDs, IDAuthCode, st.Account.Name)
			}
			amt := p.Amount
			txn.Events = []TransactionEvent{{ID: s.IDs.NewID(IDUUID), Date: now, Type: EventAuthorizationSucceeded, Amount: &amt}}
		} else {
			r := st.Reason
			if r == nil {
				r = defaultReason(st.Status)
			}
			txn.ProcessorStatusReason = r
		}
		p.Transactions = append(p.Transactions, txn)
		if st.Account == final.Account && st.Status == final.Status {
			break
		}
	}
	p.Required, p.ThreeDS = nil, nil
	pre := "ACCEPT"
	if p.PaymentMethod.ThreeDSecure != nil {
		pre = "THREE_DS"
	}
	cvv := "NOT_PROVIDED" // vaulted (merchant-initiated) payments and cards sent without one
	if p.CVVGiven {
		cvv = "MATCHED"
	}
	p.RiskData = &RiskData{
		FraudChecks: &FraudChecks{Source: "FRAUD_PROVIDER", PreAuthorizationResult: pre, PostAuthorizationResult: "ACCEPT"},
		CVVCheck:    &RiskCheck{Source: "PROCESSOR", Result: cvv},
		AVSCheck:    &AVSCheck{Source: "PROCESSOR", Result: AVSResult{StreetAddress: "NOT_VERIFIED", PostalCode: "NOT_VERIFIED"}},
	}
	switch final.Status {
	case StatusAuthorized:
		p.Status, p.Authorized, p.StatusReason = StatusAuthorized, p.Amount, nil
		if p.Plan == nil {
			p.Plan = &Plan{}
		}
		acct := final.Account
		p.Plan.Account = &acct
		if err := s.afterAuthorized(tx, t, p, d, now); err != nil {
			return err
		}
	default:
		r := final.Reason
		if r == nil {
			r = defaultReason(final.Status)
		}
		p.Status, p.StatusReason = final.Status, r
		if p.Status != StatusDeclined && p.Status != StatusFailed {
			p.Status = StatusFailed
		}
	}
	return nil
}

// decline ends a payment DECLINED before any processor saw it (3DS failed).
func (s *Service) decline(p *Payment, now time.Time, r *StatusReason) {
	p.Status, p.StatusReason, p.Required, p.ThreeDS = StatusDeclined, r, nil, nil
}

// afterAuthorized vaults on success and schedules a scenario dispute.
func (s *Service) afterAuthorized(tx Tx, t *Tenant, p *Payment, d AuthorizeDecision, now time.Time) error {
	if p.PaymentMethod.VaultOnSuccess && p.CustomerID != "" {
		in, err := tx.Instrument(t.ID, p.PaymentMethod.PaymentMethodToken)
		if err != nil {
			return err
		}
		if in != nil && in.TokenType == TokenSingleUse && in.VaultedAs == "" {
			v, err := s.vaultTx(tx, t, in, p.CustomerID)
			if err != nil {
				return err
			}
			p.PaymentMethod.PaymentMethodToken, p.PaymentMethod.IsVaulted = v.Token, true
		}
	}
	if d.Dispute != nil {
		j := s.newJob(t, JobDispute, now.Add(d.Dispute.After))
		j.PaymentID, j.Reason = p.ID, d.Dispute.Reason
		plan := *d.Dispute
		j.Dispute = &plan
		return tx.PutJob(j)
	}
	return nil
}
