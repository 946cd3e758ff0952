package simulator

import "time"

// RuleBook is the scenario side of the fake processors: per-tenant rule
// documents. A tenant's document is the text it PUT ("" means the server's
// rules); the processor parses and caches it. The service never parses YAML.
type RuleBook interface {
	// CheckRules loads a tenant document over the server's (which supplies
	// defaultProcessor and processors it leaves out): the number of rules, or
	// every problem with its line.
	CheckRules(doc []byte) (int, []ScenarioProblem)
	// RenderRules writes the rules in force for a tenant document, as YAML or JSON.
	RenderRules(doc string, asJSON bool) ([]byte, error)
	// CheckScenario refuses a metadata.sandboxScenario that names no rule.
	CheckScenario(doc string, metadata map[string]any) error
	// ExplainRules evaluates every rule for a payment (or a probe of one).
	ExplainRules(doc string, p *Payment) (ScenarioExplanation, error)
	// RuleNames lists the names of the rules in force for a tenant document.
	RuleNames(doc string) []string
	// RuleHold is how the rule named name of a tenant document holds the
	// request that creates a payment; ok false when no rule has that name.
	RuleHold(doc, name string) (h RuleHold, ok bool)
}

// RuleHold is what a scenario rule does to the request that creates a
// payment: Latency of real time first, then, with Timeout (a gateway
// timeout), a hold of HoldFor, or until the request timeout when HoldFor is 0.
type RuleHold struct {
	Latency time.Duration
	Timeout bool
	HoldFor time.Duration
}

// HoldsFor is how long the rule holds a request when the server cuts
// requests at requestTimeout (0: it never does): its latency plus its
// timeout's hold, at most the request timeout. 0 for a rule that answers at
// once.
func (h RuleHold) HoldsFor(requestTimeout time.Duration) time.Duration {
	d := h.Latency
	if h.Timeout {
		switch {
		case h.HoldFor > 0:
			d += h.HoldFor
		case requestTimeout > 0:
			d = requestTimeout // the hold lasts until the request's deadline
		}
	}
	if requestTimeout > 0 && d > requestTimeout {
		d = requestTimeout
	}
	return d
}

// ScenarioProblem is one problem of a scenario document.
type ScenarioProblem struct {
	Line    int
	Message string
}

// ScenarioExplanation is the explain answer's shape (docs/scenarios.md), plus the tenant's
// pending one-shot when there is one.
type ScenarioExplanation struct {
	Matched *string              `json:"matched"`
	Rules   []ScenarioRuleResult `json:"rules"`
	Next    *OneShot             `json:"next,omitempty"`
}

// ScenarioRuleResult is one rule of an explanation.
type ScenarioRuleResult struct {
	Name    string `json:"name"`
	Matched bool   `json:"matched"`
	Reason  string `json:"reason"`
}
