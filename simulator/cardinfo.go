package simulator

import (
	"crypto/sha256"
	"encoding/hex"
)

// BinData is the issuer data of a card's BIN, as the vendor's binData object (minus network, which is Network.Enum).
type BinData struct {
	Network                    string `json:"network"`
	IssuerCountryCode          string `json:"issuerCountryCode,omitempty"`
	IssuerName                 string `json:"issuerName,omitempty"`
	IssuerCurrencyCode         string `json:"issuerCurrencyCode,omitempty"`
	RegionalRestriction        string `json:"regionalRestriction"`
	AccountNumberType          string `json:"accountNumberType"`
	AccountFundingType         string `json:"accountFundingType"`
	PrepaidReloadableIndicator string `json:"prepaidReloadableIndicator"`
	ProductUsageType           string `json:"productUsageType"`
	ProductCode                string `json:"productCode"`
	ProductName                string `json:"productName"`
}

// StatusReason is the vendor's statusReason object.
type StatusReason struct {
	Type        string `json:"type"`
	DeclineType string `json:"declineType,omitempty"`
	Code        string `json:"code,omitempty"`
	Message     string `json:"message,omitempty"`
}

// CardInfo is what the sandbox knows about a card number without keeping the
// number. It says what a card is, never what happens to it: outcomes come
// from the scenarios only (matched through Fingerprint). The test-card
// catalogue (simulator/cards) produces it.
type CardInfo struct {
	Fingerprint    string  // CardFingerprint(number)
	First6, Last4  string  // first six and last four digits
	Network        string  // enum, e.g. VISA
	NetworkDisplay string  // e.g. Visa
	BinData        BinData // Network filled in
	CVVLength      int     `json:",omitempty"` // of the network; 0 when unknown
	Catalogued     bool    // true when the number is in the catalogue
	Description    string  // catalogue description, "" otherwise
}

// CardRef is what a stored record keeps of a card instead of its whole
// CardInfo: the card's fingerprint and, for a number outside the catalogue,
// its first six and last four digits and network. The rest (display name,
// BIN data, CVV length, description) is derived again from the catalogue
// (cards.Catalog.CardFromRef).
type CardRef struct {
	// Fingerprint is the card's fingerprint; for a catalogued card only the
	// prefix the catalogue keeps, which tells the catalogue's cards apart.
	Fingerprint string `json:"f"`
	First6      string `json:"6,omitempty"` // uncatalogued numbers only
	Last4       string `json:"4,omitempty"` // uncatalogued numbers only
	Network     string `json:"n,omitempty"` // uncatalogued numbers only
}

// LuhnValid reports whether number is 12 to 19 ASCII digits passing the Luhn
// (mod 10) check.
func LuhnValid(number string) bool {
	if len(number) < 12 || len(number) > 19 || !AllDigits(number) {
		return false
	}
	sum := 0
	double := false
	for i := len(number) - 1; i >= 0; i-- {
		d := int(number[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// cardFingerprintSalt namespaces card fingerprints; changing it changes every
// fingerprint, so it is part of the stored data's format.
const cardFingerprintSalt = "paysandbox-card:"

// CardFingerprint is a stable, non-reversible identifier of a card number:
// hex(sha256("paysandbox-card:" + number)). Scenarios match cards by it, so
// the sandbox never needs to keep the number itself.
func CardFingerprint(number string) string {
	sum := sha256.Sum256([]byte(cardFingerprintSalt + number))
	return hex.EncodeToString(sum[:])
}

// AllDigits reports whether s is a non-empty run of ASCII digits.
func AllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
