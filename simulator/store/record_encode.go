package store

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/paysandbox/paysandbox/internal/jsonappend"
	"github.com/paysandbox/paysandbox/internal/wire"
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
// jsonappend.Any. Records written before these encoders escaped <, > and &
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
	return appendTime(jsonappend.Key(dst, key), t)
}

// anyField appends key and v through encoding/json.
func anyField(dst []byte, key string, v any) ([]byte, error) {
	return jsonappend.Any(jsonappend.Key(dst, key), v)
}

// appendPayRec appends rec as encoding/json encodes it: the embedded
// payment's members in order, less those payRec's own fields shadow, then
// payRec's own.
func appendPayRec(dst []byte, rec *payRec) ([]byte, error) {
	p := &rec.Payment
	var err error
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "id", p.ID)
	if dst, err = timeField(dst, "date", p.Date); err != nil {
		return dst, err
	}
	if dst, err = timeField(dst, "dateUpdated", p.DateUpdated); err != nil {
		return dst, err
	}
	dst = jsonappend.StringField(dst, "status", string(p.Status))
	dst = jsonappend.StringField(dst, "orderId", p.OrderID)
	dst = jsonappend.StringField(dst, "currencyCode", p.CurrencyCode)
	dst = jsonappend.IntField(dst, "amount", p.Amount)
	dst = jsonappend.OmitString(dst, "customerId", p.CustomerID)
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
	dst = jsonappend.OmitString(dst, "cardTokenType", p.CardTokenType)
	if r := p.Required; r != nil {
		dst = append(jsonappend.Key(dst, "requiredAction"), '{')
		dst = jsonappend.StringField(dst, "name", r.Name)
		dst = jsonappend.StringField(dst, "description", r.Description)
		dst = jsonappend.OmitString(dst, "clientToken", r.ClientToken)
		dst = append(dst, '}')
	}
	if p.StatusReason != nil {
		dst = wire.StatusReason(jsonappend.Key(dst, "statusReason"), p.StatusReason)
	}
	dst = jsonappend.OmitBool(dst, "cvvGiven", p.CVVGiven)
	dst = jsonappend.OmitString(dst, "sessionId", p.SessionID)
	dst = jsonappend.OmitString(dst, "attemptId", p.AttemptID)
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
	dst = jsonappend.OmitString(dst, "rule", p.Rule)
	dst = jsonappend.OmitString(dst, "oneShot", p.OneShot)

	dst = jsonappend.OmitString(dst, "tenantId", rec.TenantID)
	if rec.Card != nil {
		if dst, err = anyField(dst, "card", rec.Card); err != nil {
			return dst, err
		}
	}
	if rec.Ref != nil {
		dst = appendCardRef(jsonappend.Key(dst, "cr"), rec.Ref)
	}
	if dst, err = appendPMRec(jsonappend.Key(dst, "paymentMethod"), &rec.PaymentMethod); err != nil {
		return dst, err
	}
	if rec.Plan != nil {
		if dst, err = anyField(dst, "plan", rec.Plan); err != nil {
			return dst, err
		}
	}
	if rec.PL != nil {
		dst = appendPlanShort(jsonappend.Key(dst, "pl"), rec.PL)
	}
	if pr := rec.Processor; pr != nil {
		dst = append(jsonappend.Key(dst, "processor"), '{')
		dst = jsonappend.StringField(dst, "name", pr.Name)
		dst = jsonappend.StringField(dst, "processorMerchantId", pr.ProcessorMerchantID)
		dst = jsonappend.OmitInt(dst, "amountCaptured", pr.AmountCaptured)
		dst = jsonappend.OmitInt(dst, "amountRefunded", pr.AmountRefunded)
		dst = append(dst, '}')
	}
	dst = jsonappend.OmitBool(dst, "finalCaptured", rec.FinalCaptured)
	dst = jsonappend.Key(dst, "transactions")
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
	dst = jsonappend.OmitIntPtr(dst, "authorized", rec.Authorized)
	if rec.RiskData != nil {
		dst = wire.RiskData(jsonappend.Key(dst, "riskData"), rec.RiskData)
	}
	dst = jsonappend.OmitBool(dst, "rk", rec.Risk)
	return append(dst, '}'), nil
}

func appendCardRef(dst []byte, r *simulator.CardRef) []byte {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "f", r.Fingerprint)
	dst = jsonappend.OmitString(dst, "6", r.First6)
	dst = jsonappend.OmitString(dst, "4", r.Last4)
	dst = jsonappend.OmitString(dst, "n", r.Network)
	return append(dst, '}')
}

func appendPMRec(dst []byte, m *pmRec) ([]byte, error) {
	pm := &m.PaymentMethod
	var err error
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "paymentType", pm.PaymentType)
	dst = jsonappend.StringField(dst, "paymentMethodToken", pm.PaymentMethodToken)
	dst = jsonappend.OmitString(dst, "authorizationType", pm.AuthorizationType)
	dst = jsonappend.OmitString(dst, "descriptor", pm.Descriptor)
	dst = jsonappend.OmitString(dst, "analyticsId", pm.AnalyticsID)
	dst = jsonappend.StringField(dst, "paymentMethodType", pm.PaymentMethodType)
	if pm.ThreeDSecure != nil {
		dst = wire.ThreeDSecure(jsonappend.Key(dst, "threeDSecureAuthentication"), pm.ThreeDSecure)
	}
	dst = jsonappend.OmitBool(dst, "vaultOnSuccess", pm.VaultOnSuccess)
	dst = jsonappend.OmitString(dst, "firstPaymentReason", pm.FirstPaymentReason)
	dst = jsonappend.OmitBool(dst, "vaultOnAgreement", pm.VaultOnAgreement)
	dst = jsonappend.OmitBool(dst, "isVaulted", m.IsVaulted)
	if m.Data != nil {
		if dst, err = anyField(dst, "paymentMethodData", m.Data); err != nil {
			return dst, err
		}
	}
	if d := m.D; d != nil {
		dst = append(jsonappend.Key(dst, "d"), '{')
		dst = jsonappend.StringField(dst, "m", d.Month)
		dst = jsonappend.StringField(dst, "y", d.Year)
		dst = jsonappend.OmitString(dst, "h", d.Holder)
		dst = jsonappend.OmitBool(dst, "t", d.Tokenized)
		dst = jsonappend.OmitBool(dst, "6", d.First6)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

func appendTxnRec(dst []byte, x *txnRec) ([]byte, error) {
	t := &x.Transaction
	var err error
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "id", t.ID)
	dst = jsonappend.StringField(dst, "type", t.Type)
	if dst, err = timeField(dst, "date", t.Date); err != nil {
		return dst, err
	}
	dst = jsonappend.IntField(dst, "amount", t.Amount)
	dst = jsonappend.StringField(dst, "processorStatus", string(t.ProcessorStatus))
	if t.ProcessorStatusReason != nil {
		dst = wire.StatusReason(jsonappend.Key(dst, "processorStatusReason"), t.ProcessorStatusReason)
	}
	dst = jsonappend.StringField(dst, "processorTransactionId", t.ProcessorTransactionID)
	dst = jsonappend.OmitString(dst, "authorizationCode", t.AuthorizationCode)
	dst = jsonappend.OmitString(dst, "reason", t.Reason)
	if len(t.Events) > 0 {
		dst = append(jsonappend.Key(dst, "events"), '[')
		for i := range t.Events {
			if i > 0 {
				dst = append(dst, ',')
			}
			ev := &t.Events[i]
			dst = append(dst, '{')
			dst = jsonappend.StringField(dst, "id", ev.ID)
			if dst, err = timeField(dst, "date", ev.Date); err != nil {
				return dst, err
			}
			dst = jsonappend.StringField(dst, "type", ev.Type)
			dst = jsonappend.OmitIntPtr(dst, "amount", ev.Amount)
			dst = jsonappend.OmitBoolPtr(dst, "final", ev.Final)
			dst = jsonappend.OmitInt(dst, "refunded", ev.Refunded)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = jsonappend.OmitString(dst, "captureEventId", t.CaptureEventID)
	if len(t.Allocations) > 0 {
		if dst, err = anyField(dst, "allocations", t.Allocations); err != nil {
			return dst, err
		}
	}
	dst = jsonappend.OmitStringPtr(dst, "currencyCode", x.CurrencyCode)
	dst = jsonappend.OmitStringPtr(dst, "processorName", x.ProcessorName)
	dst = jsonappend.OmitStringPtr(dst, "processorMerchantId", x.ProcessorMerchantID)
	dst = jsonappend.OmitStringPtr(dst, "cardTokenType", x.CardTokenType)
	return append(dst, '}'), nil
}

func omitDuration(dst []byte, key string, d time.Duration) []byte {
	return jsonappend.OmitInt(dst, key, int64(d))
}

func appendStatusReasonPtr(dst []byte, key string, r *simulator.StatusReason) []byte {
	if r == nil {
		return dst
	}
	return wire.StatusReason(jsonappend.Key(dst, key), r)
}

func appendAccountShort(dst []byte, a *accountShort) []byte {
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "n", a.Name)
	dst = jsonappend.OmitString(dst, "m", a.MerchantID)
	dst = jsonappend.OmitBool(dst, "y", a.AsyncCapture)
	dst = omitDuration(dst, "sa", a.SettleAfter)
	dst = jsonappend.OmitBool(dst, "ac", a.AuthorizationCode)
	return append(dst, '}')
}

func appendPlanShort(dst []byte, pl *planShort) []byte {
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "r", pl.Rule)
	dst = jsonappend.OmitString(dst, "w", pl.Why)
	if len(pl.Steps) > 0 {
		dst = append(jsonappend.Key(dst, "s"), '[')
		for i := range pl.Steps {
			if i > 0 {
				dst = append(dst, ',')
			}
			st := &pl.Steps[i]
			dst = append(dst, '{')
			dst = appendAccountShort(jsonappend.Key(dst, "a"), &st.Account)
			dst = jsonappend.OmitString(dst, "s", string(st.Status))
			dst = appendStatusReasonPtr(dst, "r", st.Reason)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if c := pl.Capture; c != nil {
		dst = append(jsonappend.Key(dst, "c"), '{')
		dst = jsonappend.OmitString(dst, "s", string(c.Status))
		dst = omitDuration(dst, "sa", c.SettleAfter)
		dst = jsonappend.OmitString(dst, "st", string(c.SettleTo))
		dst = appendStatusReasonPtr(dst, "r", c.Reason)
		dst = append(dst, '}')
	}
	if r := pl.Refund; r != nil {
		dst = append(jsonappend.Key(dst, "f"), '{')
		dst = jsonappend.OmitString(dst, "s", string(r.Status))
		dst = omitDuration(dst, "af", r.After)
		dst = jsonappend.OmitString(dst, "rt", string(r.ResolveTo))
		dst = appendStatusReasonPtr(dst, "r", r.Reason)
		dst = append(dst, '}')
	}
	if d := pl.Dispute; d != nil {
		dst = append(jsonappend.Key(dst, "d"), '{')
		dst = omitDuration(dst, "af", d.After)
		dst = jsonappend.OmitString(dst, "r", d.Reason)
		dst = jsonappend.OmitInt(dst, "am", d.Amount)
		if len(d.Then) > 0 {
			dst = append(jsonappend.Key(dst, "t"), '[')
			for i, st := range d.Then {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, '{')
				dst = jsonappend.OmitString(dst, "s", st.Status)
				dst = omitDuration(dst, "af", st.After)
				dst = append(dst, '}')
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	if pl.Account != nil {
		dst = appendAccountShort(jsonappend.Key(dst, "a"), pl.Account)
	}
	dst = jsonappend.OmitInt(dst, "as", int64(pl.AccountStep))
	return append(dst, '}')
}

// appendInstRec appends rec as encoding/json encodes it (the instrument's
// members less tenantId and card, then instRec's own).
func appendInstRec(dst []byte, rec *instRec) ([]byte, error) {
	in := &rec.Instrument
	var err error
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "token", in.Token)
	dst = jsonappend.StringField(dst, "tokenType", string(in.TokenType))
	dst = jsonappend.StringField(dst, "expirationMonth", in.ExpiryMonth)
	dst = jsonappend.StringField(dst, "expirationYear", in.ExpiryYear)
	dst = jsonappend.OmitString(dst, "cardholderName", in.CardholderName)
	dst = jsonappend.OmitBool(dst, "cvvGiven", in.CVVGiven)
	dst = jsonappend.StringField(dst, "analyticsId", in.AnalyticsID)
	if dst, err = timeField(dst, "createdAt", in.CreatedAt); err != nil {
		return dst, err
	}
	dst = jsonappend.OmitString(dst, "sessionId", in.SessionID)
	dst = jsonappend.OmitString(dst, "attemptId", in.AttemptID)
	dst = jsonappend.OmitBool(dst, "used", in.Used)
	dst = jsonappend.OmitBool(dst, "invalidated", in.Invalidated)
	dst = jsonappend.OmitString(dst, "vaultedAs", in.VaultedAs)
	dst = jsonappend.OmitString(dst, "customerId", in.CustomerID)
	dst = jsonappend.OmitString(dst, "sourceToken", in.SourceToken)
	dst = jsonappend.OmitBool(dst, "verified", in.Verified)
	dst = jsonappend.OmitBool(dst, "default", in.Default)
	dst = jsonappend.OmitBool(dst, "deleted", in.Deleted)
	if !in.DeletedAt.IsZero() {
		if dst, err = timeField(dst, "deletedAt", in.DeletedAt); err != nil {
			return dst, err
		}
	}
	dst = jsonappend.OmitString(dst, "tenantId", rec.TenantID)
	if rec.Card != nil {
		if dst, err = anyField(dst, "card", rec.Card); err != nil {
			return dst, err
		}
	}
	if rec.Ref != nil {
		dst = appendCardRef(jsonappend.Key(dst, "cr"), rec.Ref)
	}
	return append(dst, '}'), nil
}

// appendEvRec appends rec as encoding/json encodes it.
func appendEvRec(dst []byte, rec *evRec) ([]byte, error) {
	var err error
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "id", rec.ID)
	dst = jsonappend.OmitString(dst, "tenantId", rec.TenantID)
	dst = jsonappend.StringField(dst, "eventType", rec.Type)
	dst = jsonappend.StringField(dst, "paymentId", rec.PaymentID)
	dst = jsonappend.OmitString(dst, "disputeId", rec.DisputeID)
	if dst, err = timeField(dst, "createdAt", rec.CreatedAt); err != nil {
		return dst, err
	}
	if len(rec.Body) > 0 {
		if dst, err = anyField(dst, "body", rec.Body); err != nil {
			return dst, err
		}
	}
	dst = jsonappend.StringField(dst, "status", rec.Status)
	if !rec.NextAt.IsZero() {
		if dst, err = timeField(dst, "nextAt", rec.NextAt); err != nil {
			return dst, err
		}
	}
	if len(rec.Attempts) > 0 {
		dst = append(jsonappend.Key(dst, "attempts"), '[')
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
				dst = strconv.AppendInt(jsonappend.Key(dst, "statusCode"), int64(a.StatusCode), 10)
			}
			dst = jsonappend.OmitInt(dst, "latencyMs", a.LatencyMs)
			dst = jsonappend.OmitString(dst, "error", a.Error)
			dst = jsonappend.OmitString(dst, "responseBodyHead", a.ResponseBodyHead)
			dst = jsonappend.OmitString(dst, "signedAt", a.SignedAt)
			if len(a.Headers) > 0 {
				if dst, err = anyField(dst, "headers", a.Headers); err != nil {
					return dst, err
				}
			}
			dst = jsonappend.OmitBool(dst, "replay", a.Replay)
			dst = jsonappend.OmitString(dst, "chaos", a.Chaos)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}
