package webhooks

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysandbox/paysandbox/internal/jsonappend"
	"github.com/paysandbox/paysandbox/internal/wire"
	"github.com/paysandbox/paysandbox/simulator"
)

// Reflection-free encoding of the payment webhook bodies (PAYMENT.STATUS,
// PAYMENT.REFUND); dispute bodies stay on encoding/json.
//
// Contract: appendPaymentBody(dst, ev, p) appends exactly the bytes
// encoding/json's Encoder with SetEscapeHTML(false) (the encoder RenderEvent
// used for every body) writes for the reference body
//
//	paymentEventBody{EventType: ev.Type, Date: ts(ev.CreatedAt),
//		NotificationConfig: notificationConfig(ev.TenantID), Version: Version,
//		Payment: toPaymentDTO(p)}
//
// without its trailing newline, and fails exactly when that encoder fails.
// It writes from the domain records directly, so no DTO, time string or
// slice is built per body: key order is the field order of the DTOs in
// payload.go, omitempty drops "", 0, false, nil pointers and empty slices and
// maps, first6Digits is null when empty, transactions and events are [] when
// empty. Metadata is free-form and handed to encoding/json with the same
// settings. The differential test and FuzzWebhookBody (payload_encode_test.go)
// hold it to that contract over payments filled by reflection, so a field
// mapped in toPaymentDTO and forgotten here fails them. Bodies are signed and
// stored: a byte that differs from the reference is a bug.

// bodyBuffers holds the scratch buffers bodies are rendered into before the
// exact-size copy RenderEvent returns.
var bodyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledBody bounds the buffers put back into bodyBuffers.
const maxPooledBody = 64 << 10

// renderPaymentBody is the body of payment event ev in a new slice of its
// exact length.
func renderPaymentBody(ev *simulator.Event, p *simulator.Payment) (json.RawMessage, error) {
	bp := bodyBuffers.Get().(*[]byte)
	out, err := appendPaymentBody((*bp)[:0], ev, p)
	var body json.RawMessage
	if err == nil {
		body = make(json.RawMessage, len(out))
		copy(body, out)
	}
	if cap(out) <= maxPooledBody {
		*bp = out[:0]
		bodyBuffers.Put(bp)
	}
	return body, err
}

// notificationConfigIDs caches notificationConfig(tenantID).ID (a SHA-1
// uuid) for up to maxCachedConfigIDs tenants; beyond that it is computed.
var (
	notificationConfigIDs sync.Map // tenant id -> string
	cachedConfigIDs       atomic.Int64
)

const maxCachedConfigIDs = 4096

func notificationConfigID(tenantID string) string {
	if id, ok := notificationConfigIDs.Load(tenantID); ok {
		return id.(string)
	}
	id := notificationConfig(tenantID).ID
	if cachedConfigIDs.Load() < maxCachedConfigIDs {
		if _, loaded := notificationConfigIDs.LoadOrStore(tenantID, id); !loaded {
			cachedConfigIDs.Add(1)
		}
	}
	return id
}

// appendTime is the JSON string of ts(t), simulator.TimeFormat in UTC
// ("2006-01-02T15:04:05.000000Z": microseconds, truncated). Years outside
// 1000-9999 take time.Format's own path; either way the bytes are digits,
// '-', ':', '.', 'T' and 'Z', none of which needs escaping.
func appendTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 1000 || year > 9999 {
		dst = t.AppendFormat(append(dst, '"'), simulator.TimeFormat)
		return append(dst, '"')
	}
	hour, minute, sec := t.Clock()
	micro := t.Nanosecond() / 1000
	return append(dst, '"',
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.',
		byte('0'+micro/100000), byte('0'+micro/10000%10), byte('0'+micro/1000%10),
		byte('0'+micro/100%10), byte('0'+micro/10%10), byte('0'+micro%10), 'Z', '"')
}

func appendTimeField(dst []byte, key string, t time.Time) []byte {
	return appendTime(jsonappend.Key(dst, key), t)
}

func appendPaymentBody(dst []byte, ev *simulator.Event, p *simulator.Payment) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "eventType", ev.Type)
	dst = appendTimeField(dst, "date", ev.CreatedAt)
	dst = append(dst, `,"signedAt":""`...) // signedAtSlot, filled by Stamp
	dst = append(jsonappend.Key(dst, "notificationConfig"), '{')
	dst = jsonappend.StringField(dst, "id", notificationConfigID(ev.TenantID))
	dst = jsonappend.StringField(dst, "description", notificationConfigDescription)
	dst = append(dst, '}')
	dst = jsonappend.StringField(dst, "version", Version)
	dst, err := appendPayment(jsonappend.Key(dst, "payment"), p)
	if err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// appendPayment is paymentDTO.
func appendPayment(dst []byte, p *simulator.Payment) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "id", p.ID)
	dst = appendTimeField(dst, "date", p.Date)
	dst = appendTimeField(dst, "dateUpdated", p.DateUpdated)
	dst = jsonappend.StringField(dst, "status", string(p.Status))
	dst = jsonappend.StringField(dst, "orderId", p.OrderID)
	dst = jsonappend.StringField(dst, "currencyCode", p.CurrencyCode)
	dst = jsonappend.IntField(dst, "amount", p.Amount)
	dst = jsonappend.OmitString(dst, "customerId", p.CustomerID)
	if len(p.Metadata) > 0 {
		var err error
		if dst, err = jsonappend.Any(jsonappend.Key(dst, "metadata"), p.Metadata); err != nil {
			return dst, err
		}
	}
	if c := p.Customer; c != nil {
		dst = appendCustomer(jsonappend.Key(dst, "customer"), c)
	}
	dst = appendPaymentMethod(jsonappend.Key(dst, "paymentMethod"), &p.PaymentMethod)
	if pr := p.Processor; pr != nil {
		dst = append(jsonappend.Key(dst, "processor"), '{')
		dst = jsonappend.StringField(dst, "name", pr.Name)
		dst = jsonappend.StringField(dst, "processorMerchantId", pr.ProcessorMerchantID)
		dst = jsonappend.IntField(dst, "amountCaptured", pr.AmountCaptured)
		dst = jsonappend.IntField(dst, "amountRefunded", pr.AmountRefunded)
		dst = append(dst, '}')
	}
	if r := p.StatusReason; r != nil {
		dst = wire.StatusReason(jsonappend.Key(dst, "statusReason"), r)
	}
	dst = append(jsonappend.Key(dst, "transactions"), '[')
	for i := range p.Transactions {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendTransaction(dst, &p.Transactions[i], p.OrderID)
	}
	dst = append(dst, ']')
	if r := p.RiskData; r != nil {
		dst = wire.RiskData(jsonappend.Key(dst, "riskData"), r)
	}
	return append(dst, '}'), nil
}

// appendCustomer is customerDTO.
func appendCustomer(dst []byte, c *simulator.Customer) []byte {
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "emailAddress", c.EmailAddress)
	dst = jsonappend.OmitString(dst, "mobileNumber", c.MobileNumber)
	dst = jsonappend.OmitString(dst, "firstName", c.FirstName)
	dst = jsonappend.OmitString(dst, "lastName", c.LastName)
	if a := c.BillingAddress; a != nil {
		dst = wire.Address(jsonappend.Key(dst, "billingAddress"), a)
	}
	if a := c.ShippingAddress; a != nil {
		dst = wire.Address(jsonappend.Key(dst, "shippingAddress"), a)
	}
	dst = jsonappend.OmitString(dst, "taxId", c.TaxID)
	dst = jsonappend.OmitString(dst, "nationalDocumentId", c.NationalDocumentID)
	return append(dst, '}')
}

// appendPaymentMethod is paymentMethodDTO with its cardDTO and binDataDTO.
func appendPaymentMethod(dst []byte, m *simulator.PaymentMethod) []byte {
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "paymentType", m.PaymentType)
	dst = jsonappend.StringField(dst, "paymentMethodToken", m.PaymentMethodToken)
	dst = jsonappend.BoolField(dst, "isVaulted", m.IsVaulted)
	dst = jsonappend.OmitString(dst, "authorizationType", m.AuthorizationType)
	dst = jsonappend.OmitString(dst, "descriptor", m.Descriptor)
	dst = jsonappend.OmitString(dst, "analyticsId", m.AnalyticsID)
	dst = jsonappend.StringField(dst, "paymentMethodType", m.PaymentMethodType)
	c := &m.Data
	dst = append(jsonappend.Key(dst, "paymentMethodData"), '{')
	dst = jsonappend.Key(dst, "first6Digits")
	if c.First6Digits == "" {
		dst = append(dst, "null"...)
	} else {
		dst = jsonappend.String(dst, c.First6Digits)
	}
	dst = jsonappend.StringField(dst, "last4Digits", c.Last4Digits)
	dst = jsonappend.StringField(dst, "expirationMonth", c.ExpirationMonth)
	dst = jsonappend.StringField(dst, "expirationYear", c.ExpirationYear)
	dst = jsonappend.OmitString(dst, "cardholderName", c.CardholderName)
	dst = jsonappend.StringField(dst, "network", c.Network)
	dst = jsonappend.BoolField(dst, "isNetworkTokenized", c.IsNetworkTokenized)
	dst = wire.BinData(jsonappend.Key(dst, "binData"), &c.BinData)
	dst = append(dst, '}')
	if t := m.ThreeDSecure; t != nil {
		dst = wire.ThreeDSecure(jsonappend.Key(dst, "threeDSecureAuthentication"), t)
	}
	return append(dst, '}')
}

// appendTransaction is transactionDTO with its eventDTOs; orderID is the
// payment's.
func appendTransaction(dst []byte, t *simulator.Transaction, orderID string) []byte {
	dst = append(dst, '{')
	dst = appendTimeField(dst, "date", t.Date)
	dst = jsonappend.IntField(dst, "amount", t.Amount)
	dst = jsonappend.StringField(dst, "currencyCode", t.CurrencyCode)
	dst = jsonappend.OmitString(dst, "orderId", orderID)
	dst = jsonappend.StringField(dst, "transactionType", t.Type)
	dst = jsonappend.StringField(dst, "processorTransactionId", t.ProcessorTransactionID)
	dst = jsonappend.StringField(dst, "processorName", t.ProcessorName)
	dst = jsonappend.StringField(dst, "processorMerchantId", t.ProcessorMerchantID)
	dst = jsonappend.StringField(dst, "processorStatus", string(t.ProcessorStatus))
	if r := t.ProcessorStatusReason; r != nil {
		dst = wire.StatusReason(jsonappend.Key(dst, "processorStatusReason"), r)
	}
	dst = jsonappend.OmitString(dst, "cardTokenType", t.CardTokenType)
	dst = jsonappend.OmitString(dst, "authorizationCode", t.AuthorizationCode)
	dst = jsonappend.OmitString(dst, "reason", t.Reason)
	dst = append(jsonappend.Key(dst, "events"), '[')
	for i := range t.Events {
		if i > 0 {
			dst = append(dst, ',')
		}
		e := &t.Events[i]
		dst = append(dst, '{')
		dst = jsonappend.StringField(dst, "id", e.ID)
		dst = appendTimeField(dst, "date", e.Date)
		dst = jsonappend.StringField(dst, "type", e.Type)
		dst = jsonappend.OmitIntPtr(dst, "amount", e.Amount)
		dst = jsonappend.OmitBoolPtr(dst, "final", e.Final)
		dst = append(dst, '}')
	}
	return append(dst, ']', '}')
}
