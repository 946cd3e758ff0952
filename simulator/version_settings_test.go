package simulator_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paysandbox/paysandbox/simulator"
)

func TestAPIVersion(t *testing.T) {
	for _, tc := range []struct {
		v, w   simulator.APIVersion
		before bool
	}{
		{"2.1", "2.2", true}, {"2.3", "2.4", true}, {"2.4", "2.4", false}, {"2.4", "2.1", false},
		{"", "2.4", false}, {"2.3", "", true},
	} {
		assert.Equal(t, tc.before, tc.v.Before(tc.w), "%q before %q", tc.v, tc.w)
	}
	for _, v := range []string{"2.1", "2.2", "2.3", "2.4"} {
		assert.NoError(t, simulator.CheckAPIVersion(v), v)
	}
	for _, v := range []string{"", "2", "2.0", "2.5", "2.10", " 2.4"} {
		assert.EqualError(t, simulator.CheckAPIVersion(v), "must be one of 2.1, 2.2, 2.3, 2.4", v)
	}
	assert.Equal(t, simulator.V24, simulator.APIVersion("").Or())
	assert.Equal(t, simulator.V24, (&simulator.Tenant{}).WebhookAPIVersion(), "the default")
}
