package service

import (
	"context"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// mutatePayment loads payment id of tenant t, lets fn change it inside one
// store transaction (fn may also write other records), stamps dateUpdated and
// appends a PAYMENT.STATUS event when the status moved. fn returning
// errNoChange leaves everything as it was and answers the current payment.
func (s *Service) mutatePayment(ctx context.Context, t *simulator.Tenant, id string, fn func(tx simulator.Tx, p *simulator.Payment, now time.Time) error) (*simulator.Payment, error) {
	return s.mutatePaymentKey(ctx, t, id, "", fn)
}

// mutatePaymentKey is mutatePayment for a request with an X-Idempotency-Key:
// the key is checked before anything else and claimed in the same
// transaction, only when the request changed something.
func (s *Service) mutatePaymentKey(ctx context.Context, t *simulator.Tenant, id, idemKey string, fn func(tx simulator.Tx, p *simulator.Payment, now time.Time) error) (*simulator.Payment, error) {
	return s.mutatePaymentAt(ctx, t, id, idemKey, time.Time{}, fn)
}

// mutatePaymentAt is mutatePaymentKey whose change happened at the tenant
// time at, when that is not zero and already past: a scheduled job run after
// it fell due (by a clock advance that jumped over it) stamps its change,
// events and dateUpdated with its due time, never earlier than the payment's
// last update. The transaction is ctx's store.commit span (Service.update).
func (s *Service) mutatePaymentAt(ctx context.Context, t *simulator.Tenant, id, idemKey string, at time.Time, fn func(tx simulator.Tx, p *simulator.Payment, now time.Time) error) (*simulator.Payment, error) {
	var out *simulator.Payment
	kick := false
	err := s.update(ctx, func(tx simulator.Tx) error {
		if err := checkIdempotency(tx, t, idemKey); err != nil {
			return err
		}
		p, err := tx.Payment(t.ID, id)
		if err != nil {
			return err
		}
		if p == nil {
			return simulator.ErrPaymentNotFound()
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
			if err := s.appendEvent(tx, s.newEvent(simulator.EventPaymentStatus, p, now), p, nil); err != nil {
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
func (s *Service) authorizeNow(ctx context.Context, t *simulator.Tenant, p *simulator.Payment) (*simulator.Payment, error) {
	return s.authorizeWith(ctx, t, p, s.processor.Authorize(ctx, t, p))
}

// authorizeWith is authorizeNow with the processor's decision d already taken.
func (s *Service) authorizeWith(ctx context.Context, t *simulator.Tenant, p *simulator.Payment, d simulator.AuthorizeDecision) (*simulator.Payment, error) {
	notePayment(ctx, p) // a 504 answered meanwhile names it
	sleepLatency(ctx, d.Latency)
	out, err := s.applyAuthorization(ctx, t, p.ID, d, false, requestIDOf(ctx))
	if err != nil {
		return nil, err
	}
	if d.Timeout != nil && out.Timeout != nil {
		holdTimeout(ctx, d.Timeout.HoldFor) // hold the caller for holdFor, else until the request timeout
		return out, errRequestTimeout(out)
	}
	return out, nil
}

func errRequestTimeout(p *simulator.Payment) error {
	return simulator.Errorf(simulator.CodeRequestTimeout, "The request exceeded the timeout; the payment goes on and resolves later").
		WithRecovery("Use GET /payments/{id} (or /_sandbox/wait) to get the state of the payment").WithPayment(p)
}

// applyAuthorization applies an authorize decision to a PENDING payment.
// authenticated is true when 3DS already passed (resume after AUTH_SUCCESS);
// requestID is the request that waits for it ("" for background work), which
// a timeout it starts records.
func (s *Service) applyAuthorization(ctx context.Context, t *simulator.Tenant, id string, d simulator.AuthorizeDecision, authenticated bool, requestID string) (*simulator.Payment, error) {
	return s.mutatePayment(ctx, t, id, func(tx simulator.Tx, p *simulator.Payment, now time.Time) error {
		if p.Status != simulator.StatusPending || p.Timeout != nil || (p.ThreeDS != nil && !authenticated) {
			return errNoChange // decided already (a job and a request raced)
		}
		_ = tx.DeleteJob(&simulator.Job{ID: authJobID(p.ID), TenantID: t.ID})
		if err := s.authorizeTx(ctx, tx, t, p, d, authenticated, now); err != nil {
			return err
		}
		if p.Timeout != nil {
			p.Timeout.RequestID = requestID
		}
		return nil
	})
}

// authorizeTx applies decision d to the PENDING payment p inside tx: a 3DS
// challenge or a timeout starts (with its token or recovery job), or the
// processors' answers are recorded (each a processor span of ctx's trace).
func (s *Service) authorizeTx(ctx context.Context, tx simulator.Tx, t *simulator.Tenant, p *simulator.Payment, d simulator.AuthorizeDecision, authenticated bool, now time.Time) error {
	p.Rule = d.Rule
	if !authenticated {
		tid, rule, pid := t.ID, d.Rule, p.ID
		tx.AfterCommit(func() {
			s.Publish(observe.Happening{Kind: observe.RuleMatched, TenantID: tid, Rule: rule, PaymentID: pid, At: now})
		})
		p.Plan = simulator.PlanOf(d) // chosen once: it governs the rest of the payment's life
		switch d.ThreeDS {
		case simulator.ThreeDSChallenge:
			tok := s.tenantCredential(t.ID, simulator.IDUUID)
			p.ThreeDS = &simulator.ThreeDSState{ChallengeToken: tok}
			p.Required = &simulator.RequiredAction{Name: simulator.ActionThreeDS, Description: "The customer must complete a 3DS challenge", ClientToken: tok}
			p.PaymentMethod.ThreeDSecure = &simulator.ThreeDSecure{ResponseCode: "CHALLENGE", ProtocolVersion: "2.2.0", ChallengeIssued: true}
			return tx.PutChallenge(tok, t.ID, p.ID)
		case simulator.ThreeDSFrictionlessFail:
			p.PaymentMethod.ThreeDSecure = &simulator.ThreeDSecure{ResponseCode: simulator.ThreeDSAuthFailed, ReasonCode: "CARD_AUTHENTICATION_FAILED", ProtocolVersion: "2.2.0"}
			s.decline(p, now, simulator.AuthFailed3DS())
			return nil
		case simulator.ThreeDSFrictionlessPass:
			p.PaymentMethod.ThreeDSecure = &simulator.ThreeDSecure{ResponseCode: simulator.ThreeDSAuthSuccess, ProtocolVersion: "2.2.0"}
		}
	}
	if d.Timeout != nil {
		p.Timeout = &simulator.TimeoutState{ResolveTo: d.Timeout.ResolveTo, ResolveAt: simulator.NormTime(p.Date.Add(d.Timeout.After))}
		j := s.newJob(t, simulator.JobResolveTimeout, p.Timeout.ResolveAt)
		j.PaymentID = p.ID
		return tx.PutJob(j)
	}
	return s.runSteps(ctx, tx, t, p, d, now)
}

// runSteps records each processor's answer as a SALE transaction; a soft
// decline falls back to the next processor. The interceptors are told of
// each step tried (tracing: one processor.authorize span of ctx's trace).
func (s *Service) runSteps(ctx context.Context, tx simulator.Tx, t *simulator.Tenant, p *simulator.Payment, d simulator.AuthorizeDecision, now time.Time) error {
	steps := d.Steps
	if len(steps) == 0 {
		accts := s.processor.Accounts(t)
		steps = []simulator.AuthStep{{Account: accts[0], Status: simulator.StatusAuthorized}}
	}
	final := simulator.FinalStep(simulator.AuthorizeDecision{Steps: steps})
	for _, st := range steps {
		s.observers.Stepped(ctx, p, st)
		txn := s.saleTransaction(p, st, now)
		p.Processor = &simulator.ProcessorState{Name: st.Account.Name, ProcessorMerchantID: st.Account.ProcessorMerchantID}
		p.Transactions = append(p.Transactions, txn)
		if st.Account == final.Account && st.Status == final.Status {
			break
		}
	}
	p.Required, p.ThreeDS = nil, nil
	p.RiskData = p.AuthorizationRisk()
	switch final.Status {
	case simulator.StatusAuthorized:
		p.Status, p.Authorized, p.StatusReason = simulator.StatusAuthorized, p.Amount, nil
		if p.Plan == nil {
			p.Plan = &simulator.Plan{}
		}
		acct := final.Account
		p.Plan.Account = &acct
		if err := s.afterAuthorized(tx, t, p, d, now); err != nil {
			return err
		}
	default:
		r := final.Reason
		if r == nil {
			r = simulator.DefaultReason(final.Status)
		}
		p.Status, p.StatusReason = final.Status, r
		if p.Status != simulator.StatusDeclined && p.Status != simulator.StatusFailed {
			p.Status = simulator.StatusFailed
		}
	}
	return nil
}

// saleTransaction is the SALE transaction of one processor step of an
// authorization: its authorization event when the step authorized, else its
// reason (the default one of its status when the decision gives none).
func (s *Service) saleTransaction(p *simulator.Payment, st simulator.AuthStep, now time.Time) simulator.Transaction {
	txn := simulator.Transaction{
		ID: s.ids.NewID(simulator.IDUUID), Type: simulator.TxnSale, Date: now, Amount: p.Amount, CurrencyCode: p.CurrencyCode,
		ProcessorStatus: st.Status, ProcessorName: st.Account.Name, ProcessorMerchantID: st.Account.ProcessorMerchantID,
		ProcessorTransactionID: simulator.NewProcessorID(s.ids, simulator.IDProcessorTxn, st.Account.Name), CardTokenType: p.CardTokenType,
	}
	if st.Status == simulator.StatusAuthorized {
		if st.Account.AuthorizationCode {
			txn.AuthorizationCode = simulator.NewProcessorID(s.ids, simulator.IDAuthCode, st.Account.Name)
		}
		amt := p.Amount
		txn.Events = []simulator.TransactionEvent{{ID: s.ids.NewID(simulator.IDUUID), Date: now, Type: simulator.EventAuthorizationSucceeded, Amount: &amt}}
	} else {
		r := st.Reason
		if r == nil {
			r = simulator.DefaultReason(st.Status)
		}
		txn.ProcessorStatusReason = r
	}
	return txn
}

// decline ends a payment DECLINED before any processor saw it (3DS failed).
func (s *Service) decline(p *simulator.Payment, now time.Time, r *simulator.StatusReason) {
	p.Status, p.StatusReason, p.Required, p.ThreeDS = simulator.StatusDeclined, r, nil, nil
}

// afterAuthorized vaults on success and schedules a scenario dispute.
func (s *Service) afterAuthorized(tx simulator.Tx, t *simulator.Tenant, p *simulator.Payment, d simulator.AuthorizeDecision, now time.Time) error {
	if p.PaymentMethod.VaultOnSuccess && p.CustomerID != "" {
		in, err := tx.Instrument(t.ID, p.PaymentMethod.PaymentMethodToken)
		if err != nil {
			return err
		}
		if in != nil && in.TokenType == simulator.TokenSingleUse && in.VaultedAs == "" {
			v, err := s.vaultTx(tx, t, in, p.CustomerID)
			if err != nil {
				return err
			}
			p.PaymentMethod.PaymentMethodToken, p.PaymentMethod.IsVaulted = v.Token, true
		}
	}
	if d.Dispute != nil {
		j := s.newJob(t, simulator.JobDispute, now.Add(d.Dispute.After))
		j.PaymentID, j.Reason = p.ID, d.Dispute.Reason
		plan := *d.Dispute
		j.Dispute = &plan
		return tx.PutJob(j)
	}
	return nil
}
