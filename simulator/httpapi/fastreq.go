package httpapi

import "github.com/paysandbox/paysandbox/simulator"

// The one-pass decoders of the hot request types (see fastdecode.go). Each
// maps the props of its schema onto its fields; the readers check the
// schema's rules. A prop the switch does not know declines, so a field added
// to a schema but not here only costs the fast path, never correctness.
// A prop that the full path validates but its type has no field for (the
// capture's order) is read, checked and dropped, as the full path does.

// Request types with a fast decoder, with their schemas.
var (
	_ fastRequest = (*createPaymentBody)(nil)
	_ fastRequest = (*createSessionRequest)(nil)
	_ fastRequest = (*tokenizeBody)(nil)
	_ fastRequest = (*clientPaymentRequest)(nil)
	_ fastRequest = (*authorizeBody)(nil)
	_ fastRequest = (*captureBody)(nil)
	_ fastRequest = (*cancelBody)(nil)
	_ fastRequest = (*refundBody)(nil)
	_ fastRequest = (*resumeBody)(nil)
	_ fastRequest = (*vaultBody)(nil)
	_ fastRequest = (*threeDSRequestBody)(nil)
)

func (*createPaymentBody) fastSchema() *schema { return paymentCreate }

func (r *createPaymentBody) decodeFast(d reader) (int, bool) {
	ok := d.object(paymentCreate, func(name string, s *schema) bool {
		switch name {
		case "orderId":
			return d.strField(s, &r.OrderID)
		case "currencyCode":
			return d.strField(s, &r.CurrencyCode)
		case "amount":
			return d.intField(s, &r.Amount)
		case "order":
			return d.order(s, &r.Order)
		case "paymentMethodToken":
			return d.strField(s, &r.PaymentMethodToken)
		case "customerId":
			return d.strField(s, &r.CustomerID)
		case "customer":
			return d.customer(s, &r.Customer)
		case "metadata":
			return d.freeMap(s, &r.Metadata)
		case "paymentMethod":
			return d.paymentMethod(s, &r.PaymentMethod)
		case "expand":
			return d.strList(s, &r.Expand)
		}
		return false
	})
	return d.i, ok
}

func (*createSessionRequest) fastSchema() *schema { return clientSessionCreate }

// decodeFast also keeps sessionCrossFieldRules, the handler's extra rule:
// a currencyCode whenever any amount is given.
func (r *createSessionRequest) decodeFast(d reader) (int, bool) {
	sd := &r.SessionData
	ok := d.object(clientSessionCreate, func(name string, s *schema) bool {
		switch name {
		case "orderId":
			return d.strField(s, &sd.OrderID)
		case "currencyCode":
			return d.strField(s, &sd.CurrencyCode)
		case "amount":
			return d.intField(s, &sd.Amount)
		case "order":
			return d.order(s, &sd.Order)
		case "customerId":
			return d.strField(s, &sd.CustomerID)
		case "customer":
			return d.customer(s, &sd.Customer)
		case "metadata":
			return d.freeMap(s, &sd.Metadata)
		case "paymentMethod":
			return d.paymentMethod(s, &sd.PaymentMethod)
		case "approvalMode":
			return d.strField(s, &r.ApprovalMode)
		}
		return false
	})
	// The currency enum refuses "", so an empty code here was absent or null.
	return d.i, ok && (sd.CurrencyCode != "" || !sd.HasAnyAmount())
}

func (*tokenizeBody) fastSchema() *schema { return tokenizeRequest }

func (r *tokenizeBody) decodeFast(d reader) (int, bool) {
	ok := d.object(tokenizeRequest, func(name string, s *schema) bool {
		if name != "paymentInstrument" {
			return false
		}
		pi := &r.PaymentInstrument
		return d.object(s, func(name string, s *schema) bool {
			switch name {
			case "number":
				return d.strField(s, &pi.Number)
			case "cvv":
				return d.strField(s, &pi.CVV)
			case "expirationMonth":
				return d.strField(s, &pi.ExpirationMonth)
			case "expirationYear":
				return d.strField(s, &pi.ExpirationYear)
			case "cardholderName":
				return d.strField(s, &pi.CardholderName)
			}
			return false
		})
	})
	return d.i, ok
}

func (*clientPaymentRequest) fastSchema() *schema { return clientPaymentCreate }

func (r *clientPaymentRequest) decodeFast(d reader) (int, bool) {
	ok := d.object(clientPaymentCreate, func(name string, s *schema) bool {
		switch name {
		case "paymentMethodToken":
			return d.strField(s, &r.PaymentMethodToken)
		case "expand":
			return d.strList(s, &r.Expand)
		}
		return false
	})
	return d.i, ok
}

func (*authorizeBody) fastSchema() *schema { return paymentAuthorize }

func (r *authorizeBody) decodeFast(d reader) (int, bool) {
	ok := d.object(paymentAuthorize, func(name string, s *schema) bool {
		switch name {
		case "processor":
			return d.object(s, func(name string, s *schema) bool {
				switch name {
				case "processorMerchantId":
					return d.strField(s, &r.Processor.ProcessorMerchantID)
				case "name":
					return d.strField(s, &r.Processor.Name)
				}
				return false
			})
		case "expand":
			return d.strList(s, &r.Expand)
		}
		return false
	})
	return d.i, ok
}

func (*captureBody) fastSchema() *schema { return paymentCapture }

func (r *captureBody) decodeFast(d reader) (int, bool) {
	ok := d.object(paymentCapture, func(name string, s *schema) bool {
		switch name {
		case "amount":
			return d.intField(s, &r.Amount)
		case "final":
			return d.boolField(s, &r.Final)
		case "order": // validated, not used (the type has no field for it)
			var dropped map[string]any
			return d.freeMap(s, &dropped)
		case "metadata":
			return d.freeMap(s, &r.Metadata)
		case "expand":
			return d.strList(s, &r.Expand)
		}
		return false
	})
	return d.i, ok
}

func (*cancelBody) fastSchema() *schema { return paymentCancel }

func (r *cancelBody) decodeFast(d reader) (int, bool) {
	ok := d.object(paymentCancel, func(name string, s *schema) bool {
		switch name {
		case "reason":
			return d.strField(s, &r.Reason)
		case "expand":
			return d.strList(s, &r.Expand)
		}
		return false
	})
	return d.i, ok
}

func (*refundBody) fastSchema() *schema { return paymentRefund }

func (r *refundBody) decodeFast(d reader) (int, bool) {
	ok := d.object(paymentRefund, func(name string, s *schema) bool {
		switch name {
		case "amount":
			return d.intField(s, &r.Amount)
		case "orderId":
			return d.strField(s, &r.OrderID)
		case "reason":
			return d.strField(s, &r.Reason)
		case "transactionEventId":
			return d.strField(s, &r.TransactionEventID)
		case "expand":
			return d.strList(s, &r.Expand)
		}
		return false
	})
	return d.i, ok
}

func (*resumeBody) fastSchema() *schema { return paymentResume }

func (r *resumeBody) decodeFast(d reader) (int, bool) {
	ok := d.object(paymentResume, func(name string, s *schema) bool {
		switch name {
		case "resumeToken":
			return d.strField(s, &r.ResumeToken)
		case "expand":
			return d.strList(s, &r.Expand)
		}
		return false
	})
	return d.i, ok
}

func (*vaultBody) fastSchema() *schema { return vaultRequest }

func (r *vaultBody) decodeFast(d reader) (int, bool) {
	ok := d.object(vaultRequest, func(name string, s *schema) bool {
		switch name {
		case "customerId":
			return d.strField(s, &r.CustomerID)
		case "verify":
			return d.plainBool(s, &r.Verify)
		}
		return false
	})
	return d.i, ok
}

func (*threeDSRequestBody) fastSchema() *schema { return threeDSRequest }

func (r *threeDSRequestBody) decodeFast(d reader) (int, bool) {
	ok := d.object(threeDSRequest, func(name string, s *schema) bool {
		return name == "result" && d.strField(s, &r.Result)
	})
	return d.i, ok
}

// Session and payment content, shared by the session and payment bodies.

func (d *reader) order(s *schema, dst **simulator.Order) bool {
	o := &simulator.Order{}
	ok := d.object(s, func(name string, s *schema) bool {
		switch name {
		case "lineItems":
			o.LineItems = []simulator.LineItem{}
			return d.array(func() bool {
				var li simulator.LineItem
				if !d.lineItem(s.items, &li) {
					return false
				}
				o.LineItems = append(o.LineItems, li)
				return true
			})
		case "countryCode":
			return d.strField(s, &o.CountryCode)
		case "retailerCountryCode":
			return d.strField(s, &o.RetailerCountryCode)
		case "fees":
			o.Fees = []simulator.Fee{}
			return d.array(func() bool {
				var f simulator.Fee
				ok := d.object(s.items, func(name string, s *schema) bool {
					switch name {
					case "amount":
						return d.intField(s, &f.Amount)
					case "type":
						return d.strField(s, &f.Type)
					case "description":
						return d.strField(s, &f.Description)
					}
					return false
				})
				o.Fees = append(o.Fees, f)
				return ok
			})
		case "shipping":
			sh := &simulator.Shipping{}
			o.Shipping = sh
			return d.object(s, func(name string, s *schema) bool {
				switch name {
				case "amount":
					return d.intField(s, &sh.Amount)
				case "methodId":
					return d.strField(s, &sh.MethodID)
				case "methodName":
					return d.strField(s, &sh.MethodName)
				case "methodDescription":
					return d.strField(s, &sh.MethodDescription)
				}
				return false
			})
		}
		return false
	})
	*dst = o
	return ok
}

func (d *reader) lineItem(s *schema, li *simulator.LineItem) bool {
	return d.object(s, func(name string, s *schema) bool {
		switch name {
		case "itemId":
			return d.strField(s, &li.ItemID)
		case "name":
			return d.strField(s, &li.Name)
		case "description":
			return d.strField(s, &li.Description)
		case "amount":
			return d.intField(s, &li.Amount)
		case "quantity":
			return d.intField(s, &li.Quantity)
		case "discountAmount":
			return d.intField(s, &li.DiscountAmount)
		case "taxAmount":
			return d.intField(s, &li.TaxAmount)
		case "taxCode":
			return d.strField(s, &li.TaxCode)
		case "productType":
			return d.strField(s, &li.ProductType)
		case "productData":
			pd := &simulator.ProductData{}
			li.ProductData = pd
			return d.object(s, func(name string, s *schema) bool {
				switch name {
				case "sku":
					return d.strField(s, &pd.Sku)
				case "brand":
					return d.strField(s, &pd.Brand)
				case "color":
					return d.strField(s, &pd.Color)
				case "globalTradeItemNumber":
					return d.strField(s, &pd.GlobalTradeItemNumber)
				case "manufacturerPartNumber":
					return d.strField(s, &pd.ManufacturerPartNumber)
				case "weight":
					return d.floatField(s, &pd.Weight)
				case "weightUnit":
					return d.strField(s, &pd.WeightUnit)
				case "pageUrl":
					return d.strField(s, &pd.PageURL)
				}
				return false
			})
		}
		return false
	})
}

func (d *reader) customer(s *schema, dst **simulator.Customer) bool {
	c := &simulator.Customer{}
	*dst = c
	return d.object(s, func(name string, s *schema) bool {
		switch name {
		case "emailAddress":
			return d.strField(s, &c.EmailAddress)
		case "mobileNumber":
			return d.strField(s, &c.MobileNumber)
		case "firstName":
			return d.strField(s, &c.FirstName)
		case "lastName":
			return d.strField(s, &c.LastName)
		case "billingAddress":
			return d.address(s, &c.BillingAddress)
		case "shippingAddress":
			return d.address(s, &c.ShippingAddress)
		case "taxId":
			return d.strField(s, &c.TaxID)
		case "nationalDocumentId":
			return d.strField(s, &c.NationalDocumentID)
		}
		return false
	})
}

func (d *reader) address(s *schema, dst **simulator.Address) bool {
	a := &simulator.Address{}
	*dst = a
	return d.object(s, func(name string, s *schema) bool {
		switch name {
		case "firstName":
			return d.strField(s, &a.FirstName)
		case "lastName":
			return d.strField(s, &a.LastName)
		case "addressLine1":
			return d.strField(s, &a.AddressLine1)
		case "addressLine2":
			return d.strField(s, &a.AddressLine2)
		case "city":
			return d.strField(s, &a.City)
		case "state":
			return d.strField(s, &a.State)
		case "countryCode":
			return d.strField(s, &a.CountryCode)
		case "postalCode":
			return d.strField(s, &a.PostalCode)
		}
		return false
	})
}

// paymentMethod reads the payment-method options of a session, or of a
// payment (whose schema has no options and no card networks: those keys are
// then unknown and decline).
func (d *reader) paymentMethod(s *schema, dst **simulator.SessionPaymentMethod) bool {
	pm := &simulator.SessionPaymentMethod{}
	*dst = pm
	return d.object(s, func(name string, s *schema) bool {
		switch name {
		case "vaultOnSuccess":
			return d.boolField(s, &pm.VaultOnSuccess)
		case "vaultOn3DS":
			return d.boolField(s, &pm.VaultOn3DS)
		case "vaultOnAgreement":
			return d.boolField(s, &pm.VaultOnAgreement)
		case "descriptor":
			return d.strField(s, &pm.Descriptor)
		case "paymentType":
			return d.strField(s, &pm.PaymentType)
		case "orderedAllowedCardNetworks":
			return d.strList(s, &pm.OrderedAllowedCardNetworks)
		case "options":
			return d.freeMap(s, &pm.Options)
		case "authorizationType":
			return d.strField(s, &pm.AuthorizationType)
		case "firstPaymentReason":
			return d.strField(s, &pm.FirstPaymentReason)
		}
		return false
	})
}
