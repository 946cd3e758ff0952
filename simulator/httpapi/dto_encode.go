package httpapi

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/paysandbox/paysandbox/simulator"
)

// Reflection-free encoding of the hot answers (payments and the payment list,
// sessions, tokenize, instruments, attempts, the error envelope).
//
// Contract: for every value v of a type below, v.appendJSON(nil) returns
// exactly the bytes encoding/json's Encoder with SetEscapeHTML(false) writes
// for v (without its trailing newline), or an error exactly when that encoder
// fails. Key order is the field order of the DTO, omitempty drops "", 0,
// false, nil pointers and empty slices and maps, a nil slice without
// omitempty is null. Free-form values (metadata, payment-method options) are
// handed to encoding/json. The differential test and FuzzAnswerEncoding
// (dto_encode_test.go) hold every type here to that contract, and fill the
// DTOs by reflection so that a field added to a DTO and forgotten here fails
// them.

// jsonAppender is an answer that renders itself; writeJSON uses it instead of
// encoding/json when the value has one.
type jsonAppender interface {
	appendJSON(dst []byte) ([]byte, error)
}

var (
	_ jsonAppender = paymentDTO{}
	_ jsonAppender = sessionDTO{}
	_ jsonAppender = tokenizeDTO{}
	_ jsonAppender = instrumentDTO{}
	_ jsonAppender = approveDTO{}
	_ jsonAppender = attemptStatusDTO{}
	_ jsonAppender = attemptDTO{}
	_ jsonAppender = paymentListDTO{}
	_ jsonAppender = errorBody{}
)

const hexDigits = "0123456789abcdef"

// plainByte marks the bytes a string carries as they are: ASCII from space
// up, but `"` and `\`.
var plainByte = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// appendString is encoding/json's string encoding without HTML escaping:
// `"` and `\` escaped, \b \f \n \r \t by name, other bytes below 0x20 as
// \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if plainByte[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendKey starts a member: a comma unless it is the object's first, then
// the quoted key (a Go literal of plain ASCII, so written as is) and a colon.
// Every value ends with a byte other than '{', so the last byte tells whether
// the object already has a member.
func appendKey(dst []byte, key string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

func appendStringField(dst []byte, key, v string) []byte {
	return appendString(appendKey(dst, key), v)
}

// appendOmitString is a string field with omitempty.
func appendOmitString(dst []byte, key, v string) []byte {
	if v == "" {
		return dst
	}
	return appendStringField(dst, key, v)
}

func appendIntField(dst []byte, key string, v int64) []byte {
	return strconv.AppendInt(appendKey(dst, key), v, 10)
}

// appendOmitIntPtr is a *int64 field with omitempty.
func appendOmitIntPtr(dst []byte, key string, v *int64) []byte {
	if v == nil {
		return dst
	}
	return appendIntField(dst, key, *v)
}

func appendBoolField(dst []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendKey(dst, key), v)
}

// appendOmitBoolPtr is a *bool field with omitempty.
func appendOmitBoolPtr(dst []byte, key string, v *bool) []byte {
	if v == nil {
		return dst
	}
	return appendBoolField(dst, key, *v)
}

// appendFloat is encoding/json's float64 encoding (ES6 number formatting);
// NaN and infinities are refused by encoding/json itself, with its error.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := json.Marshal(f)
		return dst, err
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 -> e-9, as encoding/json writes it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// appendAny encodes a free-form value with encoding/json (HTML escaping off,
// as writeJSON encodes), so maps keep its sorted keys and json.Number its
// checks.
func appendAny(dst []byte, v any) ([]byte, error) {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := newJSONEncoder(buf).Encode(v); err != nil {
		return dst, err
	}
	b := buf.Bytes()
	return append(dst, b[:len(b)-1]...), nil // Encode ends with a newline
}

// appendOmitMap is a map[string]any field with omitempty.
func appendOmitMap(dst []byte, key string, m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return dst, nil
	}
	return appendAny(appendKey(dst, key), m)
}

// appendOmitStrings is a []string field with omitempty.
func appendOmitStrings(dst []byte, key string, v []string) []byte {
	if len(v) == 0 {
		return dst
	}
	dst = append(appendKey(dst, key), '[')
	for i, s := range v {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// Payments.

func (d paymentDTO) appendJSON(dst []byte) ([]byte, error) {
	var err error
	dst = append(dst, '{')
	dst = appendStringField(dst, "id", d.ID)
	dst = appendStringField(dst, "date", d.Date)
	dst = appendStringField(dst, "dateUpdated", d.DateUpdated)
	dst = appendStringField(dst, "status", d.Status)
	dst = appendStringField(dst, "orderId", d.OrderID)
	dst = appendStringField(dst, "currencyCode", d.CurrencyCode)
	dst = appendIntField(dst, "amount", d.Amount)
	dst = appendOmitString(dst, "customerId", d.CustomerID)
	if d.Customer != nil {
		dst = d.Customer.appendJSON(appendKey(dst, "customer"))
	}
	if d.Order != nil {
		if dst, err = appendOrder(appendKey(dst, "order"), d.Order); err != nil {
			return dst, err
		}
	}
	dst = appendOmitString(dst, "cardTokenType", d.CardTokenType)
	dst = d.PaymentMethod.appendJSON(appendKey(dst, "paymentMethod"))
	if d.Processor != nil {
		dst = d.Processor.appendJSON(appendKey(dst, "processor"))
	}
	dst = appendKey(dst, "transactions")
	if d.Transactions == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range d.Transactions {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = d.Transactions[i].appendJSON(dst)
		}
		dst = append(dst, ']')
	}
	if dst, err = appendOmitMap(dst, "metadata", d.Metadata); err != nil {
		return dst, err
	}
	if d.RequiredAction != nil {
		dst = d.RequiredAction.appendJSON(appendKey(dst, "requiredAction"))
	}
	if d.StatusReason != nil {
		dst = appendStatusReason(appendKey(dst, "statusReason"), d.StatusReason)
	}
	if d.RiskData != nil {
		dst = appendRiskData(appendKey(dst, "riskData"), d.RiskData)
	}
	return append(dst, '}'), nil
}

func (c *paymentCustomerDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = appendOmitString(dst, "email", c.Email)
	dst = appendOmitString(dst, "mobileNumber", c.MobileNumber)
	dst = appendOmitString(dst, "firstName", c.FirstName)
	dst = appendOmitString(dst, "lastName", c.LastName)
	if c.BillingAddress != nil {
		dst = appendAddress(appendKey(dst, "billingAddress"), c.BillingAddress)
	}
	if c.ShippingAddress != nil {
		dst = appendAddress(appendKey(dst, "shippingAddress"), c.ShippingAddress)
	}
	dst = appendOmitString(dst, "taxId", c.TaxID)
	dst = appendOmitString(dst, "nationalDocumentId", c.NationalDocumentID)
	return append(dst, '}')
}

func appendAddress(dst []byte, a *simulator.Address) []byte {
	dst = append(dst, '{')
	dst = appendOmitString(dst, "firstName", a.FirstName)
	dst = appendOmitString(dst, "lastName", a.LastName)
	dst = appendOmitString(dst, "addressLine1", a.AddressLine1)
	dst = appendOmitString(dst, "addressLine2", a.AddressLine2)
	dst = appendOmitString(dst, "city", a.City)
	dst = appendOmitString(dst, "state", a.State)
	dst = appendOmitString(dst, "countryCode", a.CountryCode)
	dst = appendOmitString(dst, "postalCode", a.PostalCode)
	return append(dst, '}')
}

func appendOrder(dst []byte, o *simulator.Order) ([]byte, error) {
	dst = append(dst, '{')
	if len(o.LineItems) > 0 {
		dst = append(appendKey(dst, "lineItems"), '[')
		for i := range o.LineItems {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendLineItem(dst, &o.LineItems[i]); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	dst = appendOmitString(dst, "countryCode", o.CountryCode)
	dst = appendOmitString(dst, "retailerCountryCode", o.RetailerCountryCode)
	if len(o.Fees) > 0 {
		dst = append(appendKey(dst, "fees"), '[')
		for i := range o.Fees {
			if i > 0 {
				dst = append(dst, ',')
			}
			f := &o.Fees[i]
			dst = append(dst, '{')
			dst = appendOmitIntPtr(dst, "amount", f.Amount)
			dst = appendOmitString(dst, "type", f.Type)
			dst = appendOmitString(dst, "description", f.Description)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if s := o.Shipping; s != nil {
		dst = append(appendKey(dst, "shipping"), '{')
		dst = appendOmitIntPtr(dst, "amount", s.Amount)
		dst = appendOmitString(dst, "methodId", s.MethodID)
		dst = appendOmitString(dst, "methodName", s.MethodName)
		dst = appendOmitString(dst, "methodDescription", s.MethodDescription)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

func appendLineItem(dst []byte, li *simulator.LineItem) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendOmitString(dst, "itemId", li.ItemID)
	dst = appendOmitString(dst, "name", li.Name)
	dst = appendOmitString(dst, "description", li.Description)
	dst = appendOmitIntPtr(dst, "amount", li.Amount)
	dst = appendOmitIntPtr(dst, "quantity", li.Quantity)
	dst = appendOmitIntPtr(dst, "discountAmount", li.DiscountAmount)
	dst = appendOmitIntPtr(dst, "taxAmount", li.TaxAmount)
	dst = appendOmitString(dst, "taxCode", li.TaxCode)
	dst = appendOmitString(dst, "productType", li.ProductType)
	if pd := li.ProductData; pd != nil {
		dst = append(appendKey(dst, "productData"), '{')
		dst = appendOmitString(dst, "sku", pd.Sku)
		dst = appendOmitString(dst, "brand", pd.Brand)
		dst = appendOmitString(dst, "color", pd.Color)
		dst = appendOmitString(dst, "globalTradeItemNumber", pd.GlobalTradeItemNumber)
		dst = appendOmitString(dst, "manufacturerPartNumber", pd.ManufacturerPartNumber)
		if pd.Weight != nil {
			var err error
			if dst, err = appendFloat(appendKey(dst, "weight"), *pd.Weight); err != nil {
				return dst, err
			}
		}
		dst = appendOmitString(dst, "weightUnit", pd.WeightUnit)
		dst = appendOmitString(dst, "pageUrl", pd.PageURL)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

func (m *paymentMethodDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = appendOmitString(dst, "paymentType", m.PaymentType)
	dst = appendStringField(dst, "paymentMethodToken", m.PaymentMethodToken)
	dst = appendBoolField(dst, "isVaulted", m.IsVaulted)
	dst = appendOmitString(dst, "authorizationType", m.AuthorizationType)
	dst = appendOmitString(dst, "descriptor", m.Descriptor)
	dst = appendOmitString(dst, "analyticsId", m.AnalyticsID)
	dst = appendStringField(dst, "paymentMethodType", m.PaymentMethodType)
	dst = m.PaymentMethodData.appendJSON(appendKey(dst, "paymentMethodData"))
	if t := m.ThreeDSecureAuthentication; t != nil {
		dst = append(appendKey(dst, "threeDSecureAuthentication"), '{')
		dst = appendStringField(dst, "responseCode", t.ResponseCode)
		dst = appendOmitString(dst, "reasonCode", t.ReasonCode)
		dst = appendOmitString(dst, "reasonText", t.ReasonText)
		dst = appendOmitString(dst, "protocolVersion", t.ProtocolVersion)
		dst = appendBoolField(dst, "challengeIssued", t.ChallengeIssued)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func (c *cardDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = appendKey(dst, "first6Digits")
	if c.First6Digits == nil {
		dst = append(dst, "null"...)
	} else {
		dst = appendString(dst, *c.First6Digits)
	}
	dst = appendStringField(dst, "last4Digits", c.Last4Digits)
	dst = appendStringField(dst, "expirationMonth", c.ExpirationMonth)
	dst = appendStringField(dst, "expirationYear", c.ExpirationYear)
	dst = appendOmitString(dst, "cardholderName", c.CardholderName)
	dst = appendStringField(dst, "network", c.Network)
	dst = appendBoolField(dst, "isNetworkTokenized", c.IsNetworkTokenized)
	b := &c.BinData
	dst = append(appendKey(dst, "binData"), '{')
	dst = appendStringField(dst, "network", b.Network)
	dst = appendOmitString(dst, "issuerCountryCode", b.IssuerCountryCode)
	dst = appendOmitString(dst, "issuerName", b.IssuerName)
	dst = appendOmitString(dst, "issuerCurrencyCode", b.IssuerCurrencyCode)
	dst = appendStringField(dst, "regionalRestriction", b.RegionalRestriction)
	dst = appendStringField(dst, "accountNumberType", b.AccountNumberType)
	dst = appendStringField(dst, "accountFundingType", b.AccountFundingType)
	dst = appendStringField(dst, "prepaidReloadableIndicator", b.PrepaidReloadableIndicator)
	dst = appendStringField(dst, "productUsageType", b.ProductUsageType)
	dst = appendStringField(dst, "productCode", b.ProductCode)
	dst = appendStringField(dst, "productName", b.ProductName)
	return append(dst, '}', '}')
}

func (p *processorDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = appendStringField(dst, "name", p.Name)
	dst = appendStringField(dst, "processorMerchantId", p.ProcessorMerchantID)
	dst = appendIntField(dst, "amountCaptured", p.AmountCaptured)
	dst = appendIntField(dst, "amountRefunded", p.AmountRefunded)
	return append(dst, '}')
}

func (t *transactionDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = appendStringField(dst, "type", t.Type)
	dst = appendStringField(dst, "date", t.Date)
	dst = appendIntField(dst, "amount", t.Amount)
	dst = appendStringField(dst, "currencyCode", t.CurrencyCode)
	dst = appendStringField(dst, "processorStatus", t.ProcessorStatus)
	if t.ProcessorStatusReason != nil {
		dst = appendStatusReason(appendKey(dst, "processorStatusReason"), t.ProcessorStatusReason)
	}
	dst = appendStringField(dst, "processorName", t.ProcessorName)
	dst = appendStringField(dst, "processorMerchantId", t.ProcessorMerchantID)
	dst = appendStringField(dst, "processorTransactionId", t.ProcessorTransactionID)
	dst = appendOmitString(dst, "cardTokenType", t.CardTokenType)
	dst = appendOmitString(dst, "authorizationCode", t.AuthorizationCode)
	dst = appendOmitString(dst, "reason", t.Reason)
	if len(t.Events) > 0 {
		dst = append(appendKey(dst, "events"), '[')
		for i := range t.Events {
			if i > 0 {
				dst = append(dst, ',')
			}
			e := &t.Events[i]
			dst = append(dst, '{')
			dst = appendStringField(dst, "id", e.ID)
			dst = appendStringField(dst, "date", e.Date)
			dst = appendStringField(dst, "type", e.Type)
			dst = appendOmitIntPtr(dst, "amount", e.Amount)
			dst = appendOmitBoolPtr(dst, "final", e.Final)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendStatusReason(dst []byte, r *simulator.StatusReason) []byte {
	dst = append(dst, '{')
	dst = appendStringField(dst, "type", r.Type)
	dst = appendOmitString(dst, "declineType", r.DeclineType)
	dst = appendOmitString(dst, "code", r.Code)
	dst = appendOmitString(dst, "message", r.Message)
	return append(dst, '}')
}

func (r *requiredActionDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = appendStringField(dst, "name", r.Name)
	dst = appendStringField(dst, "description", r.Description)
	dst = appendOmitString(dst, "clientToken", r.ClientToken)
	dst = appendOmitString(dst, "challengeUrl", r.ChallengeURL)
	return append(dst, '}')
}

func appendRiskData(dst []byte, r *simulator.RiskData) []byte {
	dst = append(dst, '{')
	if f := r.FraudChecks; f != nil {
		dst = append(appendKey(dst, "fraudChecks"), '{')
		dst = appendStringField(dst, "source", f.Source)
		dst = appendOmitString(dst, "preAuthorizationResult", f.PreAuthorizationResult)
		dst = appendOmitString(dst, "postAuthorizationResult", f.PostAuthorizationResult)
		dst = append(dst, '}')
	}
	if c := r.CVVCheck; c != nil {
		dst = append(appendKey(dst, "cvvCheck"), '{')
		dst = appendStringField(dst, "source", c.Source)
		dst = appendStringField(dst, "result", c.Result)
		dst = append(dst, '}')
	}
	if a := r.AVSCheck; a != nil {
		dst = append(appendKey(dst, "avsCheck"), '{')
		dst = appendStringField(dst, "source", a.Source)
		dst = append(appendKey(dst, "result"), '{')
		dst = appendStringField(dst, "streetAddress", a.Result.StreetAddress)
		dst = appendStringField(dst, "postalCode", a.Result.PostalCode)
		dst = append(dst, '}', '}')
	}
	return append(dst, '}')
}

// Sessions.

func (d sessionDTO) appendJSON(dst []byte) ([]byte, error) {
	var err error
	dst = append(dst, '{')
	dst = appendOmitString(dst, "clientToken", d.ClientToken)
	dst = appendOmitString(dst, "clientTokenExpirationDate", d.ClientTokenExpirationDate)
	dst = appendOmitString(dst, "customerId", d.CustomerID)
	dst = appendOmitString(dst, "orderId", d.OrderID)
	dst = appendOmitString(dst, "currencyCode", d.CurrencyCode)
	dst = appendOmitIntPtr(dst, "amount", d.Amount)
	if dst, err = appendOmitMap(dst, "metadata", d.Metadata); err != nil {
		return dst, err
	}
	if c := d.Customer; c != nil {
		dst = append(appendKey(dst, "customer"), '{')
		dst = appendOmitString(dst, "emailAddress", c.EmailAddress)
		dst = appendOmitString(dst, "mobileNumber", c.MobileNumber)
		dst = appendOmitString(dst, "firstName", c.FirstName)
		dst = appendOmitString(dst, "lastName", c.LastName)
		if c.BillingAddress != nil {
			dst = appendAddress(appendKey(dst, "billingAddress"), c.BillingAddress)
		}
		if c.ShippingAddress != nil {
			dst = appendAddress(appendKey(dst, "shippingAddress"), c.ShippingAddress)
		}
		dst = appendOmitString(dst, "taxId", c.TaxID)
		dst = appendOmitString(dst, "nationalDocumentId", c.NationalDocumentID)
		dst = append(dst, '}')
	}
	if d.Order != nil {
		if dst, err = appendOrder(appendKey(dst, "order"), d.Order); err != nil {
			return dst, err
		}
	}
	if pm := d.PaymentMethod; pm != nil {
		dst = append(appendKey(dst, "paymentMethod"), '{')
		dst = appendOmitBoolPtr(dst, "vaultOnSuccess", pm.VaultOnSuccess)
		dst = appendOmitBoolPtr(dst, "vaultOn3DS", pm.VaultOn3DS)
		dst = appendOmitBoolPtr(dst, "vaultOnAgreement", pm.VaultOnAgreement)
		dst = appendOmitString(dst, "descriptor", pm.Descriptor)
		dst = appendOmitString(dst, "paymentType", pm.PaymentType)
		dst = appendOmitStrings(dst, "orderedAllowedCardNetworks", pm.OrderedAllowedCardNetworks)
		if dst, err = appendOmitMap(dst, "options", pm.Options); err != nil {
			return dst, err
		}
		dst = appendOmitString(dst, "authorizationType", pm.AuthorizationType)
		dst = appendOmitString(dst, "firstPaymentReason", pm.FirstPaymentReason)
		dst = append(dst, '}')
	}
	dst = appendStringField(dst, "approvalMode", d.ApprovalMode)
	dst = appendOmitString(dst, "currentAttemptId", d.CurrentAttemptID)
	return append(dst, '}'), nil
}

// Tokenize and instruments.

func (d tokenizeDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendStringField(dst, "token", d.Token)
	dst = appendStringField(dst, "tokenType", d.TokenType)
	dst = appendStringField(dst, "paymentInstrumentType", d.PaymentInstrumentType)
	dst = d.PaymentInstrumentData.appendJSON(appendKey(dst, "paymentInstrumentData"))
	dst = appendStringField(dst, "analyticsId", d.AnalyticsID)
	dst = appendBoolField(dst, "isVaulted", d.IsVaulted)
	dst = appendOmitString(dst, "paymentAttemptId", d.PaymentAttemptID)
	return append(dst, '}'), nil
}

func (d instrumentDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendStringField(dst, "createdAt", d.CreatedAt)
	dst = appendOmitString(dst, "deletedAt", d.DeletedAt)
	dst = appendBoolField(dst, "deleted", d.Deleted)
	dst = appendStringField(dst, "token", d.Token)
	dst = appendStringField(dst, "tokenType", d.TokenType)
	dst = appendStringField(dst, "analyticsId", d.AnalyticsID)
	dst = appendStringField(dst, "paymentMethodType", d.PaymentMethodType)
	dst = d.PaymentMethodData.appendJSON(appendKey(dst, "paymentMethodData"))
	dst = appendOmitString(dst, "customerId", d.CustomerID)
	dst = appendBoolField(dst, "default", d.Default)
	dst = appendBoolField(dst, "isVerified", d.IsVerified)
	return append(dst, '}'), nil
}

// Attempts.

func (d approveDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendStringField(dst, "paymentAttemptId", d.PaymentAttemptID)
	dst = appendStringField(dst, "merchantPaymentId", d.MerchantPaymentID)
	return append(dst, '}'), nil
}

func (d attemptStatusDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendStringField(dst, "paymentAttemptId", d.PaymentAttemptID)
	dst = appendStringField(dst, "status", d.Status)
	return append(dst, '}'), nil
}

func (d attemptDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendStringField(dst, "paymentAttemptId", d.PaymentAttemptID)
	dst = appendStringField(dst, "clientSessionId", d.ClientSessionID)
	dst = appendStringField(dst, "status", d.Status)
	dst = appendStringField(dst, "expiresAt", d.ExpiresAt)
	dst = appendOmitString(dst, "paymentId", d.PaymentID)
	return append(dst, '}'), nil
}

// The payment list.

func (d paymentListDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendKey(dst, "data")
	if d.Data == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range d.Data {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = d.Data[i].appendJSON(dst); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	dst = appendOmitString(dst, "nextCursor", d.NextCursor)
	dst = appendOmitString(dst, "prevCursor", d.PrevCursor)
	return append(dst, '}'), nil
}

func (d *paymentSummaryDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = appendStringField(dst, "id", d.ID)
	dst = appendStringField(dst, "date", d.Date)
	dst = appendStringField(dst, "dateUpdated", d.DateUpdated)
	dst = appendStringField(dst, "status", d.Status)
	dst = appendStringField(dst, "orderId", d.OrderID)
	if p := d.Processor; p != nil {
		dst = append(appendKey(dst, "processor"), '{')
		dst = appendStringField(dst, "name", p.Name)
		dst = appendOmitString(dst, "processorMerchantId", p.ProcessorMerchantID)
		dst = append(dst, '}')
	}
	dst = appendStringField(dst, "currencyCode", d.CurrencyCode)
	dst = appendIntField(dst, "amount", d.Amount)
	dst, err := appendOmitMap(dst, "metadata", d.Metadata)
	if err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// The error envelope (every error answer, 422s included).

func (b errorBody) appendJSON(dst []byte) ([]byte, error) {
	e := &b.Error
	dst = append(dst, '{')
	dst = append(appendKey(dst, "error"), '{')
	dst = appendStringField(dst, "errorId", e.ErrorID)
	dst = appendStringField(dst, "description", e.Description)
	dst = appendOmitString(dst, "recoverySuggestion", e.RecoverySuggestion)
	dst = appendOmitString(dst, "diagnosticsId", e.DiagnosticsID)
	if len(e.ValidationErrors) > 0 {
		dst = append(appendKey(dst, "validationErrors"), '[')
		for i := range e.ValidationErrors {
			if i > 0 {
				dst = append(dst, ',')
			}
			v := &e.ValidationErrors[i]
			dst = append(dst, '{')
			dst = appendStringField(dst, "model", v.Model)
			dst = appendKey(dst, "errors")
			if v.Errors == nil {
				dst = append(dst, "null"...)
			} else {
				dst = append(dst, '[')
				for j := range v.Errors {
					if j > 0 {
						dst = append(dst, ',')
					}
					dst = append(dst, '{')
					dst = appendStringField(dst, "path", v.Errors[j].Path)
					dst = appendStringField(dst, "description", v.Errors[j].Description)
					dst = append(dst, '}')
				}
				dst = append(dst, ']')
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = appendOmitString(dst, "paymentId", e.PaymentID)
	dst = appendOmitString(dst, "paymentStatus", e.PaymentStatus)
	return append(dst, '}', '}'), nil
}
