package simulator

import (
	"strconv"
	"strings"
)

// CardInput is the card the shopper typed (client tokenisation). Number and
// CVV are never stored.
type CardInput struct {
	Number          string
	CVV             string
	ExpirationMonth string
	ExpirationYear  string
	CardholderName  string
}

// Tokenized is the result of tokenisation: the SINGLE_USE instrument and, in
// a MANUAL session, the payment attempt awaiting approval.
type Tokenized struct {
	Instrument *Instrument
	Attempt    *Attempt
	Tenant     *Tenant
}

// Tokenize turns a card into a SINGLE_USE token bound to the client session.
// In a MANUAL session it also creates a payment attempt that becomes the
// session's current attempt. Errors: ClientSessionValidationError,
// RequestValidationError (Luhn, expiry).
func (s *Service) Tokenize(clientToken string, in CardInput) (*Tokenized, error) {
	if fe := checkCard(in); len(fe) > 0 {
		return nil, ValidationError("PaymentInstrumentTokenizationRequest", fe...)
	}
	info := s.Cards.Identify(in.Number)
	var out Tokenized
	err := s.Store.Update(func(tx Tx) error {
		cs, t, err := s.clientTokenTx(tx, clientToken)
		if err != nil {
			return err
		}
		now := s.now(t)
		inst := &Instrument{
			Token: s.IDs.NewID(IDPaymentToken), TenantID: t.ID, TokenType: TokenSingleUse,
			Card: info, ExpiryMonth: in.ExpirationMonth, ExpiryYear: in.ExpirationYear,
			CardholderName: in.CardholderName, CVVGiven: in.CVV != "", AnalyticsID: s.IDs.NewID(IDAnalytics),
			CreatedAt: now, SessionID: cs.ID,
		}
		out.Instrument, out.Tenant = inst, t
		if cs.ApprovalMode == ApprovalManual {
			a := &Attempt{
				ID: s.IDs.NewID(IDUUID), TenantID: t.ID, SessionID: cs.ID, Token: inst.Token,
				Status: AttemptAwaiting, CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(s.AttemptTTL),
			}
			inst.AttemptID = a.ID
			cs.CurrentAttemptID = a.ID
			j := s.newJob(t, JobExpireAttempt, a.ExpiresAt)
			j.AttemptID = a.ID
			if err := tx.PutAttempt(a); err != nil {
				return err
			}
			if err := tx.PutSession(cs); err != nil {
				return err
			}
			if err := tx.PutJob(j); err != nil {
				return err
			}
			out.Attempt = a
		}
		return tx.PutInstrument(inst)
	})
	if err != nil {
		return nil, err
	}
	if out.Attempt != nil {
		s.Kick()
	}
	return &out, nil
}

// checkCard validates the card fields; every broken rule is listed.
func checkCard(in CardInput) []FieldError {
	var fe []FieldError
	num := in.Number
	switch {
	case num == "" || strings.Trim(num, "0123456789") != "":
		fe = append(fe, FieldError{Path: "$.paymentInstrument.number", Description: "The card number must be 12 to 19 digits"})
	case !LuhnValid(num):
		fe = append(fe, FieldError{Path: "$.paymentInstrument.number", Description: "The card number fails the Luhn check"})
	}
	if in.CVV != "" && (len(in.CVV) < 3 || len(in.CVV) > 4 || strings.Trim(in.CVV, "0123456789") != "") {
		fe = append(fe, FieldError{Path: "$.paymentInstrument.cvv", Description: "The CVV must be 3 or 4 digits"})
	}
	m, err := strconv.Atoi(in.ExpirationMonth)
	if len(in.ExpirationMonth) != 2 || err != nil || m < 1 || m > 12 {
		fe = append(fe, FieldError{Path: "$.paymentInstrument.expirationMonth", Description: "The expiration month must be two digits, 01 to 12"})
	}
	if _, err := strconv.Atoi(in.ExpirationYear); len(in.ExpirationYear) != 4 || err != nil {
		fe = append(fe, FieldError{Path: "$.paymentInstrument.expirationYear", Description: "The expiration year must be four digits"})
	}
	return fe
}
