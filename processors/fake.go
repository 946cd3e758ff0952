package processors

import (
	"context"
	"crypto/sha256"
	"errors"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/paysandbox/paysandbox"
	"github.com/paysandbox/paysandbox/scenarios"
	"github.com/paysandbox/paysandbox/simulator"
)

var (
	_ simulator.Processor = (*Fake)(nil)
	_ simulator.RuleBook  = (*Fake)(nil)
)

// Fake is the fake processors of a sandbox: every decision comes from the
// scenario engine, over the tenant's own rules when it has some (those of
// the tenant each decision is given), else the server's. A payment's later
// captures and refunds follow the plan stored on it at creation
// (simulator.Payment.Plan), not the rules in force then.
type Fake struct {
	server atomic.Pointer[scenarios.Engine]
	// tenantDoc, when set, gives a tenant's own rules document in place of
	// the tenant's Scenarios ("" when it has none).
	tenantDoc func(tenantID string) string

	mu      sync.Mutex
	engines map[[32]byte]*scenarios.Engine // tenant documents over the current server doc
}

// DefaultDoc is the built-in scenarios.yaml, loaded. It panics if the shipped
// file is invalid (a test pins that it is not).
func DefaultDoc() *scenarios.Doc {
	doc, err := scenarios.Load("scenarios.yaml", paysandbox.DefaultScenarios, nil)
	if err != nil {
		panic("the built-in scenarios.yaml is invalid: " + err.Error())
	}
	return doc
}

// DefaultAccounts are the processors of the built-in scenarios, the default first.
func DefaultAccounts() []simulator.ProcessorAccount { return DefaultDoc().Accounts() }

// NewFake makes the fake processors over the server's document (nil: the
// built-in one). A decision reads the tenant's own rules from the tenant it
// is given (Tenant.Scenarios), or, when tenantDoc is set, from
// tenantDoc(tenant id) ("" when it has none): a test's documents by id,
// without tenants of their own.
func NewFake(server *scenarios.Doc, tenantDoc func(tenantID string) string) *Fake {
	if server == nil {
		server = DefaultDoc()
	}
	f := &Fake{engines: map[[32]byte]*scenarios.Engine{}, tenantDoc: tenantDoc}
	f.server.Store(scenarios.New(server))
	return f
}

// SetServer replaces the server's document (SIGHUP). Tenants' own documents
// are read again over it.
func (f *Fake) SetServer(doc *scenarios.Doc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.server.Store(scenarios.New(doc))
	clear(f.engines)
}

// Server is the server's document.
func (f *Fake) Server() *scenarios.Doc { return f.server.Load().Doc() }

// maxCachedEngines bounds the parsed tenant documents kept in memory.
const maxCachedEngines = 4096

// engineFor is the engine of a tenant document ("" the server's). A document
// that no longer loads over the server's (a processor it names was removed
// by a reload) falls back to the server's rules.
func (f *Fake) engineFor(doc string) *scenarios.Engine {
	server := f.server.Load()
	if doc == "" {
		return server
	}
	key := sha256.Sum256([]byte(doc))
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.engines[key]; ok {
		return e
	}
	d, err := scenarios.Load("tenant scenarios", []byte(doc), server.Doc())
	e := server
	if err == nil {
		e = scenarios.New(d)
	}
	if len(f.engines) >= maxCachedEngines {
		clear(f.engines)
	}
	f.engines[key] = e
	return e
}

// engine is the engine of t's rules (nil t: the server's).
func (f *Fake) engine(t *simulator.Tenant) *scenarios.Engine {
	switch {
	case t == nil:
		return f.server.Load()
	case f.tenantDoc != nil:
		return f.engineFor(f.tenantDoc(t.ID))
	}
	return f.engineFor(t.Scenarios)
}

// Accounts implements simulator.Processor.
func (f *Fake) Accounts(t *simulator.Tenant) []simulator.ProcessorAccount {
	return f.engine(t).Accounts()
}

// Authorize implements simulator.Processor: the rule metadata.sandboxScenario
// names, else the first that matches, else the default processor authorizes.
// A name that is no rule (checked at creation; the rules may have changed
// since) counts as no rule.
func (f *Fake) Authorize(_ context.Context, t *simulator.Tenant, p *simulator.Payment) simulator.AuthorizeDecision {
	e := f.engine(t)
	req := scenarios.RequestOf(p)
	d, err := e.Decide(req)
	if err != nil {
		req.Metadata = maps.Clone(req.Metadata) // RequestOf shares p.Metadata
		delete(req.Metadata, scenarios.ScenarioKey)
		d, _ = e.Decide(req)
	}
	a := d.Authorize
	a.Why, a.Capture, a.Refund = d.Why, d.Capture, d.Refund
	return a
}

// Capture implements simulator.Processor: the plan's capture outcome, else
// the authorizing account's mode (async: SETTLING, then SETTLED after its
// settleAfter; sync: SETTLED).
func (f *Fake) Capture(_ context.Context, t *simulator.Tenant, p *simulator.Payment, _ int64) simulator.CaptureDecision {
	if p.Plan != nil && p.Plan.Capture != nil {
		return *p.Plan.Capture
	}
	acct := f.account(t, p)
	if acct.AsyncCapture {
		return simulator.CaptureDecision{Status: simulator.StatusSettling, SettleAfter: acct.SettleAfter, SettleTo: simulator.StatusSettled}
	}
	return simulator.CaptureDecision{Status: simulator.StatusSettled}
}

// account is the account that authorized p: the one stored on its plan, else
// the tenant's account of that name, else the default.
func (f *Fake) account(t *simulator.Tenant, p *simulator.Payment) simulator.ProcessorAccount {
	if p.Plan != nil && p.Plan.Account != nil {
		return *p.Plan.Account
	}
	accts := f.Accounts(t)
	if p.Processor != nil {
		for _, a := range accts {
			if a.Name == p.Processor.Name && a.ProcessorMerchantID == p.Processor.ProcessorMerchantID {
				return a
			}
		}
	}
	return accts[0]
}

// Refund implements simulator.Processor: the plan's refund outcome, else SETTLED.
func (f *Fake) Refund(_ context.Context, _ *simulator.Tenant, p *simulator.Payment, _ int64) simulator.RefundDecision {
	if p.Plan != nil && p.Plan.Refund != nil {
		return *p.Plan.Refund
	}
	return simulator.RefundDecision{Status: simulator.StatusSettled}
}

// CheckRules implements simulator.RuleBook: a tenant document loaded over the
// server's (which fills in defaultProcessor and processors it leaves out).
func (f *Fake) CheckRules(doc []byte) (int, []simulator.ScenarioProblem) {
	d, err := scenarios.Load("scenarios", doc, f.Server())
	if err != nil {
		var le *scenarios.Error
		if errors.As(err, &le) {
			out := make([]simulator.ScenarioProblem, len(le.Problems))
			for i, p := range le.Problems {
				out[i] = simulator.ScenarioProblem{Line: p.Line, Message: p.Message}
			}
			return 0, out
		}
		return 0, []simulator.ScenarioProblem{{Line: 1, Message: err.Error()}}
	}
	return len(d.Rules), nil
}

// RenderRules implements simulator.RuleBook.
func (f *Fake) RenderRules(doc string, asJSON bool) ([]byte, error) {
	d := f.engineFor(doc).Doc()
	if asJSON {
		return d.JSON()
	}
	return d.YAML()
}

// CheckScenario implements simulator.RuleBook.
func (f *Fake) CheckScenario(doc string, metadata map[string]any) error {
	v, ok := metadata[scenarios.ScenarioKey]
	if !ok {
		return nil
	}
	e := f.engineFor(doc)
	if name, isString := v.(string); isString && e.HasRule(name) {
		return nil
	}
	return e.UnknownRule(v)
}

// RuleNames implements simulator.RuleBook.
func (f *Fake) RuleNames(doc string) []string { return f.engineFor(doc).RuleNames() }

// RuleHold implements simulator.RuleBook.
func (f *Fake) RuleHold(doc, name string) (simulator.RuleHold, bool) {
	r, ok := f.engineFor(doc).Doc().Rule(name)
	if !ok {
		return simulator.RuleHold{}, false
	}
	h := simulator.RuleHold{Latency: r.Latency}
	if r.Timeout != nil {
		h.Timeout, h.HoldFor = true, r.Timeout.HoldFor
	}
	return h, true
}

// ExplainRules implements simulator.RuleBook.
func (f *Fake) ExplainRules(doc string, p *simulator.Payment) (simulator.ScenarioExplanation, error) {
	ex, err := f.engineFor(doc).Explain(scenarios.RequestOf(p))
	if err != nil {
		return simulator.ScenarioExplanation{}, err
	}
	out := simulator.ScenarioExplanation{Matched: ex.Matched, Rules: make([]simulator.ScenarioRuleResult, len(ex.Rules))}
	for i, r := range ex.Rules {
		out.Rules[i] = simulator.ScenarioRuleResult{Name: r.Name, Matched: r.Matched, Reason: r.Reason}
	}
	return out, nil
}
