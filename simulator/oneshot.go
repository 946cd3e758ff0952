package simulator

import "fmt"

// OneShot is a tenant's pending one-shot outcome (docs/scenarios.md,
// /_sandbox/scenarios/next): its next Remaining created payments take Rule
// whatever their card or amount, unless a payment names a rule itself
// (metadata.sandboxScenario), which wins and takes none of it.
type OneShot struct {
	Rule      string `json:"rule"`
	Remaining int    `json:"remaining"`
}

// MaxOneShotTimes bounds how many payments one one-shot may cover.
const MaxOneShotTimes = 100

// CheckOneShotTimes is the rule for `times`: 1 to MaxOneShotTimes.
func CheckOneShotTimes(n int64) []FieldError {
	if n < 1 || n > MaxOneShotTimes {
		return []FieldError{{Path: "$.times", Description: fmt.Sprintf("times must be a whole number from 1 to %d", MaxOneShotTimes)}}
	}
	return nil
}

// OneShotFor is the rule a pending one-shot gives a payment with this
// (merged) metadata: "" when nothing is pending or the payment names its own
// rule.
func OneShotFor(next *OneShot, metadata map[string]any) string {
	if next == nil || next.Remaining <= 0 {
		return ""
	}
	if _, named := metadata["sandboxScenario"]; named {
		return ""
	}
	return next.Rule
}

// Take is the tenant's one-shot after a payment took rule from it (nil when
// that was the last one), or ok false when rule is not what is pending now
// (another payment took the last one, or it was replaced or cleared).
func (o *OneShot) Take(rule string) (left *OneShot, ok bool) {
	if o == nil || o.Remaining <= 0 || o.Rule != rule {
		return o, false
	}
	if o.Remaining == 1 {
		return nil, true
	}
	return &OneShot{Rule: o.Rule, Remaining: o.Remaining - 1}, true
}
