package service

import (
	"context"
	"sort"

	"github.com/paysandbox/paysandbox/simulator"
)

// Vault saves a token for a customer as a MULTI_USE token. Vaulting either
// token again returns the same record. verify runs the processor's
// authorization for the card; a decline is FailedVerification.
// Errors: InvalidPaymentInstrumentToken, FailedVerification.
func (s *Service) Vault(ctx context.Context, t *simulator.Tenant, token, customerID string, verify bool) (*simulator.Instrument, error) {
	src, err := s.vaultSource(t, token)
	if err != nil {
		return nil, err
	}
	switch {
	case src == nil, src.TokenType == simulator.TokenMultiUse && src.Deleted, src.Invalidated:
		return nil, simulator.ErrInvalidToken()
	case src.TokenType == simulator.TokenMultiUse:
		return src, nil
	}
	if err := s.checkAttemptToken(t, src); err != nil {
		return nil, err
	}
	if verify {
		if err := s.verifyCard(ctx, t, customerID, src); err != nil {
			return nil, err
		}
	}
	var out *simulator.Instrument
	err = s.store.Update(func(tx simulator.Tx) error {
		in, err := tx.Instrument(t.ID, token)
		if err != nil {
			return err
		}
		if in == nil || in.Invalidated {
			return simulator.ErrInvalidToken()
		}
		if in.AttemptID != "" { // re-check inside the transaction: abort may have raced
			if a, err := tx.Attempt(t.ID, in.AttemptID); err != nil || a == nil || a.Status != simulator.AttemptApproved {
				return errorsJoin(err, simulator.ErrInvalidToken())
			}
		}
		if in.VaultedAs != "" { // a concurrent vault won
			out, err = tx.Instrument(t.ID, in.VaultedAs)
			return err
		}
		v, err := s.vaultTx(tx, t, in, customerID)
		if err != nil {
			return err
		}
		v.Verified = verify
		out = v
		return tx.PutInstrument(v)
	})
	return out, err
}

// vaultSource reads the instrument token names, or the MULTI_USE instrument
// it was already vaulted to (nil: no such token).
func (s *Service) vaultSource(t *simulator.Tenant, token string) (src *simulator.Instrument, err error) {
	err = s.store.View(func(tx simulator.Tx) error {
		in, err := tx.Instrument(t.ID, token)
		if err != nil {
			return err
		}
		if in != nil && in.VaultedAs != "" {
			in, err = tx.Instrument(t.ID, in.VaultedAs)
		}
		src = in
		return err
	})
	return src, err
}

// verifyCard asks the processor to authorize a zero-amount probe of in's
// card (made now on the tenant's clock, with the card's expiry) for
// customerID; only the final authorization status counts. Errors:
// FailedVerification.
func (s *Service) verifyCard(ctx context.Context, t *simulator.Tenant, customerID string, in *simulator.Instrument) error {
	probe := &simulator.Payment{TenantID: t.ID, Date: s.now(t), Amount: 0, CustomerID: customerID, Card: in.Card}
	probe.PaymentMethod.Data.ExpirationMonth, probe.PaymentMethod.Data.ExpirationYear = in.ExpiryMonth, in.ExpiryYear
	if scenarioOutcome(s.processor.Authorize(ctx, t, probe)) != simulator.StatusAuthorized {
		return simulator.Errorf(simulator.CodeFailedVerification, "Payment method could not be verified").
			WithRecovery("Use a card that the processor authorizes, or vault without verify.")
	}
	return nil
}

// checkAttemptToken refuses to vault the token of a MANUAL session's attempt
// until the attempt is approved: a vaulted copy would pay without approval.
func (s *Service) checkAttemptToken(t *simulator.Tenant, in *simulator.Instrument) error {
	if in.AttemptID == "" {
		return nil
	}
	var a *simulator.Attempt
	if err := s.store.View(func(tx simulator.Tx) (err error) { a, err = tx.Attempt(t.ID, in.AttemptID); return }); err != nil {
		return err
	}
	if a == nil || a.Status != simulator.AttemptApproved {
		return simulator.Errorf(simulator.CodeInvalidPaymentInstrumentToken, "The token belongs to a payment attempt awaiting approval; it can be vaulted once the attempt is approved").
			WithRecovery("Approve the payment attempt first, or set vaultOnSuccess on the session.")
	}
	return nil
}

// vaultTx makes the MULTI_USE copy of a SINGLE_USE token inside tx; the first
// vaulted method of a customer becomes the default.
func (s *Service) vaultTx(tx simulator.Tx, t *simulator.Tenant, in *simulator.Instrument, customerID string) (*simulator.Instrument, error) {
	existing, err := tx.InstrumentsByCustomer(t.ID, customerID)
	if err != nil {
		return nil, err
	}
	hasDefault := false
	for _, e := range existing {
		hasDefault = hasDefault || (e.Default && !e.Deleted)
	}
	v := &simulator.Instrument{
		Token: s.ids.NewID(simulator.IDPaymentToken), TenantID: t.ID, TokenType: simulator.TokenMultiUse,
		Card: in.Card, ExpiryMonth: in.ExpiryMonth, ExpiryYear: in.ExpiryYear,
		CardholderName: in.CardholderName, CVVGiven: in.CVVGiven, AnalyticsID: in.AnalyticsID, CreatedAt: s.now(t),
		CustomerID: customerID, SourceToken: in.Token, Default: !hasDefault,
	}
	in.VaultedAs = v.Token
	if err := tx.PutInstrument(in); err != nil {
		return nil, err
	}
	return v, tx.PutInstrument(v)
}

// Instruments lists a customer's saved (not deleted) payment methods, oldest first.
func (s *Service) Instruments(t *simulator.Tenant, customerID string) ([]*simulator.Instrument, error) {
	var out []*simulator.Instrument
	err := s.store.View(func(tx simulator.Tx) error {
		all, err := tx.InstrumentsByCustomer(t.ID, customerID)
		for _, in := range all {
			if !in.Deleted {
				out = append(out, in)
			}
		}
		return err
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, err
}

// vaulted returns a live MULTI_USE token of tenant t inside tx.
func vaulted(tx simulator.Tx, t *simulator.Tenant, token string) (*simulator.Instrument, error) {
	in, err := tx.Instrument(t.ID, token)
	if err != nil {
		return nil, err
	}
	if in == nil || in.TokenType != simulator.TokenMultiUse || in.Deleted {
		return nil, simulator.ErrInvalidToken()
	}
	return in, nil
}

// DeleteInstrument deletes a saved payment method. Errors: InvalidPaymentInstrumentToken.
func (s *Service) DeleteInstrument(t *simulator.Tenant, token string) (*simulator.Instrument, error) {
	var out *simulator.Instrument
	err := s.store.Update(func(tx simulator.Tx) error {
		in, err := vaulted(tx, t, token)
		if err != nil {
			return err
		}
		in.Deleted, in.DeletedAt, in.Default = true, s.now(t), false
		out = in
		return tx.PutInstrument(in)
	})
	return out, err
}

// SetDefaultInstrument makes a saved method the customer's default.
// Errors: InvalidPaymentInstrumentToken.
func (s *Service) SetDefaultInstrument(t *simulator.Tenant, token string) (*simulator.Instrument, error) {
	var out *simulator.Instrument
	err := s.store.Update(func(tx simulator.Tx) error {
		in, err := vaulted(tx, t, token)
		if err != nil {
			return err
		}
		all, err := tx.InstrumentsByCustomer(t.ID, in.CustomerID)
		if err != nil {
			return err
		}
		for _, o := range all {
			if o.Token != in.Token && o.Default {
				o.Default = false
				if err := tx.PutInstrument(o); err != nil {
					return err
				}
			}
		}
		in.Default = true
		out = in
		return tx.PutInstrument(in)
	})
	return out, err
}
