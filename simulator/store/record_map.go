package store

import (
	"fmt"
	"sync"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
)

// The kernel's values to the store's records (records.go) and back, field
// by field. A record's tenant id is its key's: the readers take it.

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

// cardRecords is a card as stored: by reference when the catalogue
// rebuilds exactly this card (checked at every write), else whole.
func cardRecords(c simulator.CardInfo) (*cardRefRecord, *cardRecord) {
	if ref, ok := shippedCards().RefOf(c); ok {
		return &cardRefRecord{Fingerprint: ref.Fingerprint, First6: ref.First6, Last4: ref.Last4, Network: ref.Network}, nil
	}
	return nil, &cardRecord{Fingerprint: c.Fingerprint, First6: c.First6, Last4: c.Last4, Network: c.Network,
		NetworkDisplay: c.NetworkDisplay, BinData: binRecord(c.BinData), CVVLength: c.CVVLength, Catalogued: c.Catalogued,
		Description: c.Description}
}

func cardOf(ref *cardRefRecord, whole *cardRecord) (simulator.CardInfo, error) {
	switch {
	case ref != nil:
		c, ok := shippedCards().CardFromRef(simulator.CardRef{Fingerprint: ref.Fingerprint, First6: ref.First6, Last4: ref.Last4, Network: ref.Network})
		if !ok {
			return c, fmt.Errorf("card %s is not in the test-card catalogue", ref.Fingerprint)
		}
		return c, nil
	case whole != nil:
		return simulator.CardInfo{Fingerprint: whole.Fingerprint, First6: whole.First6, Last4: whole.Last4, Network: whole.Network,
			NetworkDisplay: whole.NetworkDisplay, BinData: simulator.BinData(whole.BinData), CVVLength: whole.CVVLength,
			Catalogued: whole.Catalogued, Description: whole.Description}, nil
	}
	return simulator.CardInfo{}, nil
}

// Payments.

// payRecordOf is p as stored. It is a value, which a caller that encodes it
// at once keeps on its stack (payRecord is about 800 bytes).
func payRecordOf(p *simulator.Payment) payRecord {
	rec := payRecord{ID: p.ID, Date: p.Date, DateUpdated: p.DateUpdated, Status: string(p.Status), OrderID: p.OrderID,
		CurrencyCode: p.CurrencyCode, Amount: p.Amount, CustomerID: p.CustomerID, Customer: customerRecordOf(p.Customer),
		Order: orderRecordOf(p.Order), Metadata: p.Metadata, CardTokenType: p.CardTokenType, Required: requiredRecordOf(p.Required),
		StatusReason: reasonRecordOf(p.StatusReason), CVVGiven: p.CVVGiven, SessionID: p.SessionID, AttemptID: p.AttemptID,
		FinalCaptured: p.FinalCaptured, Rule: p.Rule, OneShot: p.OneShot, APIVersion: string(p.APIVersion)}
	if p.Authorized != p.Amount {
		a := p.Authorized
		rec.Authorized = &a
	}
	if pr := p.Processor; pr != nil {
		rec.Processor = &procRecord{Name: pr.Name, MerchantID: pr.ProcessorMerchantID, AmountCaptured: pr.AmountCaptured, AmountRefunded: pr.AmountRefunded}
	}
	if p.Transactions != nil && len(p.Transactions) == 0 {
		rec.EmptyTransactions = true
	} else if len(p.Transactions) > 0 {
		cur, name, mid, tt := txnRefs(p)
		rec.Transactions = make([]txnRecord, len(p.Transactions))
		for i := range p.Transactions {
			rec.Transactions[i] = txnRecordOf(&p.Transactions[i], cur, name, mid, tt)
		}
	}
	rec.Ref, rec.Card = cardRecords(p.Card)
	pm := &p.PaymentMethod
	rec.PaymentMethod = pmRecord{PaymentType: pm.PaymentType, PaymentMethodToken: pm.PaymentMethodToken, IsVaulted: pm.IsVaulted,
		AuthorizationType: pm.AuthorizationType, Descriptor: pm.Descriptor, AnalyticsID: pm.AnalyticsID,
		PaymentMethodType: pm.PaymentMethodType, VaultOnSuccess: pm.VaultOnSuccess, FirstPaymentReason: pm.FirstPaymentReason,
		VaultOnAgreement: pm.VaultOnAgreement}
	if t := pm.ThreeDSecure; t != nil {
		rec.PaymentMethod.ThreeDSecure = &tdsRecord{ResponseCode: t.ResponseCode, ReasonCode: t.ReasonCode, ReasonText: t.ReasonText,
			ProtocolVersion: t.ProtocolVersion, ChallengeIssued: t.ChallengeIssued}
	}
	d := &pm.Data
	if rec.Ref != nil && d.Last4Digits == p.Card.Last4 && d.Network == p.Card.NetworkDisplay && d.BinData == p.Card.BinData &&
		(d.First6Digits == "" || d.First6Digits == p.Card.First6) {
		rec.PaymentMethod.D = &cardDataShort{Month: d.ExpirationMonth, Year: d.ExpirationYear, Holder: d.CardholderName,
			Tokenized: d.IsNetworkTokenized, First6: d.First6Digits != ""}
	} else {
		rec.PaymentMethod.Data = &cardData{First6: d.First6Digits, Last4: d.Last4Digits, Month: d.ExpirationMonth, Year: d.ExpirationYear,
			Holder: d.CardholderName, Network: d.Network, Tokenized: d.IsNetworkTokenized, BinData: binRecord(d.BinData)}
	}
	if p.RiskData != nil {
		if sameRisk(p.AuthorizationRisk(), p.RiskData) {
			rec.Risk = true
		} else {
			rec.RiskData = riskRecordOf(p.RiskData)
		}
	}
	if t := p.ThreeDS; t != nil {
		rec.ThreeDS = &threeDSRecord{ChallengeToken: t.ChallengeToken, Result: t.Result, ResumeToken: t.ResumeToken}
	}
	if t := p.Timeout; t != nil {
		rec.Timeout = &timeoutRecord{ResolveTo: string(t.ResolveTo), ResolveAt: t.ResolveAt, RequestID: t.RequestID}
	}
	if p.Plan != nil {
		rec.Plan = planRecordOf(p.Plan)
	}
	return rec
}

// payment is the payment rec stores, of tenant tid.
func (rec *payRecord) payment(tid string) (*simulator.Payment, error) {
	p := &simulator.Payment{ID: rec.ID, TenantID: tid, Date: rec.Date, DateUpdated: rec.DateUpdated, Status: simulator.PaymentStatus(rec.Status),
		OrderID: rec.OrderID, CurrencyCode: rec.CurrencyCode, Amount: rec.Amount, CustomerID: rec.CustomerID,
		Customer: rec.Customer.customer(), Order: rec.Order.order(), Metadata: rec.Metadata, CardTokenType: rec.CardTokenType,
		Required: rec.Required.required(), StatusReason: rec.StatusReason.reason(), CVVGiven: rec.CVVGiven, SessionID: rec.SessionID,
		AttemptID: rec.AttemptID, Authorized: rec.Amount, FinalCaptured: rec.FinalCaptured, Rule: rec.Rule, OneShot: rec.OneShot,
		APIVersion: simulator.APIVersion(rec.APIVersion)}
	if rec.Authorized != nil {
		p.Authorized = *rec.Authorized
	}
	if pr := rec.Processor; pr != nil {
		p.Processor = &simulator.ProcessorState{Name: pr.Name, ProcessorMerchantID: pr.MerchantID, AmountCaptured: pr.AmountCaptured, AmountRefunded: pr.AmountRefunded}
	}
	switch {
	case len(rec.Transactions) > 0:
		cur, name, mid, tt := txnRefs(p)
		p.Transactions = make([]simulator.Transaction, len(rec.Transactions))
		for i := range rec.Transactions {
			p.Transactions[i] = rec.Transactions[i].transaction(cur, name, mid, tt)
		}
	case rec.EmptyTransactions:
		p.Transactions = []simulator.Transaction{}
	}
	card, err := cardOf(rec.Ref, rec.Card)
	if err != nil {
		return nil, fmt.Errorf("store: payment %s: %w", p.ID, err)
	}
	p.Card = card
	pm := &rec.PaymentMethod
	p.PaymentMethod = simulator.PaymentMethod{PaymentType: pm.PaymentType, PaymentMethodToken: pm.PaymentMethodToken, IsVaulted: pm.IsVaulted,
		AuthorizationType: pm.AuthorizationType, Descriptor: pm.Descriptor, AnalyticsID: pm.AnalyticsID,
		PaymentMethodType: pm.PaymentMethodType, VaultOnSuccess: pm.VaultOnSuccess, FirstPaymentReason: pm.FirstPaymentReason,
		VaultOnAgreement: pm.VaultOnAgreement}
	if t := pm.ThreeDSecure; t != nil {
		p.PaymentMethod.ThreeDSecure = &simulator.ThreeDSecure{ResponseCode: t.ResponseCode, ReasonCode: t.ReasonCode, ReasonText: t.ReasonText,
			ProtocolVersion: t.ProtocolVersion, ChallengeIssued: t.ChallengeIssued}
	}
	switch d := pm.D; {
	case d != nil:
		p.PaymentMethod.Data = simulator.CardData{Last4Digits: card.Last4, ExpirationMonth: d.Month, ExpirationYear: d.Year,
			CardholderName: d.Holder, Network: card.NetworkDisplay, IsNetworkTokenized: d.Tokenized, BinData: card.BinData}
		if d.First6 {
			p.PaymentMethod.Data.First6Digits = card.First6
		}
	case pm.Data != nil:
		d := pm.Data
		p.PaymentMethod.Data = simulator.CardData{First6Digits: d.First6, Last4Digits: d.Last4, ExpirationMonth: d.Month,
			ExpirationYear: d.Year, CardholderName: d.Holder, Network: d.Network, IsNetworkTokenized: d.Tokenized,
			BinData: simulator.BinData(d.BinData)}
	}
	switch {
	case rec.Risk:
		p.RiskData = p.AuthorizationRisk()
	case rec.RiskData != nil:
		p.RiskData = rec.RiskData.risk()
	}
	if t := rec.ThreeDS; t != nil {
		p.ThreeDS = &simulator.ThreeDSState{ChallengeToken: t.ChallengeToken, Result: t.Result, ResumeToken: t.ResumeToken}
	}
	if t := rec.Timeout; t != nil {
		p.Timeout = &simulator.TimeoutState{ResolveTo: simulator.PaymentStatus(t.ResolveTo), ResolveAt: t.ResolveAt, RequestID: t.RequestID}
	}
	if rec.Plan != nil {
		p.Plan = rec.Plan.plan()
	}
	return p, nil
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

func txnRecordOf(x *simulator.Transaction, cur, name, mid, tt string) txnRecord {
	r := txnRecord{ID: x.ID, Type: x.Type, Date: x.Date, Amount: x.Amount, CurrencyCode: unlessSame(x.CurrencyCode, cur),
		ProcessorStatus: string(x.ProcessorStatus), ProcessorStatusReason: reasonRecordOf(x.ProcessorStatusReason),
		ProcessorName: unlessSame(x.ProcessorName, name), ProcessorMerchantID: unlessSame(x.ProcessorMerchantID, mid),
		ProcessorTransactionID: x.ProcessorTransactionID, CardTokenType: unlessSame(x.CardTokenType, tt),
		AuthorizationCode: x.AuthorizationCode, Reason: x.Reason, CaptureEventID: x.CaptureEventID, Allocations: x.Allocations}
	if x.Events != nil {
		r.Events = make([]txnEventRecord, len(x.Events))
		for i, e := range x.Events {
			r.Events[i] = txnEventRecord{ID: e.ID, Date: e.Date, Type: e.Type, Amount: e.Amount, Final: e.Final, Refunded: e.Refunded}
		}
	}
	return r
}

func (r *txnRecord) transaction(cur, name, mid, tt string) simulator.Transaction {
	x := simulator.Transaction{ID: r.ID, Type: r.Type, Date: r.Date, Amount: r.Amount, CurrencyCode: orRef(r.CurrencyCode, cur),
		ProcessorStatus: simulator.PaymentStatus(r.ProcessorStatus), ProcessorStatusReason: r.ProcessorStatusReason.reason(),
		ProcessorName: orRef(r.ProcessorName, name), ProcessorMerchantID: orRef(r.ProcessorMerchantID, mid),
		ProcessorTransactionID: r.ProcessorTransactionID, CardTokenType: orRef(r.CardTokenType, tt),
		AuthorizationCode: r.AuthorizationCode, Reason: r.Reason, CaptureEventID: r.CaptureEventID, Allocations: r.Allocations}
	if r.Events != nil {
		x.Events = make([]simulator.TransactionEvent, len(r.Events))
		for i, e := range r.Events {
			x.Events[i] = simulator.TransactionEvent{ID: e.ID, Date: e.Date, Type: e.Type, Amount: e.Amount, Final: e.Final, Refunded: e.Refunded}
		}
	}
	return x
}

func sameRisk(a, b *simulator.RiskData) bool {
	return a.FraudChecks != nil && b.FraudChecks != nil && *a.FraudChecks == *b.FraudChecks &&
		a.CVVCheck != nil && b.CVVCheck != nil && *a.CVVCheck == *b.CVVCheck &&
		a.AVSCheck != nil && b.AVSCheck != nil && *a.AVSCheck == *b.AVSCheck
}

func riskRecordOf(r *simulator.RiskData) *riskRecord {
	out := &riskRecord{}
	if f := r.FraudChecks; f != nil {
		out.FraudChecks = &fraudRecord{Source: f.Source, Pre: f.PreAuthorizationResult, Post: f.PostAuthorizationResult}
	}
	if c := r.CVVCheck; c != nil {
		out.CVVCheck = &checkRecord{Source: c.Source, Result: c.Result}
	}
	if a := r.AVSCheck; a != nil {
		out.AVSCheck = &avsRecord{Source: a.Source, Street: a.Result.StreetAddress, PostalCode: a.Result.PostalCode}
	}
	return out
}

func (r *riskRecord) risk() *simulator.RiskData {
	out := &simulator.RiskData{}
	if f := r.FraudChecks; f != nil {
		out.FraudChecks = &simulator.FraudChecks{Source: f.Source, PreAuthorizationResult: f.Pre, PostAuthorizationResult: f.Post}
	}
	if c := r.CVVCheck; c != nil {
		out.CVVCheck = &simulator.RiskCheck{Source: c.Source, Result: c.Result}
	}
	if a := r.AVSCheck; a != nil {
		out.AVSCheck = &simulator.AVSCheck{Source: a.Source, Result: simulator.AVSResult{StreetAddress: a.Street, PostalCode: a.PostalCode}}
	}
	return out
}

func requiredRecordOf(r *simulator.RequiredAction) *requiredRecord {
	if r == nil {
		return nil
	}
	return &requiredRecord{Name: r.Name, Description: r.Description, ClientToken: r.ClientToken}
}

func (r *requiredRecord) required() *simulator.RequiredAction {
	if r == nil {
		return nil
	}
	return &simulator.RequiredAction{Name: r.Name, Description: r.Description, ClientToken: r.ClientToken}
}

func reasonRecordOf(r *simulator.StatusReason) *reasonRecord {
	if r == nil {
		return nil
	}
	return &reasonRecord{Type: r.Type, DeclineType: r.DeclineType, Code: r.Code, Message: r.Message}
}

func (r *reasonRecord) reason() *simulator.StatusReason {
	if r == nil {
		return nil
	}
	return &simulator.StatusReason{Type: r.Type, DeclineType: r.DeclineType, Code: r.Code, Message: r.Message}
}

// Plans.

func accountRecordOf(a simulator.ProcessorAccount) accountRecord {
	return accountRecord{Name: a.Name, MerchantID: a.ProcessorMerchantID, AsyncCapture: a.AsyncCapture,
		SettleAfter: a.SettleAfter, AuthorizationCode: a.AuthorizationCode}
}

func (a accountRecord) account() simulator.ProcessorAccount {
	return simulator.ProcessorAccount{Name: a.Name, ProcessorMerchantID: a.MerchantID, AsyncCapture: a.AsyncCapture,
		SettleAfter: a.SettleAfter, AuthorizationCode: a.AuthorizationCode}
}

// planRecordOf is the plan as stored. Empty lists read back as nil (the
// plan never tells nil from empty).
func planRecordOf(pl *simulator.Plan) *planRecord {
	out := &planRecord{Rule: pl.Rule, Why: pl.Why, Dispute: disputePlanOf(pl.Dispute)}
	for _, st := range pl.Steps {
		out.Steps = append(out.Steps, stepRecord{Account: accountRecordOf(st.Account), Status: string(st.Status), Reason: reasonRecordOf(st.Reason)})
	}
	if c := pl.Capture; c != nil {
		out.Capture = &captureRecord{Status: string(c.Status), SettleAfter: c.SettleAfter, SettleTo: string(c.SettleTo), Reason: reasonRecordOf(c.Reason)}
	}
	if r := pl.Refund; r != nil {
		out.Refund = &refundRecord{Status: string(r.Status), After: r.After, ResolveTo: string(r.ResolveTo), Reason: reasonRecordOf(r.Reason)}
	}
	if a := pl.Account; a != nil {
		for i, st := range pl.Steps {
			if st.Account == *a {
				out.AccountStep = i + 1
				break
			}
		}
		if out.AccountStep == 0 {
			ar := accountRecordOf(*a)
			out.Account = &ar
		}
	}
	return out
}

func (r *planRecord) plan() *simulator.Plan {
	pl := &simulator.Plan{Rule: r.Rule, Why: r.Why, Dispute: r.Dispute.decision()}
	for _, st := range r.Steps {
		pl.Steps = append(pl.Steps, simulator.AuthStep{Account: st.Account.account(), Status: simulator.PaymentStatus(st.Status), Reason: st.Reason.reason()})
	}
	if c := r.Capture; c != nil {
		pl.Capture = &simulator.CaptureDecision{Status: simulator.PaymentStatus(c.Status), SettleAfter: c.SettleAfter,
			SettleTo: simulator.PaymentStatus(c.SettleTo), Reason: c.Reason.reason()}
	}
	if f := r.Refund; f != nil {
		pl.Refund = &simulator.RefundDecision{Status: simulator.PaymentStatus(f.Status), After: f.After,
			ResolveTo: simulator.PaymentStatus(f.ResolveTo), Reason: f.Reason.reason()}
	}
	switch i := r.AccountStep; {
	case i > 0 && i <= len(pl.Steps):
		a := pl.Steps[i-1].Account
		pl.Account = &a
	case r.Account != nil:
		a := r.Account.account()
		pl.Account = &a
	}
	return pl
}

func disputePlanOf(d *simulator.DisputeDecision) *disputePlan {
	if d == nil {
		return nil
	}
	out := &disputePlan{After: d.After, Reason: d.Reason, Amount: d.Amount, Then: disputeStepsOf(d.Then)}
	return out
}

func (r *disputePlan) decision() *simulator.DisputeDecision {
	if r == nil {
		return nil
	}
	return &simulator.DisputeDecision{After: r.After, Reason: r.Reason, Amount: r.Amount, Then: disputeSteps(r.Then)}
}

func disputeStepsOf(steps []simulator.DisputeStep) []disputeStepRecord {
	if steps == nil {
		return nil
	}
	out := make([]disputeStepRecord, len(steps))
	for i, s := range steps {
		out[i] = disputeStepRecord{Status: string(s.Status), After: s.After}
	}
	return out
}

func disputeSteps(steps []disputeStepRecord) []simulator.DisputeStep {
	if steps == nil {
		return nil
	}
	out := make([]simulator.DisputeStep, len(steps))
	for i, s := range steps {
		out[i] = simulator.DisputeStep{Status: simulator.DisputeStatus(s.Status), After: s.After}
	}
	return out
}

// Customers and orders (payments and sessions).

func customerRecordOf(c *simulator.Customer) *customerRecord {
	if c == nil {
		return nil
	}
	return &customerRecord{EmailAddress: c.EmailAddress, MobileNumber: c.MobileNumber, FirstName: c.FirstName, LastName: c.LastName,
		BillingAddress: (*addressRecord)(c.BillingAddress), ShippingAddress: (*addressRecord)(c.ShippingAddress), TaxID: c.TaxID,
		NationalDocumentID: c.NationalDocumentID}
}

func (r *customerRecord) customer() *simulator.Customer {
	if r == nil {
		return nil
	}
	return &simulator.Customer{EmailAddress: r.EmailAddress, MobileNumber: r.MobileNumber, FirstName: r.FirstName, LastName: r.LastName,
		BillingAddress: (*simulator.Address)(r.BillingAddress), ShippingAddress: (*simulator.Address)(r.ShippingAddress), TaxID: r.TaxID,
		NationalDocumentID: r.NationalDocumentID}
}

func orderRecordOf(o *simulator.Order) *orderRecord {
	if o == nil {
		return nil
	}
	out := &orderRecord{CountryCode: o.CountryCode, RetailerCountryCode: o.RetailerCountryCode, Shipping: (*shippingRecord)(o.Shipping)}
	if o.LineItems != nil {
		out.LineItems = make([]lineItemRecord, len(o.LineItems))
		for i, li := range o.LineItems {
			out.LineItems[i] = lineItemRecord{ItemID: li.ItemID, Name: li.Name, Description: li.Description, Amount: li.Amount,
				Quantity: li.Quantity, DiscountAmount: li.DiscountAmount, TaxAmount: li.TaxAmount, TaxCode: li.TaxCode,
				ProductType: li.ProductType, ProductData: (*productRecord)(li.ProductData)}
		}
	}
	if o.Fees != nil {
		out.Fees = make([]feeRecord, len(o.Fees))
		for i, f := range o.Fees {
			out.Fees[i] = feeRecord(f)
		}
	}
	return out
}

func (r *orderRecord) order() *simulator.Order {
	if r == nil {
		return nil
	}
	out := &simulator.Order{CountryCode: r.CountryCode, RetailerCountryCode: r.RetailerCountryCode, Shipping: (*simulator.Shipping)(r.Shipping)}
	if r.LineItems != nil {
		out.LineItems = make([]simulator.LineItem, len(r.LineItems))
		for i, li := range r.LineItems {
			out.LineItems[i] = simulator.LineItem{ItemID: li.ItemID, Name: li.Name, Description: li.Description, Amount: li.Amount,
				Quantity: li.Quantity, DiscountAmount: li.DiscountAmount, TaxAmount: li.TaxAmount, TaxCode: li.TaxCode,
				ProductType: li.ProductType, ProductData: (*simulator.ProductData)(li.ProductData)}
		}
	}
	if r.Fees != nil {
		out.Fees = make([]simulator.Fee, len(r.Fees))
		for i, f := range r.Fees {
			out.Fees[i] = simulator.Fee(f)
		}
	}
	return out
}

// Sessions.

func sessionRecordOf(cs *simulator.ClientSession) *sessionRecord {
	d := &cs.Data
	rec := &sessionRecord{ID: cs.ID, ClientToken: cs.ClientToken, ExpiresAt: cs.ExpiresAt, CreatedAt: cs.CreatedAt,
		ApprovalMode: string(cs.ApprovalMode), CurrentAttemptID: cs.CurrentAttemptID, CustomerID: d.CustomerID, OrderID: d.OrderID,
		CurrencyCode: d.CurrencyCode, Amount: d.Amount, Metadata: d.Metadata, Customer: customerRecordOf(d.Customer), Order: orderRecordOf(d.Order)}
	if m := d.PaymentMethod; m != nil {
		rec.PaymentMethod = &sessionPMRecord{VaultOnSuccess: m.VaultOnSuccess, VaultOn3DS: m.VaultOn3DS, VaultOnAgreement: m.VaultOnAgreement,
			Descriptor: m.Descriptor, PaymentType: m.PaymentType, OrderedAllowedCardNetworks: m.OrderedAllowedCardNetworks,
			Options: m.Options, AuthorizationType: m.AuthorizationType, FirstPaymentReason: m.FirstPaymentReason}
	}
	return rec
}

func (r *sessionRecord) session(tid string) *simulator.ClientSession {
	cs := &simulator.ClientSession{ID: r.ID, TenantID: tid, ClientToken: r.ClientToken, ExpiresAt: r.ExpiresAt, CreatedAt: r.CreatedAt,
		ApprovalMode: simulator.ApprovalMode(r.ApprovalMode), CurrentAttemptID: r.CurrentAttemptID,
		Data: simulator.SessionData{CustomerID: r.CustomerID, OrderID: r.OrderID, CurrencyCode: r.CurrencyCode, Amount: r.Amount,
			Metadata: r.Metadata, Customer: r.Customer.customer(), Order: r.Order.order()}}
	if m := r.PaymentMethod; m != nil {
		cs.Data.PaymentMethod = &simulator.SessionPaymentMethod{VaultOnSuccess: m.VaultOnSuccess, VaultOn3DS: m.VaultOn3DS,
			VaultOnAgreement: m.VaultOnAgreement, Descriptor: m.Descriptor, PaymentType: m.PaymentType,
			OrderedAllowedCardNetworks: m.OrderedAllowedCardNetworks, Options: m.Options, AuthorizationType: m.AuthorizationType,
			FirstPaymentReason: m.FirstPaymentReason}
	}
	return cs
}

// Instruments.

func instRecordOf(in *simulator.Instrument) *instRecord {
	rec := &instRecord{Token: in.Token, TokenType: string(in.TokenType), ExpiryMonth: in.ExpiryMonth, ExpiryYear: in.ExpiryYear,
		CardholderName: in.CardholderName, CVVGiven: in.CVVGiven, AnalyticsID: in.AnalyticsID, CreatedAt: in.CreatedAt,
		SessionID: in.SessionID, AttemptID: in.AttemptID, Used: in.Used, Invalidated: in.Invalidated, VaultedAs: in.VaultedAs,
		CustomerID: in.CustomerID, SourceToken: in.SourceToken, Verified: in.Verified, Default: in.Default, Deleted: in.Deleted,
		DeletedAt: in.DeletedAt}
	rec.Ref, rec.Card = cardRecords(in.Card)
	return rec
}

func (r *instRecord) instrument(tid string) (*simulator.Instrument, error) {
	card, err := cardOf(r.Ref, r.Card)
	if err != nil {
		return nil, fmt.Errorf("store: instrument %s: %w", r.Token, err)
	}
	return &simulator.Instrument{Token: r.Token, TenantID: tid, TokenType: simulator.TokenType(r.TokenType), Card: card,
		ExpiryMonth: r.ExpiryMonth, ExpiryYear: r.ExpiryYear, CardholderName: r.CardholderName, CVVGiven: r.CVVGiven,
		AnalyticsID: r.AnalyticsID, CreatedAt: r.CreatedAt, SessionID: r.SessionID, AttemptID: r.AttemptID, Used: r.Used,
		Invalidated: r.Invalidated, VaultedAs: r.VaultedAs, CustomerID: r.CustomerID, SourceToken: r.SourceToken,
		Verified: r.Verified, Default: r.Default, Deleted: r.Deleted, DeletedAt: r.DeletedAt}, nil
}

// Attempts, jobs, disputes.

func attemptRecordOf(a *simulator.Attempt) *attemptRecord {
	return &attemptRecord{ID: a.ID, SessionID: a.SessionID, Token: a.Token, Status: string(a.Status), CreatedAt: a.CreatedAt,
		ExpiresAt: a.ExpiresAt, UpdatedAt: a.UpdatedAt, PaymentID: a.PaymentID}
}

func (r *attemptRecord) attempt(tid string) *simulator.Attempt {
	return &simulator.Attempt{ID: r.ID, TenantID: tid, SessionID: r.SessionID, Token: r.Token, Status: simulator.AttemptStatus(r.Status),
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, UpdatedAt: r.UpdatedAt, PaymentID: r.PaymentID}
}

func jobRecordOf(j *simulator.Job) *jobRecord {
	return &jobRecord{ID: j.ID, Kind: string(j.Kind), Due: j.Due, RealDue: j.RealDue, PaymentID: j.PaymentID, AttemptID: j.AttemptID,
		TransactionID: j.TransactionID, Status: j.Status, Reason: j.Reason, DisputeID: j.DisputeID, Dispute: disputePlanOf(j.Dispute)}
}

func (r *jobRecord) job(tid string) *simulator.Job {
	return &simulator.Job{ID: r.ID, TenantID: tid, Kind: simulator.JobKind(r.Kind), Due: r.Due, RealDue: r.RealDue, PaymentID: r.PaymentID,
		AttemptID: r.AttemptID, TransactionID: r.TransactionID, Status: r.Status, Reason: r.Reason, DisputeID: r.DisputeID,
		Dispute: r.Dispute.decision()}
}

func disputeRecordOf(d *simulator.Dispute) *disputeRecord {
	return &disputeRecord{ID: d.ID, PaymentID: d.PaymentID, OrderID: d.OrderID, Reason: d.Reason, Amount: d.Amount,
		CurrencyCode: d.CurrencyCode, TransactionID: d.TransactionID, Processor: d.Processor, ProcessorMerchantID: d.ProcessorMerchantID,
		PaymentMethodType: d.PaymentMethodType, Network: d.Network, Status: string(d.Status), Type: d.Type, OpenedAt: d.OpenedAt,
		UpdatedAt: d.UpdatedAt, Then: disputeStepsOf(d.Then)}
}

func (r *disputeRecord) dispute(tid string) *simulator.Dispute {
	return &simulator.Dispute{ID: r.ID, TenantID: tid, PaymentID: r.PaymentID, OrderID: r.OrderID, Reason: r.Reason, Amount: r.Amount,
		CurrencyCode: r.CurrencyCode, TransactionID: r.TransactionID, Processor: r.Processor, ProcessorMerchantID: r.ProcessorMerchantID,
		PaymentMethodType: r.PaymentMethodType, Network: r.Network, Status: simulator.DisputeStatus(r.Status), Type: r.Type,
		OpenedAt: r.OpenedAt, UpdatedAt: r.UpdatedAt, Then: disputeSteps(r.Then)}
}

// Events.

func evRecordOf(e *simulator.Event) evRecord {
	rec := evRecord{ID: e.ID, Type: e.Type, PaymentID: e.PaymentID, DisputeID: e.DisputeID, CreatedAt: e.CreatedAt,
		Status: e.Status, NextAt: e.NextAt, TraceParent: e.TraceParent, PaymentStatus: string(e.PaymentStatus)}
	if rec.PaymentStatus == "" && e.Payment != nil {
		rec.PaymentStatus = string(e.Payment.Status)
	}
	if len(e.Attempts) > 0 {
		rec.Attempts = make([]attemptOfEvent, len(e.Attempts))
		for i, a := range e.Attempts {
			rec.Attempts[i] = attemptOfEvent(a)
		}
	}
	return rec
}

// event is the record as the domain has it, of tenant tid. Its Body is the
// literal null (a record, not a body: Tx.Event sets the body of the body
// form).
func (r *evRecord) event(tid string) *simulator.Event {
	e := &simulator.Event{ID: r.ID, TenantID: tid, Type: r.Type, PaymentID: r.PaymentID, DisputeID: r.DisputeID,
		CreatedAt: r.CreatedAt, Body: []byte("null"), Status: r.Status, NextAt: r.NextAt, TraceParent: r.TraceParent,
		PaymentStatus: simulator.PaymentStatus(r.PaymentStatus)}
	if len(r.Attempts) > 0 {
		e.Attempts = make([]simulator.DeliveryAttempt, len(r.Attempts))
		for i, a := range r.Attempts {
			e.Attempts[i] = simulator.DeliveryAttempt(a)
		}
	}
	return e
}

// Tenants.

func tenantRecordOf(tn *simulator.Tenant) *tenantRecord {
	rec := &tenantRecord{ID: tn.ID, SigningSecret: tn.SigningSecret, PreviousSecret: tn.PreviousSecret, PreviousUntil: tn.PreviousUntil,
		WebhookURL: tn.WebhookURL, WebhookVersion: string(tn.WebhookVersion), ClockOffset: tn.ClockOffset, First6Digits: tn.First6Digits,
		FromConfig: tn.FromConfig, CreatedAt: tn.CreatedAt, ExpiresAt: tn.ExpiresAt, TenantClockExpiresAt: tn.TenantClockExpiresAt,
		Scenarios: tn.Scenarios, WebhookChaos: (*chaosRecord)(tn.WebhookChaos), Next: (*oneShotRecord)(tn.Next)}
	if tn.APIKeys != nil {
		rec.APIKeys = make([]apiKeyRecord, len(tn.APIKeys))
		for i, k := range tn.APIKeys {
			rec.APIKeys[i] = apiKeyRecord{Key: k.Key, Scopes: simulator.Names(k.Scopes)}
		}
	}
	return rec
}

func (r *tenantRecord) tenant() *simulator.Tenant {
	tn := &simulator.Tenant{ID: r.ID, SigningSecret: r.SigningSecret, PreviousSecret: r.PreviousSecret, PreviousUntil: r.PreviousUntil,
		WebhookURL: r.WebhookURL, WebhookVersion: simulator.APIVersion(r.WebhookVersion), ClockOffset: r.ClockOffset,
		First6Digits: r.First6Digits, FromConfig: r.FromConfig, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt,
		TenantClockExpiresAt: r.TenantClockExpiresAt, Scenarios: r.Scenarios, WebhookChaos: (*simulator.WebhookChaos)(r.WebhookChaos),
		Next: (*simulator.OneShot)(r.Next)}
	if r.APIKeys != nil {
		tn.APIKeys = make([]simulator.APIKey, len(r.APIKeys))
		for i, k := range r.APIKeys {
			key := simulator.APIKey{Key: k.Key}
			if k.Scopes != nil {
				key.Scopes = make([]simulator.Scope, len(k.Scopes))
				for j, s := range k.Scopes {
					key.Scopes[j] = simulator.Scope(s)
				}
			}
			tn.APIKeys[i] = key
		}
	}
	return tn
}

func expiredTenantRecordOf(x *simulator.ExpiredTenant) *expiredTenantRecord {
	return (*expiredTenantRecord)(x)
}

// Record readers and writers (the version byte and the record).

func encodePayment(p *simulator.Payment) (string, error) {
	pr := payRecordOf(p)
	return marshal(&pr)
}

func decodePayment(raw, tid string) (*simulator.Payment, error) {
	var r payRecord
	if err := decode(raw, &r); err != nil {
		return nil, err
	}
	return r.payment(tid)
}

func encodeInstrument(in *simulator.Instrument) (string, error) { return marshal(instRecordOf(in)) }

func decodeInstrument(raw, tid string) (*simulator.Instrument, error) {
	var r instRecord
	if err := decode(raw, &r); err != nil {
		return nil, err
	}
	return r.instrument(tid)
}

func decodeSession(raw, tid string) (*simulator.ClientSession, error) {
	var r sessionRecord
	if err := decode(raw, &r); err != nil {
		return nil, err
	}
	return r.session(tid), nil
}

func decodeAttempt(raw, tid string) (*simulator.Attempt, error) {
	var r attemptRecord
	if err := decode(raw, &r); err != nil {
		return nil, err
	}
	return r.attempt(tid), nil
}

func decodeJob(raw, tid string) (*simulator.Job, error) {
	var r jobRecord
	if err := decode(raw, &r); err != nil {
		return nil, err
	}
	return r.job(tid), nil
}

func decodeDispute(raw, tid string) (*simulator.Dispute, error) {
	var r disputeRecord
	if err := decode(raw, &r); err != nil {
		return nil, err
	}
	return r.dispute(tid), nil
}

func decodeTenant(raw, _ string) (*simulator.Tenant, error) {
	var r tenantRecord
	if err := decode(raw, &r); err != nil {
		return nil, err
	}
	return r.tenant(), nil
}

func decodeExpiredTenant(raw, _ string) (*simulator.ExpiredTenant, error) {
	var r expiredTenantRecord
	if err := decode(raw, &r); err != nil {
		return nil, err
	}
	return (*simulator.ExpiredTenant)(&r), nil
}
