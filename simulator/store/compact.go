package store

import (
	"fmt"
	"sync"
	"time"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
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
// whole. Members that only the JSON records of older files have (tenantId, a
// card stored whole, the plan under Go names) are read by the migration
// (migrate.go), which decodes those records into these same types. The
// tenant id is not stored in these records: it is the key's.
//
// The wire is unaffected: these are storage types only, and the domain
// values they decode to are the ones the earlier format decoded to.

// ShippedCards is the built-in test-card catalogue (fixtures.Cards), parsed
// once per process: the store keeps cards by reference into it, and the
// composition root hands the same catalogue to the service, which identifies
// cards with it, so the two cannot disagree.
var ShippedCards = sync.OnceValues(func() (*cards.Catalog, error) { return cards.Parse(fixtures.Cards) })

// shippedCards is ShippedCards, or nil if it does not parse (then every card
// is stored whole).
func shippedCards() *cards.Catalog {
	c, err := ShippedCards()
	if err != nil {
		return nil
	}
	return c
}

// payRec is a payment as stored. Its own fields shadow the embedded
// payment's fields of the same name (their tags).
type payRec struct {
	simulator.Payment
	TenantID      string              `json:"tenantId,omitempty"` // records before the compact format
	Card          *simulator.CardInfo `json:"card,omitempty"`     // a card the catalogue cannot rebuild, or an older record
	Ref           *simulator.CardRef  `json:"cr,omitempty"`
	PaymentMethod pmRec               `json:"paymentMethod"`
	Plan          *planRec            `json:"plan,omitempty"` // records before the short names (read only)
	PL            *planShort          `json:"pl,omitempty"`
	Processor     *procRec            `json:"processor,omitempty"`
	FinalCaptured bool                `json:"finalCaptured,omitempty"`
	Transactions  []txnRec            `json:"transactions"`
	Authorized    *int64              `json:"authorized,omitempty"` // nil: the amount (every earlier record has it)
	RiskData      *simulator.RiskData `json:"riskData,omitempty"`   // when not payment.AuthorizationRisk()
	Risk          bool                `json:"rk,omitempty"`         // riskData is payment.AuthorizationRisk()
}

func sameRisk(a, b *simulator.RiskData) bool {
	return a.FraudChecks != nil && b.FraudChecks != nil && *a.FraudChecks == *b.FraudChecks &&
		a.CVVCheck != nil && b.CVVCheck != nil && *a.CVVCheck == *b.CVVCheck &&
		a.AVSCheck != nil && b.AVSCheck != nil && *a.AVSCheck == *b.AVSCheck
}

type pmRec struct {
	simulator.PaymentMethod
	IsVaulted bool                `json:"isVaulted,omitempty"`
	Data      *simulator.CardData `json:"paymentMethodData,omitempty"` // whole (older records, or not derivable)
	D         *cardDataRec        `json:"d,omitempty"`
}

// cardDataRec is paymentMethodData less what the payment's card says.
type cardDataRec struct {
	Month     string `json:"m"`
	Year      string `json:"y"`
	Holder    string `json:"h,omitempty"`
	Tokenized bool   `json:"t,omitempty"`
	First6    bool   `json:"6,omitempty"` // first6Digits shown
}

// txnRec is a transaction as stored: its currency, processor name and
// merchant id and card token type are left out when they are the payment's
// (nil: the payment's; a transaction that differs, even by being empty,
// keeps its own, as records before this format kept every one).
type txnRec struct {
	simulator.Transaction
	CurrencyCode        *string `json:"currencyCode,omitempty"`
	ProcessorName       *string `json:"processorName,omitempty"`
	ProcessorMerchantID *string `json:"processorMerchantId,omitempty"`
	CardTokenType       *string `json:"cardTokenType,omitempty"`
}

// txnRefs are the payment's values its transactions usually repeat.
func txnRefs(p *simulator.Payment) (currency, name, mid, tokenType string) {
	if p.Processor != nil {
		name, mid = p.Processor.Name, p.Processor.ProcessorMerchantID
	}
	return p.CurrencyCode, name, mid, p.CardTokenType
}

func unlessSame(v, ref string) *string {
	if v == ref {
		return nil
	}
	return &v
}

func orRef(v *string, ref string) string {
	if v == nil {
		return ref
	}
	return *v
}

// procRec is the processor state without its zero amounts.
type procRec struct {
	Name                string `json:"name"`
	ProcessorMerchantID string `json:"processorMerchantId"`
	AmountCaptured      int64  `json:"amountCaptured,omitempty"`
	AmountRefunded      int64  `json:"amountRefunded,omitempty"`
}

// planRec is the plan as builds before the short names stored it (the
// decision types under their Go field names, which have no JSON tags), with
// the authorizing account as the index (from 1) of the step that names it.
// Only the migration (migrate.go) reads it: planShort is written.
type planRec struct {
	simulator.Plan
	Account     *simulator.ProcessorAccount `json:"account,omitempty"`
	AccountStep int                         `json:"as,omitempty"`
}

// planShort is the plan as stored: short names and no zero values. The
// authorizing account is the index (from 1) of the step that names it, when
// one does. Empty lists decode as nil (the plan never tells nil from empty).
type planShort struct {
	Rule        string        `json:"r,omitempty"`
	Why         string        `json:"w,omitempty"`
	Steps       []stepShort   `json:"s,omitempty"`
	Capture     *captureShort `json:"c,omitempty"`
	Refund      *refundShort  `json:"f,omitempty"`
	Dispute     *disputeShort `json:"d,omitempty"`
	Account     *accountShort `json:"a,omitempty"`
	AccountStep int           `json:"as,omitempty"`
}

type accountShort struct {
	Name              string        `json:"n,omitempty"`
	MerchantID        string        `json:"m,omitempty"`
	AsyncCapture      bool          `json:"y,omitempty"`
	SettleAfter       time.Duration `json:"sa,omitempty"`
	AuthorizationCode bool          `json:"ac,omitempty"`
}

type stepShort struct {
	Account accountShort            `json:"a"`
	Status  simulator.PaymentStatus `json:"s,omitempty"`
	Reason  *simulator.StatusReason `json:"r,omitempty"`
}

type captureShort struct {
	Status      simulator.PaymentStatus `json:"s,omitempty"`
	SettleAfter time.Duration           `json:"sa,omitempty"`
	SettleTo    simulator.PaymentStatus `json:"st,omitempty"`
	Reason      *simulator.StatusReason `json:"r,omitempty"`
}

type refundShort struct {
	Status    simulator.PaymentStatus `json:"s,omitempty"`
	After     time.Duration           `json:"af,omitempty"`
	ResolveTo simulator.PaymentStatus `json:"rt,omitempty"`
	Reason    *simulator.StatusReason `json:"r,omitempty"`
}

type disputeShort struct {
	After  time.Duration      `json:"af,omitempty"`
	Reason string             `json:"r,omitempty"`
	Amount int64              `json:"am,omitempty"`
	Then   []disputeStepShort `json:"t,omitempty"`
}

type disputeStepShort struct {
	Status simulator.DisputeStatus `json:"s,omitempty"`
	After  time.Duration           `json:"af,omitempty"`
}

func shortAccount(a simulator.ProcessorAccount) accountShort {
	return accountShort{Name: a.Name, MerchantID: a.ProcessorMerchantID, AsyncCapture: a.AsyncCapture,
		SettleAfter: a.SettleAfter, AuthorizationCode: a.AuthorizationCode}
}

func (a accountShort) account() simulator.ProcessorAccount {
	return simulator.ProcessorAccount{Name: a.Name, ProcessorMerchantID: a.MerchantID, AsyncCapture: a.AsyncCapture,
		SettleAfter: a.SettleAfter, AuthorizationCode: a.AuthorizationCode}
}

func shortPlan(pl *simulator.Plan) *planShort {
	out := &planShort{Rule: pl.Rule, Why: pl.Why}
	for _, st := range pl.Steps {
		out.Steps = append(out.Steps, stepShort{Account: shortAccount(st.Account), Status: st.Status, Reason: st.Reason})
	}
	if c := pl.Capture; c != nil {
		out.Capture = &captureShort{Status: c.Status, SettleAfter: c.SettleAfter, SettleTo: c.SettleTo, Reason: c.Reason}
	}
	if r := pl.Refund; r != nil {
		out.Refund = &refundShort{Status: r.Status, After: r.After, ResolveTo: r.ResolveTo, Reason: r.Reason}
	}
	if d := pl.Dispute; d != nil {
		out.Dispute = &disputeShort{After: d.After, Reason: d.Reason, Amount: d.Amount}
		for _, st := range d.Then {
			out.Dispute.Then = append(out.Dispute.Then, disputeStepShort{Status: st.Status, After: st.After})
		}
	}
	if a := pl.Account; a != nil {
		for i, st := range pl.Steps {
			if st.Account == *a {
				out.AccountStep = i + 1
				break
			}
		}
		if out.AccountStep == 0 {
			sa := shortAccount(*a)
			out.Account = &sa
		}
	}
	return out
}

func (ps *planShort) plan() *simulator.Plan {
	pl := &simulator.Plan{Rule: ps.Rule, Why: ps.Why}
	for _, st := range ps.Steps {
		pl.Steps = append(pl.Steps, simulator.AuthStep{Account: st.Account.account(), Status: st.Status, Reason: st.Reason})
	}
	if c := ps.Capture; c != nil {
		pl.Capture = &simulator.CaptureDecision{Status: c.Status, SettleAfter: c.SettleAfter, SettleTo: c.SettleTo, Reason: c.Reason}
	}
	if r := ps.Refund; r != nil {
		pl.Refund = &simulator.RefundDecision{Status: r.Status, After: r.After, ResolveTo: r.ResolveTo, Reason: r.Reason}
	}
	if d := ps.Dispute; d != nil {
		pl.Dispute = &simulator.DisputeDecision{After: d.After, Reason: d.Reason, Amount: d.Amount}
		for _, st := range d.Then {
			pl.Dispute.Then = append(pl.Dispute.Then, simulator.DisputeStep{Status: st.Status, After: st.After})
		}
	}
	switch i := ps.AccountStep; {
	case i > 0 && i <= len(pl.Steps):
		a := pl.Steps[i-1].Account
		pl.Account = &a
	case ps.Account != nil:
		a := ps.Account.account()
		pl.Account = &a
	}
	return pl
}

func encodePayment(p *simulator.Payment) ([]byte, error) { return marshal(payRecOf(p)) }

// payRecOf is p as stored.
func payRecOf(p *simulator.Payment) *payRec {
	rec := &payRec{Payment: *p, FinalCaptured: p.FinalCaptured}
	if p.Authorized != p.Amount {
		a := p.Authorized
		rec.Authorized = &a
	}
	if p.Transactions != nil {
		cur, name, mid, tt := txnRefs(p)
		rec.Transactions = make([]txnRec, len(p.Transactions))
		for i, x := range p.Transactions {
			rec.Transactions[i] = txnRec{Transaction: x, CurrencyCode: unlessSame(x.CurrencyCode, cur), ProcessorName: unlessSame(x.ProcessorName, name),
				ProcessorMerchantID: unlessSame(x.ProcessorMerchantID, mid), CardTokenType: unlessSame(x.CardTokenType, tt)}
		}
	}
	if pr := p.Processor; pr != nil {
		rec.Processor = &procRec{Name: pr.Name, ProcessorMerchantID: pr.ProcessorMerchantID, AmountCaptured: pr.AmountCaptured, AmountRefunded: pr.AmountRefunded}
	}
	ref, byRef := shippedCards().RefOf(p.Card)
	if byRef {
		rec.Ref = &ref
	} else {
		c := p.Card
		rec.Card = &c
	}
	rec.PaymentMethod.PaymentMethod, rec.PaymentMethod.IsVaulted = p.PaymentMethod, p.PaymentMethod.IsVaulted
	d := p.PaymentMethod.Data
	if byRef && d.Last4Digits == p.Card.Last4 && d.Network == p.Card.NetworkDisplay && d.BinData == p.Card.BinData &&
		(d.First6Digits == "" || d.First6Digits == p.Card.First6) {
		rec.PaymentMethod.D = &cardDataRec{Month: d.ExpirationMonth, Year: d.ExpirationYear, Holder: d.CardholderName,
			Tokenized: d.IsNetworkTokenized, First6: d.First6Digits != ""}
	} else {
		rec.PaymentMethod.Data = &d
	}
	if p.RiskData != nil {
		if sameRisk(p.AuthorizationRisk(), p.RiskData) {
			rec.Risk = true
		} else {
			rec.RiskData = p.RiskData
		}
	}
	if p.Plan != nil {
		rec.PL = shortPlan(p.Plan)
	}
	return rec
}

func decodePayment(raw, tid string) (*simulator.Payment, error) {
	var rec payRec
	if err := decode(raw, &rec); err != nil {
		return nil, err
	}
	return rec.payment(tid)
}

// payment is the payment rec stores, of tenant tid.
func (rec *payRec) payment(tid string) (*simulator.Payment, error) {
	p := rec.Payment
	p.TenantID = tid
	p.FinalCaptured = rec.FinalCaptured
	if pr := rec.Processor; pr != nil {
		p.Processor = &simulator.ProcessorState{Name: pr.Name, ProcessorMerchantID: pr.ProcessorMerchantID, AmountCaptured: pr.AmountCaptured, AmountRefunded: pr.AmountRefunded}
	}
	if rec.Transactions != nil {
		cur, name, mid, tt := txnRefs(&p)
		p.Transactions = make([]simulator.Transaction, len(rec.Transactions))
		for i, x := range rec.Transactions {
			t := x.Transaction
			t.CurrencyCode, t.ProcessorName = orRef(x.CurrencyCode, cur), orRef(x.ProcessorName, name)
			t.ProcessorMerchantID, t.CardTokenType = orRef(x.ProcessorMerchantID, mid), orRef(x.CardTokenType, tt)
			p.Transactions[i] = t
		}
	}
	card, err := cardOf(rec.Card, rec.Ref)
	if err != nil {
		return nil, fmt.Errorf("store: payment %s: %w", p.ID, err)
	}
	p.Card = card
	p.PaymentMethod = rec.PaymentMethod.PaymentMethod
	p.PaymentMethod.IsVaulted = rec.PaymentMethod.IsVaulted
	p.Authorized = p.Amount
	if rec.Authorized != nil {
		p.Authorized = *rec.Authorized
	}
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
		p.RiskData = p.AuthorizationRisk()
	}
	if rec.PL != nil {
		p.Plan = rec.PL.plan()
	} else if rec.Plan != nil {
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

func encodeInstrument(in *simulator.Instrument) ([]byte, error) { return marshal(instRecOf(in)) }

func instRecOf(in *simulator.Instrument) *instRec {
	rec := &instRec{Instrument: *in}
	if ref, ok := shippedCards().RefOf(in.Card); ok {
		rec.Ref = &ref
	} else {
		c := in.Card
		rec.Card = &c
	}
	return rec
}

func decodeInstrument(raw, tid string) (*simulator.Instrument, error) {
	var rec instRec
	if err := decode(raw, &rec); err != nil {
		return nil, err
	}
	return rec.instrument(tid)
}

// instrument is the instrument rec stores, of tenant tid.
func (rec *instRec) instrument(tid string) (*simulator.Instrument, error) {
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
		c, ok := shippedCards().CardFromRef(*ref)
		if !ok {
			return c, fmt.Errorf("card %s is not in the test-card catalogue", ref.Fingerprint)
		}
		return c, nil
	case whole != nil:
		return *whole, nil
	}
	return simulator.CardInfo{}, nil
}
