package httpapi

import (
	"github.com/paysandbox/paysandbox/internal/jsonappend"
	"github.com/paysandbox/paysandbox/internal/wire"
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

// appendString is jsonappend.String (the string test calls it by this name).
func appendString(dst []byte, s string) []byte { return jsonappend.String(dst, s) }

// appendOmitMap is a map[string]any field with omitempty.
func appendOmitMap(dst []byte, key string, m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return dst, nil
	}
	return jsonappend.Any(jsonappend.Key(dst, key), m)
}

// appendOmitStrings is a []string field with omitempty.
func appendOmitStrings(dst []byte, key string, v []string) []byte {
	if len(v) == 0 {
		return dst
	}
	dst = append(jsonappend.Key(dst, key), '[')
	for i, s := range v {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonappend.String(dst, s)
	}
	return append(dst, ']')
}

// Payments.

func (d paymentDTO) appendJSON(dst []byte) ([]byte, error) {
	var err error
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "id", d.ID)
	dst = jsonappend.StringField(dst, "date", d.Date)
	dst = jsonappend.StringField(dst, "dateUpdated", d.DateUpdated)
	dst = jsonappend.StringField(dst, "status", d.Status)
	dst = jsonappend.StringField(dst, "orderId", d.OrderID)
	dst = jsonappend.StringField(dst, "currencyCode", d.CurrencyCode)
	dst = jsonappend.IntField(dst, "amount", d.Amount)
	dst = jsonappend.OmitString(dst, "customerId", d.CustomerID)
	if d.Customer != nil {
		dst = d.Customer.appendJSON(jsonappend.Key(dst, "customer"))
	}
	if d.Order != nil {
		if dst, err = appendOrder(jsonappend.Key(dst, "order"), d.Order); err != nil {
			return dst, err
		}
	}
	dst = jsonappend.OmitString(dst, "cardTokenType", d.CardTokenType)
	dst = d.PaymentMethod.appendJSON(jsonappend.Key(dst, "paymentMethod"))
	if d.Processor != nil {
		dst = d.Processor.appendJSON(jsonappend.Key(dst, "processor"))
	}
	dst = jsonappend.Key(dst, "transactions")
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
		dst = d.RequiredAction.appendJSON(jsonappend.Key(dst, "requiredAction"))
	}
	if d.StatusReason != nil {
		dst = wire.StatusReason(jsonappend.Key(dst, "statusReason"), d.StatusReason)
	}
	if d.RiskData != nil {
		dst = wire.RiskData(jsonappend.Key(dst, "riskData"), d.RiskData)
	}
	return append(dst, '}'), nil
}

func (c *paymentCustomerDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "email", c.Email)
	dst = jsonappend.OmitString(dst, "mobileNumber", c.MobileNumber)
	dst = jsonappend.OmitString(dst, "firstName", c.FirstName)
	dst = jsonappend.OmitString(dst, "lastName", c.LastName)
	if c.BillingAddress != nil {
		dst = wire.Address(jsonappend.Key(dst, "billingAddress"), c.BillingAddress)
	}
	if c.ShippingAddress != nil {
		dst = wire.Address(jsonappend.Key(dst, "shippingAddress"), c.ShippingAddress)
	}
	dst = jsonappend.OmitString(dst, "taxId", c.TaxID)
	dst = jsonappend.OmitString(dst, "nationalDocumentId", c.NationalDocumentID)
	return append(dst, '}')
}

func appendOrder(dst []byte, o *simulator.Order) ([]byte, error) {
	dst = append(dst, '{')
	if len(o.LineItems) > 0 {
		dst = append(jsonappend.Key(dst, "lineItems"), '[')
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
	dst = jsonappend.OmitString(dst, "countryCode", o.CountryCode)
	dst = jsonappend.OmitString(dst, "retailerCountryCode", o.RetailerCountryCode)
	if len(o.Fees) > 0 {
		dst = append(jsonappend.Key(dst, "fees"), '[')
		for i := range o.Fees {
			if i > 0 {
				dst = append(dst, ',')
			}
			f := &o.Fees[i]
			dst = append(dst, '{')
			dst = jsonappend.OmitIntPtr(dst, "amount", f.Amount)
			dst = jsonappend.OmitString(dst, "type", f.Type)
			dst = jsonappend.OmitString(dst, "description", f.Description)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if s := o.Shipping; s != nil {
		dst = append(jsonappend.Key(dst, "shipping"), '{')
		dst = jsonappend.OmitIntPtr(dst, "amount", s.Amount)
		dst = jsonappend.OmitString(dst, "methodId", s.MethodID)
		dst = jsonappend.OmitString(dst, "methodName", s.MethodName)
		dst = jsonappend.OmitString(dst, "methodDescription", s.MethodDescription)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

func appendLineItem(dst []byte, li *simulator.LineItem) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "itemId", li.ItemID)
	dst = jsonappend.OmitString(dst, "name", li.Name)
	dst = jsonappend.OmitString(dst, "description", li.Description)
	dst = jsonappend.OmitIntPtr(dst, "amount", li.Amount)
	dst = jsonappend.OmitIntPtr(dst, "quantity", li.Quantity)
	dst = jsonappend.OmitIntPtr(dst, "discountAmount", li.DiscountAmount)
	dst = jsonappend.OmitIntPtr(dst, "taxAmount", li.TaxAmount)
	dst = jsonappend.OmitString(dst, "taxCode", li.TaxCode)
	dst = jsonappend.OmitString(dst, "productType", li.ProductType)
	if pd := li.ProductData; pd != nil {
		dst = append(jsonappend.Key(dst, "productData"), '{')
		dst = jsonappend.OmitString(dst, "sku", pd.Sku)
		dst = jsonappend.OmitString(dst, "brand", pd.Brand)
		dst = jsonappend.OmitString(dst, "color", pd.Color)
		dst = jsonappend.OmitString(dst, "globalTradeItemNumber", pd.GlobalTradeItemNumber)
		dst = jsonappend.OmitString(dst, "manufacturerPartNumber", pd.ManufacturerPartNumber)
		if pd.Weight != nil {
			var err error
			if dst, err = jsonappend.Float(jsonappend.Key(dst, "weight"), *pd.Weight); err != nil {
				return dst, err
			}
		}
		dst = jsonappend.OmitString(dst, "weightUnit", pd.WeightUnit)
		dst = jsonappend.OmitString(dst, "pageUrl", pd.PageURL)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

func (m *paymentMethodDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "paymentType", m.PaymentType)
	dst = jsonappend.StringField(dst, "paymentMethodToken", m.PaymentMethodToken)
	dst = jsonappend.BoolField(dst, "isVaulted", m.IsVaulted)
	dst = jsonappend.OmitString(dst, "authorizationType", m.AuthorizationType)
	dst = jsonappend.OmitString(dst, "descriptor", m.Descriptor)
	dst = jsonappend.OmitString(dst, "analyticsId", m.AnalyticsID)
	dst = jsonappend.StringField(dst, "paymentMethodType", m.PaymentMethodType)
	dst = m.PaymentMethodData.appendJSON(jsonappend.Key(dst, "paymentMethodData"))
	if t := m.ThreeDSecureAuthentication; t != nil {
		dst = wire.ThreeDSecure(jsonappend.Key(dst, "threeDSecureAuthentication"), t)
	}
	return append(dst, '}')
}

func (c *cardDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonappend.Key(dst, "first6Digits")
	if c.First6Digits == nil {
		dst = append(dst, "null"...)
	} else {
		dst = jsonappend.String(dst, *c.First6Digits)
	}
	dst = jsonappend.StringField(dst, "last4Digits", c.Last4Digits)
	dst = jsonappend.StringField(dst, "expirationMonth", c.ExpirationMonth)
	dst = jsonappend.StringField(dst, "expirationYear", c.ExpirationYear)
	dst = jsonappend.OmitString(dst, "cardholderName", c.CardholderName)
	dst = jsonappend.StringField(dst, "network", c.Network)
	dst = jsonappend.BoolField(dst, "isNetworkTokenized", c.IsNetworkTokenized)
	dst = wire.BinData(jsonappend.Key(dst, "binData"), &c.BinData)
	return append(dst, '}')
}

func (p *processorDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "name", p.Name)
	dst = jsonappend.StringField(dst, "processorMerchantId", p.ProcessorMerchantID)
	dst = jsonappend.IntField(dst, "amountCaptured", p.AmountCaptured)
	dst = jsonappend.IntField(dst, "amountRefunded", p.AmountRefunded)
	return append(dst, '}')
}

func (t *transactionDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "type", t.Type)
	dst = jsonappend.StringField(dst, "date", t.Date)
	dst = jsonappend.IntField(dst, "amount", t.Amount)
	dst = jsonappend.StringField(dst, "currencyCode", t.CurrencyCode)
	dst = jsonappend.StringField(dst, "processorStatus", t.ProcessorStatus)
	if t.ProcessorStatusReason != nil {
		dst = wire.StatusReason(jsonappend.Key(dst, "processorStatusReason"), t.ProcessorStatusReason)
	}
	dst = jsonappend.StringField(dst, "processorName", t.ProcessorName)
	dst = jsonappend.StringField(dst, "processorMerchantId", t.ProcessorMerchantID)
	dst = jsonappend.StringField(dst, "processorTransactionId", t.ProcessorTransactionID)
	dst = jsonappend.OmitString(dst, "cardTokenType", t.CardTokenType)
	dst = jsonappend.OmitString(dst, "authorizationCode", t.AuthorizationCode)
	dst = jsonappend.OmitString(dst, "reason", t.Reason)
	if len(t.Events) > 0 {
		dst = append(jsonappend.Key(dst, "events"), '[')
		for i := range t.Events {
			if i > 0 {
				dst = append(dst, ',')
			}
			e := &t.Events[i]
			dst = append(dst, '{')
			dst = jsonappend.StringField(dst, "id", e.ID)
			dst = jsonappend.StringField(dst, "date", e.Date)
			dst = jsonappend.StringField(dst, "type", e.Type)
			dst = jsonappend.OmitIntPtr(dst, "amount", e.Amount)
			dst = jsonappend.OmitBoolPtr(dst, "final", e.Final)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func (r *requiredActionDTO) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "name", r.Name)
	dst = jsonappend.StringField(dst, "description", r.Description)
	dst = jsonappend.OmitString(dst, "clientToken", r.ClientToken)
	dst = jsonappend.OmitString(dst, "challengeUrl", r.ChallengeURL)
	return append(dst, '}')
}

// Sessions.

func (d sessionDTO) appendJSON(dst []byte) ([]byte, error) {
	var err error
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "clientToken", d.ClientToken)
	dst = jsonappend.OmitString(dst, "clientTokenExpirationDate", d.ClientTokenExpirationDate)
	dst = jsonappend.OmitString(dst, "customerId", d.CustomerID)
	dst = jsonappend.OmitString(dst, "orderId", d.OrderID)
	dst = jsonappend.OmitString(dst, "currencyCode", d.CurrencyCode)
	dst = jsonappend.OmitIntPtr(dst, "amount", d.Amount)
	if dst, err = appendOmitMap(dst, "metadata", d.Metadata); err != nil {
		return dst, err
	}
	if c := d.Customer; c != nil {
		dst = append(jsonappend.Key(dst, "customer"), '{')
		dst = jsonappend.OmitString(dst, "emailAddress", c.EmailAddress)
		dst = jsonappend.OmitString(dst, "mobileNumber", c.MobileNumber)
		dst = jsonappend.OmitString(dst, "firstName", c.FirstName)
		dst = jsonappend.OmitString(dst, "lastName", c.LastName)
		if c.BillingAddress != nil {
			dst = wire.Address(jsonappend.Key(dst, "billingAddress"), c.BillingAddress)
		}
		if c.ShippingAddress != nil {
			dst = wire.Address(jsonappend.Key(dst, "shippingAddress"), c.ShippingAddress)
		}
		dst = jsonappend.OmitString(dst, "taxId", c.TaxID)
		dst = jsonappend.OmitString(dst, "nationalDocumentId", c.NationalDocumentID)
		dst = append(dst, '}')
	}
	if d.Order != nil {
		if dst, err = appendOrder(jsonappend.Key(dst, "order"), d.Order); err != nil {
			return dst, err
		}
	}
	if pm := d.PaymentMethod; pm != nil {
		dst = append(jsonappend.Key(dst, "paymentMethod"), '{')
		dst = jsonappend.OmitBoolPtr(dst, "vaultOnSuccess", pm.VaultOnSuccess)
		dst = jsonappend.OmitBoolPtr(dst, "vaultOn3DS", pm.VaultOn3DS)
		dst = jsonappend.OmitBoolPtr(dst, "vaultOnAgreement", pm.VaultOnAgreement)
		dst = jsonappend.OmitString(dst, "descriptor", pm.Descriptor)
		dst = jsonappend.OmitString(dst, "paymentType", pm.PaymentType)
		dst = appendOmitStrings(dst, "orderedAllowedCardNetworks", pm.OrderedAllowedCardNetworks)
		if dst, err = appendOmitMap(dst, "options", pm.Options); err != nil {
			return dst, err
		}
		dst = jsonappend.OmitString(dst, "authorizationType", pm.AuthorizationType)
		dst = jsonappend.OmitString(dst, "firstPaymentReason", pm.FirstPaymentReason)
		dst = append(dst, '}')
	}
	dst = jsonappend.StringField(dst, "approvalMode", d.ApprovalMode)
	dst = jsonappend.OmitString(dst, "currentAttemptId", d.CurrentAttemptID)
	return append(dst, '}'), nil
}

// Tokenize and instruments.

func (d tokenizeDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "token", d.Token)
	dst = jsonappend.StringField(dst, "tokenType", d.TokenType)
	dst = jsonappend.StringField(dst, "paymentInstrumentType", d.PaymentInstrumentType)
	dst = d.PaymentInstrumentData.appendJSON(jsonappend.Key(dst, "paymentInstrumentData"))
	dst = jsonappend.StringField(dst, "analyticsId", d.AnalyticsID)
	dst = jsonappend.BoolField(dst, "isVaulted", d.IsVaulted)
	dst = jsonappend.OmitString(dst, "paymentAttemptId", d.PaymentAttemptID)
	return append(dst, '}'), nil
}

func (d instrumentDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "createdAt", d.CreatedAt)
	dst = jsonappend.OmitString(dst, "deletedAt", d.DeletedAt)
	dst = jsonappend.BoolField(dst, "deleted", d.Deleted)
	dst = jsonappend.StringField(dst, "token", d.Token)
	dst = jsonappend.StringField(dst, "tokenType", d.TokenType)
	dst = jsonappend.StringField(dst, "analyticsId", d.AnalyticsID)
	dst = jsonappend.StringField(dst, "paymentMethodType", d.PaymentMethodType)
	dst = d.PaymentMethodData.appendJSON(jsonappend.Key(dst, "paymentMethodData"))
	dst = jsonappend.OmitString(dst, "customerId", d.CustomerID)
	dst = jsonappend.BoolField(dst, "default", d.Default)
	dst = jsonappend.BoolField(dst, "isVerified", d.IsVerified)
	return append(dst, '}'), nil
}

// Attempts.

func (d approveDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "paymentAttemptId", d.PaymentAttemptID)
	dst = jsonappend.StringField(dst, "merchantPaymentId", d.MerchantPaymentID)
	return append(dst, '}'), nil
}

func (d attemptStatusDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "paymentAttemptId", d.PaymentAttemptID)
	dst = jsonappend.StringField(dst, "status", d.Status)
	return append(dst, '}'), nil
}

func (d attemptDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "paymentAttemptId", d.PaymentAttemptID)
	dst = jsonappend.StringField(dst, "clientSessionId", d.ClientSessionID)
	dst = jsonappend.StringField(dst, "status", d.Status)
	dst = jsonappend.StringField(dst, "expiresAt", d.ExpiresAt)
	dst = jsonappend.OmitString(dst, "paymentId", d.PaymentID)
	return append(dst, '}'), nil
}

// The payment list.

func (d paymentListDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.Key(dst, "data")
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
	dst = jsonappend.OmitString(dst, "nextCursor", d.NextCursor)
	dst = jsonappend.OmitString(dst, "prevCursor", d.PrevCursor)
	return append(dst, '}'), nil
}

func (d *paymentSummaryDTO) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "id", d.ID)
	dst = jsonappend.StringField(dst, "date", d.Date)
	dst = jsonappend.StringField(dst, "dateUpdated", d.DateUpdated)
	dst = jsonappend.StringField(dst, "status", d.Status)
	dst = jsonappend.StringField(dst, "orderId", d.OrderID)
	if p := d.Processor; p != nil {
		dst = append(jsonappend.Key(dst, "processor"), '{')
		dst = jsonappend.StringField(dst, "name", p.Name)
		dst = jsonappend.OmitString(dst, "processorMerchantId", p.ProcessorMerchantID)
		dst = append(dst, '}')
	}
	dst = jsonappend.StringField(dst, "currencyCode", d.CurrencyCode)
	dst = jsonappend.IntField(dst, "amount", d.Amount)
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
	dst = append(jsonappend.Key(dst, "error"), '{')
	dst = jsonappend.StringField(dst, "errorId", e.ErrorID)
	dst = jsonappend.StringField(dst, "description", e.Description)
	dst = jsonappend.OmitString(dst, "recoverySuggestion", e.RecoverySuggestion)
	dst = jsonappend.OmitString(dst, "diagnosticsId", e.DiagnosticsID)
	if len(e.ValidationErrors) > 0 {
		dst = append(jsonappend.Key(dst, "validationErrors"), '[')
		for i := range e.ValidationErrors {
			if i > 0 {
				dst = append(dst, ',')
			}
			v := &e.ValidationErrors[i]
			dst = append(dst, '{')
			dst = jsonappend.StringField(dst, "model", v.Model)
			dst = jsonappend.Key(dst, "errors")
			if v.Errors == nil {
				dst = append(dst, "null"...)
			} else {
				dst = append(dst, '[')
				for j := range v.Errors {
					if j > 0 {
						dst = append(dst, ',')
					}
					dst = append(dst, '{')
					dst = jsonappend.StringField(dst, "path", v.Errors[j].Path)
					dst = jsonappend.StringField(dst, "description", v.Errors[j].Description)
					dst = append(dst, '}')
				}
				dst = append(dst, ']')
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = jsonappend.OmitString(dst, "paymentId", e.PaymentID)
	dst = jsonappend.OmitString(dst, "paymentStatus", e.PaymentStatus)
	return append(dst, '}', '}'), nil
}
