package service

import (
	"strconv"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
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
	Instrument *simulator.Instrument
	Attempt    *simulator.Attempt
	Tenant     *simulator.Tenant
}

// Tokenize turns a card into a SINGLE_USE token bound to the client session.
// In a MANUAL session it also creates a payment attempt that becomes the
// session's current attempt. Errors: ClientSessionValidationError,
// RequestValidationError (Luhn, expiry).
func (s *Service) Tokenize(clientToken string, in CardInput) (*Tokenized, error) {
	if fe := checkCard(in); len(fe) > 0 {
		return nil, simulator.ValidationError("PaymentInstrumentTokenizationRequest", fe...)
	}
	info := s.cards.Identify(in.Number)
	var out Tokenized
	err := s.store.Update(func(tx simulator.Tx) error {
		cs, t, err := s.clientTokenTx(tx, clientToken)
		if err != nil {
			return err
		}
		now := s.now(t)
		inst := &simulator.Instrument{
			Token: s.ids.NewID(simulator.IDPaymentToken), TenantID: t.ID, TokenType: simulator.TokenSingleUse,
			Card: info, ExpiryMonth: in.ExpirationMonth, ExpiryYear: in.ExpirationYear,
			CardholderName: in.CardholderName, CVVGiven: in.CVV != "", AnalyticsID: s.ids.NewID(simulator.IDAnalytics),
			CreatedAt: now, SessionID: cs.ID,
		}
		out.Instrument, out.Tenant = inst, t
		if cs.ApprovalMode == simulator.ApprovalManual {
			a := &simulator.Attempt{
				ID: s.ids.NewID(simulator.IDUUID), TenantID: t.ID, SessionID: cs.ID, Token: inst.Token,
				Status: simulator.AttemptAwaiting, CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(s.attemptTTL),
			}
			inst.AttemptID = a.ID
			cs.CurrentAttemptID = a.ID
			j := s.newJob(t, simulator.JobExpireAttempt, a.ExpiresAt)
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
func checkCard(in CardInput) []simulator.FieldError {
	var fe []simulator.FieldError
	num := in.Number
	switch {
	case num == "" || strings.Trim(num, "0123456789") != "":
		fe = append(fe, simulator.FieldError{Path: "$.paymentInstrument.number", Description: "The card number must be 12 to 19 digits"})
	case !simulator.LuhnValid(num):
		fe = append(fe, simulator.FieldError{Path: "$.paymentInstrument.number", Description: "The card number fails the Luhn check"})
	}
	if in.CVV != "" && (len(in.CVV) < 3 || len(in.CVV) > 4 || strings.Trim(in.CVV, "0123456789") != "") {
		fe = append(fe, simulator.FieldError{Path: "$.paymentInstrument.cvv", Description: "The CVV must be 3 or 4 digits"})
	}
	m, err := strconv.Atoi(in.ExpirationMonth)
	if len(in.ExpirationMonth) != 2 || err != nil || m < 1 || m > 12 {
		fe = append(fe, simulator.FieldError{Path: "$.paymentInstrument.expirationMonth", Description: "The expiration month must be two digits, 01 to 12"})
	}
	if _, err := strconv.Atoi(in.ExpirationYear); len(in.ExpirationYear) != 4 || err != nil {
		fe = append(fe, simulator.FieldError{Path: "$.paymentInstrument.expirationYear", Description: "The expiration year must be four digits"})
	}
	return fe
}
