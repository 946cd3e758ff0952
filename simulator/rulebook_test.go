package simulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRuleHoldHoldsFor(t *testing.T) {
	const s = time.Second
	for _, tc := range []struct {
		name    string
		hold    RuleHold
		timeout time.Duration
		want    time.Duration
	}{
		{"answers at once", RuleHold{}, 90 * s, 0},
		{"latency", RuleHold{Latency: 1500 * time.Millisecond}, 90 * s, 1500 * time.Millisecond},
		{"latency past the request timeout", RuleHold{Latency: 2 * s}, s, s},
		{"gateway timeout: the request timeout", RuleHold{Timeout: true}, 90 * s, 90 * s},
		{"gateway timeout with latency: still the request timeout", RuleHold{Timeout: true, Latency: 2 * s}, 90 * s, 90 * s},
		{"holdFor", RuleHold{Timeout: true, HoldFor: 5 * s}, 90 * s, 5 * s},
		{"latency then holdFor", RuleHold{Timeout: true, HoldFor: 5 * s, Latency: s}, 90 * s, 6 * s},
		{"holdFor past the request timeout", RuleHold{Timeout: true, HoldFor: 2 * time.Minute}, 90 * s, 90 * s},
		{"no request timeout: holdFor", RuleHold{Timeout: true, HoldFor: 5 * s}, 0, 5 * s},
		{"no request timeout, no holdFor: at once", RuleHold{Timeout: true}, 0, 0},
		{"no request timeout: latency", RuleHold{Latency: 3 * s}, 0, 3 * s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.hold.HoldsFor(tc.timeout))
		})
	}
}
