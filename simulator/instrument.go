package simulator

import "time"

// TokenType is the lifetime of a payment method token.
type TokenType string

// Token types.
const (
	TokenSingleUse TokenType = "SINGLE_USE"
	TokenMultiUse  TokenType = "MULTI_USE"
)

// PaymentMethodTypeCard is the only payment method type the sandbox tokenises.
const PaymentMethodTypeCard = "PAYMENT_CARD"

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
