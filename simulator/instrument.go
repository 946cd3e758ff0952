package simulator

import (
	"strconv"
	"time"
)

// TokenType is the lifetime of a payment method token.
type TokenType string

// Token types.
const (
	TokenSingleUse TokenType = "SINGLE_USE"
	TokenMultiUse  TokenType = "MULTI_USE"
)

// PaymentMethodTypeCard is the only payment method type the sandbox tokenises.
const PaymentMethodTypeCard = "PAYMENT_CARD"

// PaymentMethodTypes is the vendor's PaymentMethodTypeEnum: the values the
// payment_method_type filter of GET /payments accepts (the sandbox's
// payments are all PAYMENT_CARD).
var PaymentMethodTypes = []string{
	"PAYMENT_CARD", "GOOGLE_PAY", "APPLE_PAY", "PAYPAL", "BANK_ACCOUNT", "KLARNA", "APAYA", "OPENNODE", "HOOLAH", "ATOME",
	"COINBASE", "NETS", "TWOC2P", "CLEARPAY", "SHOPEEPAY", "TRIPLE_A", "AFTERPAY", "NOL_PAY", "PAY_NL_IDEAL",
	"PAY_NL_BANCONTACT", "PAY_NL_DIRECT_DEBIT", "PAY_NL_SOFORT_BANKING", "PAY_NL_PAYPAL", "PAY_NL_PAYCONIQ",
	"PAY_NL_GIROPAY", "PAY_NL_P24", "PAY_NL_EPS", "PAY_NL_KAARTDIRECT", "ADYEN_SOFORT", "ADYEN_TWINT", "ADYEN_GIROPAY",
	"ADYEN_TRUSTLY", "ADYEN_ALIPAY", "ADYEN_MOBILEPAY", "ADYEN_MULTIBANCO", "ADYEN_VIPPS", "ADYEN_DOTPAY", "ADYEN_IDEAL",
	"ADYEN_BLIK", "ADYEN_PAYTRAIL", "ADYEN_INTERAC", "ADYEN_PAYSHOP", "ADYEN_MBWAY", "ADYEN_AFFIRM", "ADYEN_KLARNA",
	"ADYEN_BANCONTACT_PAYCONIQ", "ADYEN_EPS", "ADYEN_BANCONTACT_CARD", "ADYEN_SWISH", "MOLLIE_IDEAL", "MOLLIE_BANCONTACT",
	"MOLLIE_P24", "MOLLIE_GIROPAY", "MOLLIE_EPS", "MOLLIE_GIFTCARD", "MOLLIE_SOFORT", "NETAXEPT_PAYTRAIL", "BUCKAROO_IDEAL",
	"BUCKAROO_BANCONTACT", "BUCKAROO_SOFORT", "BUCKAROO_GIROPAY", "BUCKAROO_EPS", "RAPYD_GCASH", "RAPYD_PROMPTPAY",
	"RAPYD_GRABPAY", "RAPYD_POLI", "RAPYD_FAST", "XFERS_PAYNOW", "STRIPE_GIROPAY", "STRIPE_IDEAL", "ALIPAY_CN",
	"CHAI_KAKAOPAY", "CHAI_NAVER", "CHAI_TOSS", "XENDIT_DANA", "XENDIT_OVO", "XENDIT_SHOPEEPAY", "XENDIT_RETAIL_OUTLETS",
	"OMISE_PROMPTPAY", "OMISE_TRUEMONEY", "EBANX_PAGOFACIL", "PACYPAY_WECHAT", "PACYPAY_ALIPAY", "PACYPAY_ALIPAY_PLUS",
	"WORLDPAY_IDEAL", "IPAY88_CARD", "INGENICO_PAYPAL", "VOLT_PIX", "VOLT_BANK_TRANSFER", "BRAINTREE_VENMO",
	"THUNES_SPIRIT_OF_CADEAU", "THUNES_ILLICADO", "THUNES_CARTE_CADEAU_CONFORAMA", "THUNES_CHEQUE_FIDELITE_CONFORAMA",
	"SIPS_CPAY", "SIPS_CPAYCONFORAMA", "MONEXT_CETELEM", "MONEXT_CPAY",
}

// Instrument is a tokenised (SINGLE_USE) or vaulted (MULTI_USE) payment method.
// The card number is never kept: only CardInfo (fingerprint, BIN, last 4 and
// the catalogue identity).
type Instrument struct {
	Token          string    `json:"token"`
	TenantID       string    `json:"tenantId"`
	TokenType      TokenType `json:"tokenType"`
	Card           CardInfo  `json:"card"`
	ExpiryMonth    string    `json:"expirationMonth"`
	ExpiryYear     string    `json:"expirationYear"`
	CardholderName string    `json:"cardholderName,omitempty"`
	CVVGiven       bool      `json:"cvvGiven,omitempty"` // whether a CVV came with the card (never the CVV)
	AnalyticsID    string    `json:"analyticsId"`
	CreatedAt      time.Time `json:"createdAt"`

	// SINGLE_USE tokens.
	SessionID   string `json:"sessionId,omitempty"`
	AttemptID   string `json:"attemptId,omitempty"`
	Used        bool   `json:"used,omitempty"`        // a payment was made with it
	Invalidated bool   `json:"invalidated,omitempty"` // its attempt was aborted
	VaultedAs   string `json:"vaultedAs,omitempty"`   // the MULTI_USE token it was vaulted to

	// MULTI_USE tokens.
	CustomerID  string    `json:"customerId,omitempty"`
	SourceToken string    `json:"sourceToken,omitempty"`
	Verified    bool      `json:"verified,omitempty"`
	Default     bool      `json:"default,omitempty"`
	Deleted     bool      `json:"deleted,omitempty"`
	DeletedAt   time.Time `json:"deletedAt,omitzero"`
}

// CardData is the card as payments and instrument records show it.
func (in *Instrument) CardData(showFirst6 bool) CardData {
	d := CardData{
		Last4Digits:     in.Card.Last4,
		ExpirationMonth: in.ExpiryMonth,
		ExpirationYear:  in.ExpiryYear,
		CardholderName:  in.CardholderName,
		Network:         in.Card.NetworkDisplay,
		BinData:         in.Card.BinData,
	}
	if showFirst6 {
		d.First6Digits = in.Card.First6
	}
	return d
}

// CardData is paymentMethodData of a card. First6Digits is opt-in: empty means
// null on the wire.
type CardData struct {
	First6Digits       string  `json:"first6Digits,omitempty"`
	Last4Digits        string  `json:"last4Digits"`
	ExpirationMonth    string  `json:"expirationMonth"`
	ExpirationYear     string  `json:"expirationYear"`
	CardholderName     string  `json:"cardholderName,omitempty"`
	Network            string  `json:"network"`
	IsNetworkTokenized bool    `json:"isNetworkTokenized"`
	BinData            BinData `json:"binData"`
}

// UsableForPayment checks a token for POST /payments. MANUAL sessions' tokens
// are paid only through attempt approval.
func (in *Instrument) UsableForPayment(manualSession bool) error {
	switch {
	case in.TokenType == TokenMultiUse && in.Deleted:
		return ErrInvalidToken()
	case in.TokenType == TokenSingleUse && (in.Used || in.Invalidated || manualSession):
		return ErrInvalidToken()
	}
	return nil
}

// CardExpired reports whether a card expiring in month/year (two and four
// digits) has expired at now: its expiry month ended before now's month (a
// card expiring this month is not expired). An expiry that does not parse
// is not expired.
func CardExpired(month, year string, now time.Time) bool {
	m, errM := strconv.Atoi(month)
	y, errY := strconv.Atoi(year)
	if errM != nil || errY != nil || m < 1 || m > 12 {
		return false
	}
	now = now.UTC()
	return y*12+m < now.Year()*12+int(now.Month())
}
