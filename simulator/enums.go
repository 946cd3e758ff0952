package simulator

// The closed value sets of fields merchants send, as the vendor's request
// schemas have them: the request schemas (httpapi) accept only these, and a
// snapshot import refuses a stored value outside them. An empty value is
// the field left out.
var (
	// PaymentTypes are paymentMethod.paymentType's values.
	PaymentTypes = []string{PaymentTypeFirstPayment, PaymentTypeEcommerce, PaymentTypeSubscription, PaymentTypeUnscheduled}
	// AuthorizationTypes are paymentMethod.authorizationType's values.
	AuthorizationTypes = []string{AuthorizationEstimated, AuthorizationFinal}
	// FirstPaymentReasons are paymentMethod.firstPaymentReason's values.
	FirstPaymentReasons = []string{"CardOnFile", "Recurring", "Unscheduled"}
	// CardNetworks are the card networks a session's
	// paymentMethod.orderedAllowedCardNetworks and a scenario's `networks`
	// name.
	CardNetworks = []string{"AMEX", "DANKORT", "DINERS_CLUB", "DISCOVER", "EFTPOS", "ENROUTE", "ELO",
		"HIPER", "INTERAC", "JCB", "MAESTRO", "MASTERCARD", "MIR", "PRIVATE_LABEL", "UNIONPAY", "VISA",
		"CARTES_BANCAIRES", "OTHER"}
	// ProductTypes are order.lineItems[].productType's values.
	ProductTypes = []string{"PHYSICAL", "DIGITAL"}
)

// The paymentType and authorizationType values the sandbox itself sets.
const (
	PaymentTypeFirstPayment = "FIRST_PAYMENT"
	PaymentTypeEcommerce    = "ECOMMERCE"
	PaymentTypeSubscription = "SUBSCRIPTION"
	PaymentTypeUnscheduled  = "UNSCHEDULED"

	AuthorizationEstimated = "ESTIMATED"
	AuthorizationFinal     = "FINAL"
)
