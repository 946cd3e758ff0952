// Package wire appends the domain records webhook bodies write
// (webhooks/payload_encode.go), without reflection. The store keeps its own
// copy (simulator/store/json_append.go).
package wire

import (
	"github.com/paysandbox/paysandbox/internal/jsonappend"
	"github.com/paysandbox/paysandbox/simulator"
)

// Each function appends exactly what encoding/json makes of the value
// with its json tags (HTML escaping off), without reflection; the
// differential test of webhooks (TestPaymentBodyMatchesEncodingJSON) holds
// them to it.

// Address appends a as encoding/json encodes it.
func Address(dst []byte, a *simulator.Address) []byte {
	dst = append(dst, '{')
	dst = jsonappend.OmitString(dst, "firstName", a.FirstName)
	dst = jsonappend.OmitString(dst, "lastName", a.LastName)
	dst = jsonappend.OmitString(dst, "addressLine1", a.AddressLine1)
	dst = jsonappend.OmitString(dst, "addressLine2", a.AddressLine2)
	dst = jsonappend.OmitString(dst, "city", a.City)
	dst = jsonappend.OmitString(dst, "state", a.State)
	dst = jsonappend.OmitString(dst, "countryCode", a.CountryCode)
	dst = jsonappend.OmitString(dst, "postalCode", a.PostalCode)
	return append(dst, '}')
}

// StatusReason appends r as encoding/json encodes it.
func StatusReason(dst []byte, r *simulator.StatusReason) []byte {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "type", r.Type)
	dst = jsonappend.OmitString(dst, "declineType", r.DeclineType)
	dst = jsonappend.OmitString(dst, "code", r.Code)
	dst = jsonappend.OmitString(dst, "message", r.Message)
	return append(dst, '}')
}

// RiskData appends r as encoding/json encodes it.
func RiskData(dst []byte, r *simulator.RiskData) []byte {
	dst = append(dst, '{')
	if f := r.FraudChecks; f != nil {
		dst = append(jsonappend.Key(dst, "fraudChecks"), '{')
		dst = jsonappend.StringField(dst, "source", f.Source)
		dst = jsonappend.OmitString(dst, "preAuthorizationResult", f.PreAuthorizationResult)
		dst = jsonappend.OmitString(dst, "postAuthorizationResult", f.PostAuthorizationResult)
		dst = append(dst, '}')
	}
	if c := r.CVVCheck; c != nil {
		dst = append(jsonappend.Key(dst, "cvvCheck"), '{')
		dst = jsonappend.StringField(dst, "source", c.Source)
		dst = jsonappend.StringField(dst, "result", c.Result)
		dst = append(dst, '}')
	}
	if a := r.AVSCheck; a != nil {
		dst = append(jsonappend.Key(dst, "avsCheck"), '{')
		dst = jsonappend.StringField(dst, "source", a.Source)
		dst = append(jsonappend.Key(dst, "result"), '{')
		dst = jsonappend.StringField(dst, "streetAddress", a.Result.StreetAddress)
		dst = jsonappend.StringField(dst, "postalCode", a.Result.PostalCode)
		dst = append(dst, '}', '}')
	}
	return append(dst, '}')
}

// BinData appends b as encoding/json encodes it.
func BinData(dst []byte, b *simulator.BinData) []byte {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "network", b.Network)
	dst = jsonappend.OmitString(dst, "issuerCountryCode", b.IssuerCountryCode)
	dst = jsonappend.OmitString(dst, "issuerName", b.IssuerName)
	dst = jsonappend.OmitString(dst, "issuerCurrencyCode", b.IssuerCurrencyCode)
	dst = jsonappend.StringField(dst, "regionalRestriction", b.RegionalRestriction)
	dst = jsonappend.StringField(dst, "accountNumberType", b.AccountNumberType)
	dst = jsonappend.StringField(dst, "accountFundingType", b.AccountFundingType)
	dst = jsonappend.StringField(dst, "prepaidReloadableIndicator", b.PrepaidReloadableIndicator)
	dst = jsonappend.StringField(dst, "productUsageType", b.ProductUsageType)
	dst = jsonappend.StringField(dst, "productCode", b.ProductCode)
	dst = jsonappend.StringField(dst, "productName", b.ProductName)
	return append(dst, '}')
}

// ThreeDSecure appends t as encoding/json encodes it.
func ThreeDSecure(dst []byte, t *simulator.ThreeDSecure) []byte {
	dst = append(dst, '{')
	dst = jsonappend.StringField(dst, "responseCode", t.ResponseCode)
	dst = jsonappend.OmitString(dst, "reasonCode", t.ReasonCode)
	dst = jsonappend.OmitString(dst, "reasonText", t.ReasonText)
	dst = jsonappend.OmitString(dst, "protocolVersion", t.ProtocolVersion)
	dst = jsonappend.BoolField(dst, "challengeIssued", t.ChallengeIssued)
	return append(dst, '}')
}
