package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// MaxScenarioDocument bounds a tenant's rules document (bytes).
const MaxScenarioDocument = 256 << 10

func (s *Service) rules() simulator.RuleBook {
	rb, _ := s.processor.(simulator.RuleBook)
	return rb
}

func errNoRuleBook() *simulator.Error {
	return simulator.Errorf(simulator.CodeNotFound, "This sandbox's processors have no scenario rules")
}

// checkScenarioName is the 422 at $.metadata.sandboxScenario for a name
// that is no rule of the tenant (checked on the merged metadata).
func (s *Service) checkScenarioName(t *simulator.Tenant, model string, metadata map[string]any) error {
	rb := s.rules()
	if rb == nil {
		return nil
	}
	if err := rb.CheckScenario(t.Scenarios, metadata); err != nil {
		return simulator.ValidationError(model, simulator.FieldError{Path: "$.metadata.sandboxScenario", Description: scenarioNameProblem(err)})
	}
	return nil
}

// scenarioNameProblem describes an unknown metadata.sandboxScenario, with
// the close rule names when the rule book gives them (CloseNames).
func scenarioNameProblem(err error) string {
	return err.Error() + " of the scenarios in force (GET /_sandbox/scenarios)" + closeNames(err)
}

// closeNames is "; did you mean `x`?" (or the close ones) for an unknown
// rule name's error from the rule book; "" when it names none.
func closeNames(err error) string {
	var cn interface{ CloseNames() []string }
	if !errors.As(err, &cn) {
		return ""
	}
	switch names := cn.CloseNames(); len(names) {
	case 0:
		return ""
	case 1:
		return "; did you mean `" + names[0] + "`?"
	default:
		return "; close ones: `" + strings.Join(names, "`, `") + "`"
	}
}

// Scenarios renders the rules in force for tenant t (its own, else the server's).
func (s *Service) Scenarios(t *simulator.Tenant, asJSON bool) ([]byte, error) {
	rb := s.rules()
	if rb == nil {
		return nil, errNoRuleBook()
	}
	cur, err := s.Tenant(t.ID)
	if err != nil {
		return nil, err
	}
	return rb.RenderRules(cur.Scenarios, asJSON)
}

// PutScenarios replaces tenant t's rules with a whole document and answers
// the number of rules (a pending one-shot of a rule it drops goes too). Errors: ScenarioValidationError with every problem,
// each at "line N" in validationErrors.
func (s *Service) PutScenarios(t *simulator.Tenant, doc []byte) (int, error) {
	rb := s.rules()
	if rb == nil {
		return 0, errNoRuleBook()
	}
	if len(doc) > MaxScenarioDocument {
		return 0, scenarioError([]simulator.ScenarioProblem{{Line: 1, Message: fmt.Sprintf("the document is larger than %d KiB", MaxScenarioDocument>>10)}})
	}
	n, problems := rb.CheckRules(doc)
	if len(problems) > 0 {
		return 0, scenarioError(problems)
	}
	return n, s.setScenarios(t, string(doc))
}

func scenarioError(problems []simulator.ScenarioProblem) *simulator.Error {
	e := &simulator.Error{Code: simulator.CodeScenarioValidationError, Model: "ScenarioDocument",
		Message:  fmt.Sprintf("The scenario document has %d problem(s); nothing was changed", len(problems)),
		Recovery: "Fix the lines listed in validationErrors (`paysandbox scenarios validate FILE` checks a file offline)."}
	for _, p := range problems {
		e.Fields = append(e.Fields, simulator.FieldError{Path: fmt.Sprintf("line %d", p.Line), Description: fmt.Sprintf("line %d: %s", p.Line, p.Message)})
	}
	return e
}

// DeleteScenarios puts tenant t back on the server's rules.
func (s *Service) DeleteScenarios(t *simulator.Tenant) error { return s.setScenarios(t, "") }

// setScenarios stores tenant t's rules document; a pending one-shot whose
// rule the new rules do not have is dropped with it (it could decide nothing).
func (s *Service) setScenarios(t *simulator.Tenant, doc string) error {
	rb := s.rules()
	return s.store.Update(func(tx simulator.Tx) error {
		cur, err := tx.Tenant(t.ID)
		if err != nil {
			return err
		}
		if cur == nil {
			return simulator.Errorf(simulator.CodeUnauthorized, "The tenant no longer exists")
		}
		cur.Scenarios = doc
		if rb != nil && cur.Next != nil && !containsString(rb.RuleNames(doc), cur.Next.Rule) {
			cur.Next = nil
		}
		return tx.PutTenant(cur)
	})
}

// ExplainRequest is a payment request to explain: the fields the rules look
// at, and the card as a test-card number or a token of the tenant (whose
// session fills in what the request leaves out, as on POST /payments).
type ExplainRequest struct {
	Amount              *int64
	CurrencyCode        string
	OrderID             string
	CustomerID          string
	Metadata            map[string]any
	Card                string
	Token               string
	ProcessorMerchantID string
	// ExpirationMonth and ExpirationYear are the card's expiry (with Card;
	// a token brings its own).
	ExpirationMonth, ExpirationYear string
}

// ExplainScenario says which rule a payment request would get and why the
// others would not. Errors: RequestValidationError (unknown sandboxScenario,
// unknown token, card not digits).
func (s *Service) ExplainScenario(t *simulator.Tenant, req ExplainRequest) (simulator.ScenarioExplanation, error) {
	rb := s.rules()
	if rb == nil {
		return simulator.ScenarioExplanation{}, errNoRuleBook()
	}
	cur, err := s.Tenant(t.ID)
	if err != nil {
		return simulator.ScenarioExplanation{}, err
	}
	// The probe is created now on the tenant's clock, as the next payment
	// would be (when.expired judges the card's expiry against it).
	p := &simulator.Payment{TenantID: t.ID, Date: s.now(t), CurrencyCode: req.CurrencyCode, OrderID: req.OrderID,
		CustomerID: req.CustomerID, Metadata: req.Metadata}
	if req.Amount != nil {
		p.Amount = *req.Amount
	}
	if req.ProcessorMerchantID != "" {
		p.Processor = &simulator.ProcessorState{ProcessorMerchantID: req.ProcessorMerchantID}
	}
	if err := s.probeCard(t, p, req); err != nil {
		return simulator.ScenarioExplanation{}, err
	}
	// The request is explained as the next payment would be decided: a
	// pending one-shot picks its rule unless the metadata names one.
	p.OneShot = simulator.OneShotFor(cur.Next, p.Metadata)
	ex, err := rb.ExplainRules(cur.Scenarios, p)
	if err != nil {
		return simulator.ScenarioExplanation{}, simulator.ValidationError("ScenarioExplainRequest", simulator.FieldError{Path: "$.metadata.sandboxScenario", Description: scenarioNameProblem(err)})
	}
	ex.Next = cur.Next
	return ex, nil
}

// probeCard gives the probe payment p of an explain request its card: the
// card number, or the card of the payment method token with what the
// token's client session fills in, as on POST /payments. Errors:
// RequestValidationError ($.card, $.paymentMethodToken).
func (s *Service) probeCard(t *simulator.Tenant, p *simulator.Payment, req ExplainRequest) error {
	const model = "ScenarioExplainRequest"
	switch {
	case req.Card != "":
		if !simulator.AllDigits(req.Card) || len(req.Card) < 12 || len(req.Card) > 19 {
			return simulator.ValidationError(model, simulator.FieldError{Path: "$.card", Description: "card must be a card number of 12 to 19 digits"})
		}
		p.Card = s.cards.Identify(req.Card)
		p.PaymentMethod.Data.ExpirationMonth, p.PaymentMethod.Data.ExpirationYear = req.ExpirationMonth, req.ExpirationYear
	case req.Token != "":
		var in *simulator.Instrument
		var cs *simulator.ClientSession
		if err := s.store.View(func(tx simulator.Tx) (err error) {
			if in, err = tx.Instrument(t.ID, req.Token); err != nil || in == nil || in.SessionID == "" {
				return err
			}
			cs, err = tx.Session(t.ID, in.SessionID)
			return err
		}); err != nil {
			return err
		}
		if in == nil {
			return simulator.ValidationError(model, simulator.FieldError{Path: "$.paymentMethodToken", Description: "no payment method of this tenant has this token"})
		}
		p.Card = in.Card
		p.PaymentMethod.Data.ExpirationMonth, p.PaymentMethod.Data.ExpirationYear = in.ExpiryMonth, in.ExpiryYear
		if cs != nil && in.TokenType == simulator.TokenSingleUse { // the session fills in, as on POST /payments
			d := cs.Data
			if req.Amount == nil {
				if amt, ok, _ := d.TotalAmount(); ok {
					p.Amount = amt
				}
			}
			p.CurrencyCode, p.OrderID, p.CustomerID = pick(d.CurrencyCode, p.CurrencyCode), pick(d.OrderID, p.OrderID), pick(d.CustomerID, p.CustomerID)
			p.Metadata = mergeMaps(d.Metadata, p.Metadata)
		}
	}
	return nil
}

// PaymentExplanation is the rule a payment was given at creation and why,
// and how the rules in force now see it.
type PaymentExplanation struct {
	PaymentID string                        `json:"paymentId"`
	Matched   *string                       `json:"matched"`
	Reason    string                        `json:"reason"`
	Now       simulator.ScenarioExplanation `json:"rulesInForce"`
	// Next is the tenant's pending one-shot (for its next payments, not this one).
	Next *simulator.OneShot `json:"next,omitempty"`
	// Hold is how the payment's rule (the rule of that name in force)
	// holds the request that creates a payment; for a payment not decided
	// yet (a rule's latency is running), how the rule the rules in force
	// give it does. Nil without a rule.
	Hold *simulator.RuleHold `json:"-"`
	// Timeout is the gateway timeout the payment is in (nil when it is
	// not), and At the tenant clock's time of the explanation.
	Timeout *simulator.TimeoutState `json:"-"`
	At      time.Time               `json:"-"`
}

// ExplainPayment explains an existing payment. Errors: PaymentError.
func (s *Service) ExplainPayment(t *simulator.Tenant, id string) (PaymentExplanation, error) {
	rb := s.rules()
	if rb == nil {
		return PaymentExplanation{}, errNoRuleBook()
	}
	p, err := s.Payment(t, id)
	if err != nil {
		return PaymentExplanation{}, err
	}
	cur, err := s.Tenant(t.ID)
	if err != nil {
		return PaymentExplanation{}, err
	}
	out := PaymentExplanation{PaymentID: p.ID, Reason: "not decided yet: the payment awaits its authorization", Next: cur.Next,
		Timeout: p.Timeout, At: s.now(cur)}
	if p.Plan != nil {
		out.Reason = p.Plan.Why
		if p.Plan.Rule != "" {
			r := p.Plan.Rule
			out.Matched = &r
			out.Hold = ruleHold(rb, cur.Scenarios, r)
		}
	}
	if p.Metadata != nil { // p is this call's own read: the rules see it as they would now
		if _, ok := p.Metadata["sandboxScenario"].(string); ok {
			if rb.CheckScenario(cur.Scenarios, p.Metadata) != nil {
				delete(p.Metadata, "sandboxScenario") // the rule is gone from the rules in force
			}
		}
	}
	if ex, err := rb.ExplainRules(cur.Scenarios, p); err == nil {
		out.Now = ex
		if p.Plan == nil && ex.Matched != nil {
			out.Hold = ruleHold(rb, cur.Scenarios, *ex.Matched)
		}
	}
	return out, nil
}

// ruleHold is how rule name of tenant document doc holds a request; nil
// when no rule has that name.
func ruleHold(rb simulator.RuleBook, doc, name string) *simulator.RuleHold {
	if h, ok := rb.RuleHold(doc, name); ok {
		return &h
	}
	return nil
}

// NextScenario is tenant t's pending one-shot, nil when none.
func (s *Service) NextScenario(t *simulator.Tenant) (*simulator.OneShot, error) {
	cur, err := s.Tenant(t.ID)
	if err != nil {
		return nil, err
	}
	return cur.Next, nil
}

// RuleHold is how the rule named rule of tenant t's rules in force holds
// the request that creates a payment (zero for a name that is no rule).
func (s *Service) RuleHold(t *simulator.Tenant, rule string) (simulator.RuleHold, error) {
	rb := s.rules()
	if rb == nil {
		return simulator.RuleHold{}, errNoRuleBook()
	}
	cur, err := s.Tenant(t.ID)
	if err != nil {
		return simulator.RuleHold{}, err
	}
	h, _ := rb.RuleHold(cur.Scenarios, rule)
	return h, nil
}

// SetNextScenario makes tenant t's next `times` created payments take the
// rule named rule, replacing any pending one-shot, and answers it. Errors:
// RequestValidationError at $.rule (missing, or no rule of the rules in
// force: the description lists them) and at $.times (outside 1-100).
func (s *Service) SetNextScenario(t *simulator.Tenant, rule string, times int64) (*simulator.OneShot, error) {
	rb := s.rules()
	if rb == nil {
		return nil, errNoRuleBook()
	}
	var next *simulator.OneShot
	err := s.store.Update(func(tx simulator.Tx) error {
		cur, err := tx.Tenant(t.ID)
		if err != nil {
			return err
		}
		if cur == nil {
			return simulator.Errorf(simulator.CodeUnauthorized, "The tenant no longer exists")
		}
		var errs []simulator.FieldError
		names := rb.RuleNames(cur.Scenarios)
		switch {
		case rule == "":
			errs = append(errs, simulator.FieldError{Path: "$.rule", Description: "rule is required: the name of a rule (" + ruleList(names) + ")"})
		case !containsString(names, rule):
			// The rule book names the close ones as for metadata.sandboxScenario.
			near := closeNames(rb.CheckScenario(cur.Scenarios, map[string]any{"sandboxScenario": rule}))
			errs = append(errs, simulator.FieldError{Path: "$.rule", Description: fmt.Sprintf("%q is not a rule of the scenarios in force%s (%s)", rule, near, ruleList(names))})
		}
		errs = append(errs, simulator.CheckOneShotTimes(times)...)
		if len(errs) > 0 {
			return simulator.ValidationError("ScenarioNextRequest", errs...)
		}
		next = &simulator.OneShot{Rule: rule, Remaining: int(times)}
		cur.Next = next
		return tx.PutTenant(cur)
	})
	if err != nil {
		return nil, err
	}
	return next, nil
}

func ruleList(names []string) string {
	if len(names) == 0 {
		return "the tenant has no rules"
	}
	return "the rules are: " + strings.Join(names, ", ")
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ClearNextScenario drops tenant t's pending one-shot (none: nothing changes).
func (s *Service) ClearNextScenario(t *simulator.Tenant) error {
	return s.store.Update(func(tx simulator.Tx) error {
		cur, err := tx.Tenant(t.ID)
		if err != nil || cur == nil || cur.Next == nil {
			return err
		}
		cur.Next = nil
		return tx.PutTenant(cur)
	})
}

// oneShotMoved is takeOneShot's refusal: the one-shot a payment was decided
// with is no longer pending; now is what is pending instead (nil: none).
type oneShotMoved struct{ now *simulator.OneShot }

func (*oneShotMoved) Error() string { return "the pending one-shot changed" }

// takeOneShot takes one payment's worth of rule from tenant tid's pending
// one-shot, in the transaction that writes the payment. Errors:
// *oneShotMoved when rule is no longer what is pending.
func takeOneShot(tx simulator.Tx, tid, rule string) error {
	cur, err := tx.Tenant(tid)
	if err != nil {
		return err
	}
	if cur == nil {
		return simulator.Errorf(simulator.CodeUnauthorized, "The tenant no longer exists")
	}
	left, ok := cur.Next.Take(rule)
	if !ok {
		return &oneShotMoved{now: cur.Next}
	}
	cur.Next = left
	return tx.PutTenant(cur)
}

// applyOneShot gives p (being created in tx) the rule of tenant tid's
// pending one-shot, if any and unless p names its own, and takes it.
func applyOneShot(tx simulator.Tx, tid string, p *simulator.Payment) error {
	cur, err := tx.Tenant(tid)
	if err != nil || cur == nil {
		return err
	}
	rule := simulator.OneShotFor(cur.Next, p.Metadata)
	if rule == "" {
		return nil
	}
	p.OneShot = rule
	cur.Next, _ = cur.Next.Take(rule)
	return tx.PutTenant(cur)
}

// holdTimeout keeps the caller of a timed-out authorization until holdFor
// passes (0: until the request's deadline, if it has one).
func holdTimeout(ctx context.Context, holdFor time.Duration) {
	if holdFor <= 0 {
		if _, ok := ctx.Deadline(); ok {
			<-ctx.Done()
		}
		return
	}
	tm := time.NewTimer(holdFor)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
	}
}

// sleepLatency is a rule's real-time latency (cut short by the request's end).
func sleepLatency(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
	}
}

// scenarioOutcome describes the final authorization status a decision leads
// to, for vault verification: a timeout counts as what it resolves to.
func scenarioOutcome(d simulator.AuthorizeDecision) simulator.PaymentStatus {
	switch {
	case d.ThreeDS == simulator.ThreeDSFrictionlessFail:
		return simulator.StatusDeclined
	case d.Timeout != nil:
		return d.Timeout.ResolveTo
	}
	st := simulator.FinalStep(d)
	if st.Status == "" {
		return simulator.StatusAuthorized
	}
	return st.Status
}
