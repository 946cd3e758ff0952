package httpapi

import "github.com/paysandbox/paysandbox/simulator"

// The request schemas, as the vendor OpenAPI names and shapes them (plus the
// v2.4 fields of the interface spec). Model names appear in validationErrors.

// countryCode is a two-letter code (ISO 3166-1 alpha-2 shape). The format
// check covers the length, so a bad code gives one error, not two.
func countryCode() *schema { return &schema{typ: "string", format: "country"} }

var (
	currency = enum(simulator.CurrencyCodes...)

	addressSchema = obj(true,
		field("firstName", str(1, 255)), field("lastName", str(1, 255)),
		field("addressLine1", str(1, 255)), field("addressLine2", str(0, 255)),
		field("city", str(1, 255)), field("state", str(1, 255)),
		field("countryCode", countryCode()), field("postalCode", str(1, 255)),
	)

	customerSchema = obj(true,
		field("emailAddress", formatted("email")), field("mobileNumber", str(1, 255)),
		field("firstName", str(1, 255)), field("lastName", str(1, 255)),
		field("billingAddress", addressSchema), field("shippingAddress", addressSchema),
		field("taxId", str(0, 255)), field("nationalDocumentId", str(0, 255)),
	)

	productDataSchema = obj(true,
		field("sku", str(1, 255)), field("brand", str(1, 255)), field("color", str(1, 255)),
		field("globalTradeItemNumber", str(1, 255)), field("manufacturerPartNumber", str(1, 255)),
		field("weight", &schema{typ: "number", min: &zero}), field("weightUnit", str(1, 255)),
		field("pageUrl", str(1, simulator.MaxPageURL)),
	)

	lineItemSchema = obj(true,
		field("itemId", str(1, 255)), field("name", str(0, 255)), field("description", str(0, 255)),
		required("amount", amount()), field("quantity", integer(&one)),
		field("discountAmount", amount()), field("taxAmount", amount()),
		field("taxCode", str(1, 255)), field("productType", enum(simulator.ProductTypes...)),
		field("productData", productDataSchema),
	)

	orderSchema = obj(true,
		field("lineItems", arrayOf(lineItemSchema)),
		field("countryCode", countryCode()), field("retailerCountryCode", countryCode()),
		field("fees", arrayOf(obj(true, required("amount", amount()), field("type", str(1, 255)), field("description", str(1, 255))))),
		field("shipping", obj(true, field("amount", amount()), field("methodId", anyStr()), field("methodName", anyStr()), field("methodDescription", anyStr()))),
	)

	paymentTypes       = enum(simulator.PaymentTypes...)
	authorizationTypes = enum(simulator.AuthorizationTypes...)
	firstPaymentReason = enum(simulator.FirstPaymentReasons...)
	cardNetworks       = enum(simulator.CardNetworks...)

	sessionPaymentMethodSchema = obj(true,
		field("vaultOnSuccess", boolean()), field("vaultOn3DS", boolean()), field("vaultOnAgreement", boolean()),
		field("descriptor", str(0, 255)), field("paymentType", paymentTypes),
		field("orderedAllowedCardNetworks", arrayOf(cardNetworks)), field("options", freeMap()),
		field("authorizationType", authorizationTypes), field("firstPaymentReason", firstPaymentReason),
	)

	sessionFields = []prop{
		field("orderId", str(1, 255)), field("currencyCode", currency), field("amount", amount()),
		field("order", orderSchema), field("customerId", str(1, 255)), field("customer", customerSchema),
		field("metadata", freeMap()), field("paymentMethod", sessionPaymentMethodSchema),
	}

	// ClientSessionAPIRequest: POST /client-session.
	clientSessionCreate = obj(true, append(append([]prop{}, sessionFields...), field("approvalMode", enum("AUTO", "MANUAL")))...)
	// ClientSessionUpdateAPIRequest: PATCH /client-session (approvalMode is refused by the handler).
	clientSessionUpdate = obj(true, append(append([]prop{}, sessionFields...), required("clientToken", str(1, 0)))...)

	expandSchema = arrayOf(enum("transactions.events"))

	// PaymentCreationAPIRequest: POST /payments.
	paymentCreate = obj(true,
		field("orderId", str(1, 255)), field("currencyCode", currency), field("amount", amount()),
		field("order", orderSchema), required("paymentMethodToken", str(1, 0)),
		field("customerId", str(1, 255)), field("customer", customerSchema), field("metadata", freeMap()),
		field("paymentMethod", obj(true,
			field("vaultOnSuccess", boolean()), field("vaultOn3DS", boolean()), field("vaultOnAgreement", boolean()),
			field("descriptor", str(0, 255)), field("paymentType", paymentTypes),
			field("authorizationType", authorizationTypes), field("firstPaymentReason", firstPaymentReason),
		)),
		field("expand", expandSchema),
	)

	// ClientPaymentCreationRequest: POST /client/payments.
	clientPaymentCreate = obj(true, required("paymentMethodToken", str(1, 0)), field("expand", expandSchema))

	// PaymentAuthorizationAPIRequest.
	paymentAuthorize = obj(true,
		required("processor", obj(true, required("processorMerchantId", str(1, 0)), field("name", anyStr()))),
		field("expand", expandSchema),
	)
	// PaymentCaptureAPIRequest. amount 0 is refused here, with the request's
	// other rules, so that it is 422 before idempotency and existence
	// (docs/api.md; the vendor schema allows 0, ours wins).
	paymentCapture = obj(true, field("amount", amountOf(&one)), field("final", boolean()), field("order", freeMap()), field("metadata", freeMap()), field("expand", expandSchema))
	// PaymentCancelAPIRequest.
	paymentCancel = obj(true, field("reason", anyStr()), field("expand", expandSchema))
	// PaymentRefundAPIRequest.
	paymentRefund = obj(true, field("amount", amountOf(&one)), field("orderId", anyStr()), field("reason", anyStr()),
		field("transactionEventId", formatted("uuid")), field("expand", expandSchema))
	// PaymentResumeAPIRequest.
	paymentResume = obj(true, required("resumeToken", str(1, 0)), field("expand", expandSchema))

	// VaultPaymentMethodAPIRequest.
	vaultRequest = obj(true, required("customerId", str(1, 255)), field("verify", boolean()))

	// PaymentInstrumentTokenizationRequest: POST /client/payment-instruments.
	tokenizeRequest = obj(true, required("paymentInstrument", obj(true,
		required("number", str(1, 0)), field("cvv", anyStr()),
		required("expirationMonth", anyStr()), required("expirationYear", anyStr()),
		field("cardholderName", str(0, 255)),
	)))

	// ThreeDSChallengeRequest: POST /client/3ds/challenge and /_sandbox/payments/{id}/3ds.
	threeDSRequest = obj(true, required("result", enum(simulator.ThreeDSAuthSuccess, simulator.ThreeDSAuthFailed)))

	emptyRequest = obj(true)

	// Control plane.
	tenantCreate   = obj(true, field("scopes", arrayOf(enum(scopeNames()...))), field("webhookUrl", str(1, 2048)), field("webhookVersion", enum(simulator.APIVersionNames()...)), field("ttl", anyStr()))
	clockAdvance   = obj(true, required("duration", str(1, 64)))
	disputeRequest = obj(true, field("reason", str(1, 255)), field("amount", amount()))
	endpointUpdate = obj(true, required("url", str(0, 2048)))
	// scenarioNext leaves the rule's presence and the range of times to the
	// service, which lists the rule names in force with a missing or unknown rule.
	scenarioNext = obj(true, field("rule", str(0, 255)), field("times", integer(nil)))
)

var one = int64(1)

func scopeNames() []string {
	out := make([]string, len(simulator.AllScopes))
	for i, s := range simulator.AllScopes {
		out[i] = string(s)
	}
	return out
}
