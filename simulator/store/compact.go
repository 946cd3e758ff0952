package store

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/simulator"
)

// Compact records. A payment and an instrument keep a reference to their
// test card (simulator.CardRef: the fingerprint, plus first six, last four
// and network for a number outside the catalogue) instead of the card's
// whole description, and a payment keeps of its paymentMethodData only what
// the card does not say (expiry, cardholder, whether first6Digits shows).
// Network, display name, BIN data, CVV length and description are derived
// again from the built-in test-card catalogue when the record is read.
//
// A card is stored by reference only when the catalogue rebuilds exactly
// what was stored (checked at every write); otherwise the record keeps it
// whole, as records written before this format did. Both forms are read, so
// a db written by an earlier build opens and reads unchanged. The tenant id
// is not stored in these records: it is the key's.
//
// The wire is unaffected: these are storage types only, and the domain
// values they decode to are the ones the earlier format decoded to.

var (
	catalogOnce sync.Once
	catalog     *simulator.CardCatalog
)

// cards is the built-in test-card catalogue (the one the server identifies
// cards with); nil if it does not parse, and then every card is stored whole.
func cards() *simulator.CardCatalog {
	catalogOnce.Do(func() {
		c, err := simulator.ParseCardCatalog(fixtures.Cards)
		if err == nil {
			catalog = c
		}
	})
	return catalog
}

// payRec is a payment as stored. Its own fields shadow the embedded
// payment's fields of the same JSON name.
type payRec struct {
	simulator.Payment
	TenantID      string              `json:"tenantId,omitempty"` // records before the compact format
	Card          *simulator.CardInfo `json:"card,omitempty"`     // a card the catalogue cannot rebuild, or an older record
	Ref           *simulator.CardRef  `json:"cr,omitempty"`
	PaymentMethod pmRec               `json:"paymentMethod"`
	Plan          *planRec            `json:"plan,omitempty"`
	RiskData      *simulator.RiskData `json:"riskData,omitempty"` // when not what riskOf derives
	Risk          bool                `json:"rk,omitempty"`       // riskData is riskOf(payment)
}

// riskOf is the riskData an authorization records (see Service.runSteps):
// it follows from whether 3DS ran and whether a CVV came with the card.
func riskOf(p *simulator.Payment) simulator.RiskData {
	pre, cvv := "ACCEPT", "NOT_PROVIDED"
	if p.PaymentMethod.ThreeDSecure != nil {
		pre = "THREE_DS"
	}
	if p.CVVGiven {
		cvv = "MATCHED"
	}
	return simulator.RiskData{
		FraudChecks: &simulator.FraudChecks{Source: "FRAUD_PROVIDER", PreAuthorizationResult: pre, PostAuthorizationResult: "ACCEPT"},
		CVVCheck:    &simulator.RiskCheck{Source: "PROCESSOR", Result: cvv},
		AVSCheck:    &simulator.AVSCheck{Source: "PROCESSOR", Result: simulator.AVSResult{StreetAddress: "NOT_VERIFIED", PostalCode: "NOT_VERIFIED"}},
	}
}

func sameRisk(a, b *simulator.RiskData) bool {
	return a.FraudChecks != nil && b.FraudChecks != nil && *a.FraudChecks == *b.FraudChecks &&
		a.CVVCheck != nil && b.CVVCheck != nil && *a.CVVCheck == *b.CVVCheck &&
		a.AVSCheck != nil && b.AVSCheck != nil && *a.AVSCheck == *b.AVSCheck
}

type pmRec struct {
	simulator.PaymentMethod
	Data *simulator.CardData `json:"paymentMethodData,omitempty"` // whole (older records, or not derivable)
	D    *cardDataRec        `json:"d,omitempty"`
}

// cardDataRec is paymentMethodData less what the payment's card says.
type cardDataRec struct {
	Month     string `json:"m"`
	Year      string `json:"y"`
	Holder    string `json:"h,omitempty"`
	Tokenized bool   `json:"t,omitempty"`
	First6    bool   `json:"6,omitempty"` // first6Digits shown
}

// planRec stores the authorizing account as the index (from 1) of the
// step that names it, when one does.
type planRec struct {
	simulator.Plan
	Account     *simulator.ProcessorAccount `json:"account,omitempty"`
	AccountStep int                         `json:"as,omitempty"`
}

func encodePayment(p *simulator.Payment) ([]byte, error) {
	rec := payRec{Payment: *p}
	ref, byRef := cards().RefOf(p.Card)
	if byRef {
		rec.Ref = &ref
	} else {
		c := p.Card
		rec.Card = &c
	}
	rec.PaymentMethod.PaymentMethod = p.PaymentMethod
	d := p.PaymentMethod.Data
	if byRef && d.Last4Digits == p.Card.Last4 && d.Network == p.Card.NetworkDisplay && d.BinData == p.Card.BinData &&
		(d.First6Digits == "" || d.First6Digits == p.Card.First6) {
		rec.PaymentMethod.D = &cardDataRec{Month: d.ExpirationMonth, Year: d.ExpirationYear, Holder: d.CardholderName,
			Tokenized: d.IsNetworkTokenized, First6: d.First6Digits != ""}
	} else {
		rec.PaymentMethod.Data = &d
	}
	if p.RiskData != nil {
		if d := riskOf(p); sameRisk(&d, p.RiskData) {
			rec.Risk = true
		} else {
			rec.RiskData = p.RiskData
		}
	}
	if p.Plan != nil {
		pr := planRec{Plan: *p.Plan}
		if a := p.Plan.Account; a != nil {
			pr.Account = a
			for i, st := range p.Plan.Steps {
				if st.Account == *a {
					pr.Account, pr.AccountStep = nil, i+1
					break
				}
			}
		}
		rec.Plan = &pr
	}
	return json.Marshal(&rec)
}

func decodePayment(raw, tid string) (*simulator.Payment, error) {
	var rec payRec
	if err := decode(raw, &rec); err != nil {
		return nil, err
	}
	p := rec.Payment
	p.TenantID = tid
	card, err := cardOf(rec.Card, rec.Ref)
	if err != nil {
		return nil, fmt.Errorf("store: payment %s: %w", p.ID, err)
	}
	p.Card = card
	p.PaymentMethod = rec.PaymentMethod.PaymentMethod
	switch d := rec.PaymentMethod.D; {
	case d != nil:
		p.PaymentMethod.Data = simulator.CardData{Last4Digits: card.Last4, ExpirationMonth: d.Month, ExpirationYear: d.Year,
			CardholderName: d.Holder, Network: card.NetworkDisplay, IsNetworkTokenized: d.Tokenized, BinData: card.BinData}
		if d.First6 {
			p.PaymentMethod.Data.First6Digits = card.First6
		}
	case rec.PaymentMethod.Data != nil:
		p.PaymentMethod.Data = *rec.PaymentMethod.Data
	}
	p.RiskData = rec.RiskData
	if rec.Risk {
		d := riskOf(&p)
		p.RiskData = &d
	}
	if rec.Plan != nil {
		pl := rec.Plan.Plan
		pl.Account = rec.Plan.Account
		if i := rec.Plan.AccountStep; i > 0 && i <= len(pl.Steps) {
			a := pl.Steps[i-1].Account
			pl.Account = &a
		}
		p.Plan = &pl
	}
	return &p, nil
}

// instRec is an instrument as stored.
type instRec struct {
	simulator.Instrument
	TenantID string              `json:"tenantId,omitempty"` // records before the compact format
	Card     *simulator.CardInfo `json:"card,omitempty"`
	Ref      *simulator.CardRef  `json:"cr,omitempty"`
}

func encodeInstrument(in *simulator.Instrument) ([]byte, error) {
	rec := instRec{Instrument: *in}
	if ref, ok := cards().RefOf(in.Card); ok {
		rec.Ref = &ref
	} else {
		c := in.Card
		rec.Card = &c
	}
	return json.Marshal(&rec)
}

func decodeInstrument(raw, tid string) (*simulator.Instrument, error) {
	var rec instRec
	if err := decode(raw, &rec); err != nil {
		return nil, err
	}
	in := rec.Instrument
	in.TenantID = tid
	card, err := cardOf(rec.Card, rec.Ref)
	if err != nil {
		return nil, fmt.Errorf("store: instrument %s: %w", in.Token, err)
	}
	in.Card = card
	return &in, nil
}

func cardOf(whole *simulator.CardInfo, ref *simulator.CardRef) (simulator.CardInfo, error) {
	switch {
	case ref != nil:
		c, ok := cards().CardFromRef(*ref)
		if !ok {
			return c, fmt.Errorf("card %s is not in the test-card catalogue", ref.Fingerprint)
		}
		return c, nil
	case whole != nil:
		return *whole, nil
	}
	return simulator.CardInfo{}, nil
}
