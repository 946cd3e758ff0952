package store

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Reflection-free encoders of the records every checkout writes (payment,
// instrument, outbox event). They run inside the write transaction, under
// buntdb's lock, where encoding/json's reflection was about a quarter of the
// time a payment write held the lock.
//
// Contract: each writes exactly what encoding/json's Encoder with HTML
// escaping off writes for the same record value (payRec, instRec, evRec);
// TestRecordEncodingMatchesEncodingJSON and FuzzRecordEncoding hold them to
// it. Members that are rare or free-form (customer, order, metadata, a card
// stored whole, 3DS and timeout state, allocations, headers) go through
// appendAny. Records written before these encoders escaped <, > and &
// in strings (json.Marshal); both forms decode alike, and nothing reads a
// stored record's bytes for a string that could hold those characters (the
// list prefilter only matches plain values, see plainJSON; ids are ours).

// appendTime is encoding/json's time.Time (RFC 3339 with nanoseconds, and
// its refusal of years outside 0-9999).
func appendTime(dst []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		_, err := json.Marshal(t)
		return dst, err
	}
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"'), nil
}

func timeField(dst []byte, key string, t time.Time) ([]byte, error) {
	return appendTime(jsonKey(dst, key), t)
}

// anyField appends key and v through encoding/json.
func anyField(dst []byte, key string, v any) ([]byte, error) {
	return appendAny(jsonKey(dst, key), v)
}

// appendPayRec appends rec as encoding/json encodes it: the embedded
// payment's members in order, less those payRec's own fields shadow, then
// payRec's own.
func appendPayRec(dst []byte, rec *payRec) ([]byte, error) {
	p := &rec.Payment
	var err error
	dst = append(dst, '{')
	dst = stringField(dst, "id", p.ID)
	if dst, err = timeField(dst, "date", p.Date); err != nil {
		return dst, err
	}
	if dst, err = timeField(dst, "dateUpdated", p.DateUpdated); err != nil {
		return dst, err
	}
	dst = stringField(dst, "status", string(p.Status))
	dst = stringField(dst, "orderId", p.OrderID)
	dst = stringField(dst, "currencyCode", p.CurrencyCode)
	dst = intField(dst, "amount", p.Amount)
	dst = omitString(dst, "customerId", p.CustomerID)
	if p.Customer != nil {
		if dst, err = anyField(dst, "customer", p.Customer); err != nil {
			return dst, err
		}
	}
	if p.Order != nil {
		if dst, err = anyField(dst, "order", p.Order); err != nil {
			return dst, err
		}
	}
	if len(p.Metadata) > 0 {
		if dst, err = anyField(dst, "metadata", p.Metadata); err != nil {
			return dst, err
		}
	}
	dst = omitString(dst, "cardTokenType", p.CardTokenType)
	if r := p.Required; r != nil {
		dst = append(jsonKey(dst, "requiredAction"), '{')
		dst = stringField(dst, "name", r.Name)
		dst = stringField(dst, "description", r.Description)
		dst = omitString(dst, "clientToken", r.ClientToken)
		dst = append(dst, '}')
	}
	if p.StatusReason != nil {
		dst = appendStatusReason(jsonKey(dst, "statusReason"), p.StatusReason)
	}
	dst = omitBool(dst, "cvvGiven", p.CVVGiven)
	dst = omitString(dst, "sessionId", p.SessionID)
	dst = omitString(dst, "attemptId", p.AttemptID)
	if p.ThreeDS != nil {
		if dst, err = anyField(dst, "threeDS", p.ThreeDS); err != nil {
			return dst, err
		}
	}
	if p.Timeout != nil {
		if dst, err = anyField(dst, "timeout", p.Timeout); err != nil {
			return dst, err
		}
	}
	dst = omitString(dst, "rule", p.Rule)
	dst = omitString(dst, "oneShot", p.OneShot)

	dst = omitString(dst, "tenantId", rec.TenantID)
	if rec.Card != nil {
		if dst, err = anyField(dst, "card", rec.Card); err != nil {
			return dst, err
		}
	}
	if rec.Ref != nil {
		dst = appendCardRef(jsonKey(dst, "cr"), rec.Ref)
	}
	if dst, err = appendPMRec(jsonKey(dst, "paymentMethod"), &rec.PaymentMethod); err != nil {
		return dst, err
	}
	if rec.Plan != nil {
		if dst, err = anyField(dst, "plan", rec.Plan); err != nil {
			return dst, err
		}
	}
	if rec.PL != nil {
		dst = appendPlanShort(jsonKey(dst, "pl"), rec.PL)
	}
	if pr := rec.Processor; pr != nil {
		dst = append(jsonKey(dst, "processor"), '{')
		dst = stringField(dst, "name", pr.Name)
		dst = stringField(dst, "processorMerchantId", pr.ProcessorMerchantID)
		dst = omitInt(dst, "amountCaptured", pr.AmountCaptured)
		dst = omitInt(dst, "amountRefunded", pr.AmountRefunded)
		dst = append(dst, '}')
	}
	dst = omitBool(dst, "finalCaptured", rec.FinalCaptured)
	dst = jsonKey(dst, "transactions")
	if rec.Transactions == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range rec.Transactions {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendTxnRec(dst, &rec.Transactions[i]); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	dst = omitIntPtr(dst, "authorized", rec.Authorized)
	if rec.RiskData != nil {
		dst = appendRiskData(jsonKey(dst, "riskData"), rec.RiskData)
	}
	dst = omitBool(dst, "rk", rec.Risk)
	return append(dst, '}'), nil
}

func appendCardRef(dst []byte, r *simulator.CardRef) []byte {
	dst = append(dst, '{')
	dst = stringField(dst, "f", r.Fingerprint)
	dst = omitString(dst, "6", r.First6)
	dst = omitString(dst, "4", r.Last4)
	dst = omitString(dst, "n", r.Network)
	return append(dst, '}')
}

func appendPMRec(dst []byte, m *pmRec) ([]byte, error) {
	pm := &m.PaymentMethod
	var err error
	dst = append(dst, '{')
	dst = omitString(dst, "paymentType", pm.PaymentType)
	dst = stringField(dst, "paymentMethodToken", pm.PaymentMethodToken)
	dst = omitString(dst, "authorizationType", pm.AuthorizationType)
	dst = omitString(dst, "descriptor", pm.Descriptor)
	dst = omitString(dst, "analyticsId", pm.AnalyticsID)
	dst = stringField(dst, "paymentMethodType", pm.PaymentMethodType)
	if pm.ThreeDSecure != nil {
		dst = appendThreeDSecure(jsonKey(dst, "threeDSecureAuthentication"), pm.ThreeDSecure)
	}
	dst = omitBool(dst, "vaultOnSuccess", pm.VaultOnSuccess)
	dst = omitString(dst, "firstPaymentReason", pm.FirstPaymentReason)
	dst = omitBool(dst, "vaultOnAgreement", pm.VaultOnAgreement)
	dst = omitBool(dst, "isVaulted", m.IsVaulted)
	if m.Data != nil {
		if dst, err = anyField(dst, "paymentMethodData", m.Data); err != nil {
			return dst, err
		}
	}
	if d := m.D; d != nil {
		dst = append(jsonKey(dst, "d"), '{')
		dst = stringField(dst, "m", d.Month)
		dst = stringField(dst, "y", d.Year)
		dst = omitString(dst, "h", d.Holder)
		dst = omitBool(dst, "t", d.Tokenized)
		dst = omitBool(dst, "6", d.First6)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

func appendTxnRec(dst []byte, x *txnRec) ([]byte, error) {
	t := &x.Transaction
	var err error
	dst = append(dst, '{')
	dst = stringField(dst, "id", t.ID)
	dst = stringField(dst, "type", t.Type)
	if dst, err = timeField(dst, "date", t.Date); err != nil {
		return dst, err
	}
	dst = intField(dst, "amount", t.Amount)
	dst = stringField(dst, "processorStatus", string(t.ProcessorStatus))
	if t.ProcessorStatusReason != nil {
		dst = appendStatusReason(jsonKey(dst, "processorStatusReason"), t.ProcessorStatusReason)
	}
	dst = stringField(dst, "processorTransactionId", t.ProcessorTransactionID)
	dst = omitString(dst, "authorizationCode", t.AuthorizationCode)
	dst = omitString(dst, "reason", t.Reason)
	if len(t.Events) > 0 {
		dst = append(jsonKey(dst, "events"), '[')
		for i := range t.Events {
			if i > 0 {
				dst = append(dst, ',')
			}
			ev := &t.Events[i]
			dst = append(dst, '{')
			dst = stringField(dst, "id", ev.ID)
			if dst, err = timeField(dst, "date", ev.Date); err != nil {
				return dst, err
			}
			dst = stringField(dst, "type", ev.Type)
			dst = omitIntPtr(dst, "amount", ev.Amount)
			dst = omitBoolPtr(dst, "final", ev.Final)
			dst = omitInt(dst, "refunded", ev.Refunded)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = omitString(dst, "captureEventId", t.CaptureEventID)
	if len(t.Allocations) > 0 {
		if dst, err = anyField(dst, "allocations", t.Allocations); err != nil {
			return dst, err
		}
	}
	dst = omitStringPtr(dst, "currencyCode", x.CurrencyCode)
	dst = omitStringPtr(dst, "processorName", x.ProcessorName)
	dst = omitStringPtr(dst, "processorMerchantId", x.ProcessorMerchantID)
	dst = omitStringPtr(dst, "cardTokenType", x.CardTokenType)
	return append(dst, '}'), nil
}

func omitDuration(dst []byte, key string, d time.Duration) []byte {
	return omitInt(dst, key, int64(d))
}

func appendStatusReasonPtr(dst []byte, key string, r *simulator.StatusReason) []byte {
	if r == nil {
		return dst
	}
	return appendStatusReason(jsonKey(dst, key), r)
}

func appendAccountShort(dst []byte, a *accountShort) []byte {
	dst = append(dst, '{')
	dst = omitString(dst, "n", a.Name)
	dst = omitString(dst, "m", a.MerchantID)
	dst = omitBool(dst, "y", a.AsyncCapture)
	dst = omitDuration(dst, "sa", a.SettleAfter)
	dst = omitBool(dst, "ac", a.AuthorizationCode)
	return append(dst, '}')
}

func appendPlanShort(dst []byte, pl *planShort) []byte {
	dst = append(dst, '{')
	dst = omitString(dst, "r", pl.Rule)
	dst = omitString(dst, "w", pl.Why)
	if len(pl.Steps) > 0 {
		dst = append(jsonKey(dst, "s"), '[')
		for i := range pl.Steps {
			if i > 0 {
				dst = append(dst, ',')
			}
			st := &pl.Steps[i]
			dst = append(dst, '{')
			dst = appendAccountShort(jsonKey(dst, "a"), &st.Account)
			dst = omitString(dst, "s", string(st.Status))
			dst = appendStatusReasonPtr(dst, "r", st.Reason)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if c := pl.Capture; c != nil {
		dst = append(jsonKey(dst, "c"), '{')
		dst = omitString(dst, "s", string(c.Status))
		dst = omitDuration(dst, "sa", c.SettleAfter)
		dst = omitString(dst, "st", string(c.SettleTo))
		dst = appendStatusReasonPtr(dst, "r", c.Reason)
		dst = append(dst, '}')
	}
	if r := pl.Refund; r != nil {
		dst = append(jsonKey(dst, "f"), '{')
		dst = omitString(dst, "s", string(r.Status))
		dst = omitDuration(dst, "af", r.After)
		dst = omitString(dst, "rt", string(r.ResolveTo))
		dst = appendStatusReasonPtr(dst, "r", r.Reason)
		dst = append(dst, '}')
	}
	if d := pl.Dispute; d != nil {
		dst = append(jsonKey(dst, "d"), '{')
		dst = omitDuration(dst, "af", d.After)
		dst = omitString(dst, "r", d.Reason)
		dst = omitInt(dst, "am", d.Amount)
		if len(d.Then) > 0 {
			dst = append(jsonKey(dst, "t"), '[')
			for i, st := range d.Then {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, '{')
				dst = omitString(dst, "s", st.Status)
				dst = omitDuration(dst, "af", st.After)
				dst = append(dst, '}')
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	if pl.Account != nil {
		dst = appendAccountShort(jsonKey(dst, "a"), pl.Account)
	}
	dst = omitInt(dst, "as", int64(pl.AccountStep))
	return append(dst, '}')
}

// appendInstRec appends rec as encoding/json encodes it (the instrument's
// members less tenantId and card, then instRec's own).
func appendInstRec(dst []byte, rec *instRec) ([]byte, error) {
	in := &rec.Instrument
	var err error
	dst = append(dst, '{')
	dst = stringField(dst, "token", in.Token)
	dst = stringField(dst, "tokenType", string(in.TokenType))
	dst = stringField(dst, "expirationMonth", in.ExpiryMonth)
	dst = stringField(dst, "expirationYear", in.ExpiryYear)
	dst = omitString(dst, "cardholderName", in.CardholderName)
	dst = omitBool(dst, "cvvGiven", in.CVVGiven)
	dst = stringField(dst, "analyticsId", in.AnalyticsID)
	if dst, err = timeField(dst, "createdAt", in.CreatedAt); err != nil {
		return dst, err
	}
	dst = omitString(dst, "sessionId", in.SessionID)
	dst = omitString(dst, "attemptId", in.AttemptID)
	dst = omitBool(dst, "used", in.Used)
	dst = omitBool(dst, "invalidated", in.Invalidated)
	dst = omitString(dst, "vaultedAs", in.VaultedAs)
	dst = omitString(dst, "customerId", in.CustomerID)
	dst = omitString(dst, "sourceToken", in.SourceToken)
	dst = omitBool(dst, "verified", in.Verified)
	dst = omitBool(dst, "default", in.Default)
	dst = omitBool(dst, "deleted", in.Deleted)
	if !in.DeletedAt.IsZero() {
		if dst, err = timeField(dst, "deletedAt", in.DeletedAt); err != nil {
			return dst, err
		}
	}
	dst = omitString(dst, "tenantId", rec.TenantID)
	if rec.Card != nil {
		if dst, err = anyField(dst, "card", rec.Card); err != nil {
			return dst, err
		}
	}
	if rec.Ref != nil {
		dst = appendCardRef(jsonKey(dst, "cr"), rec.Ref)
	}
	return append(dst, '}'), nil
}

// appendEvRec appends rec as encoding/json encodes it.
func appendEvRec(dst []byte, rec *evRec) ([]byte, error) {
	var err error
	dst = append(dst, '{')
	dst = stringField(dst, "id", rec.ID)
	dst = omitString(dst, "tenantId", rec.TenantID)
	dst = stringField(dst, "eventType", rec.Type)
	dst = stringField(dst, "paymentId", rec.PaymentID)
	dst = omitString(dst, "disputeId", rec.DisputeID)
	if dst, err = timeField(dst, "createdAt", rec.CreatedAt); err != nil {
		return dst, err
	}
	if len(rec.Body) > 0 {
		if dst, err = anyField(dst, "body", rec.Body); err != nil {
			return dst, err
		}
	}
	dst = stringField(dst, "status", rec.Status)
	if !rec.NextAt.IsZero() {
		if dst, err = timeField(dst, "nextAt", rec.NextAt); err != nil {
			return dst, err
		}
	}
	if len(rec.Attempts) > 0 {
		dst = append(jsonKey(dst, "attempts"), '[')
		for i := range rec.Attempts {
			if i > 0 {
				dst = append(dst, ',')
			}
			a := &rec.Attempts[i]
			dst = append(dst, '{')
			if dst, err = timeField(dst, "at", a.At); err != nil {
				return dst, err
			}
			if a.StatusCode != 0 {
				dst = strconv.AppendInt(jsonKey(dst, "statusCode"), int64(a.StatusCode), 10)
			}
			dst = omitInt(dst, "latencyMs", a.LatencyMs)
			dst = omitString(dst, "error", a.Error)
			dst = omitString(dst, "responseBodyHead", a.ResponseBodyHead)
			dst = omitString(dst, "signedAt", a.SignedAt)
			if len(a.Headers) > 0 {
				if dst, err = anyField(dst, "headers", a.Headers); err != nil {
					return dst, err
				}
			}
			dst = omitBool(dst, "replay", a.Replay)
			dst = omitString(dst, "chaos", a.Chaos)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}
