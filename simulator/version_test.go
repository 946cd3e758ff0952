package simulator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/paysandbox/paysandbox/simulator"
)

func TestParseAPIVersion(t *testing.T) {
	for _, s := range []string{"2.1", "2.2", "2.3", "2.4"} {
		v, ok := simulator.ParseAPIVersion(s)
		assert.True(t, ok, s)
		assert.Equal(t, simulator.APIVersion(s), v)
	}
	for _, s := range []string{"", "2", "2.0", "2.5", "2.4.0", " 2.4", "2021-09-27"} {
		_, ok := simulator.ParseAPIVersion(s)
		assert.False(t, ok, "%q", s)
	}
	assert.Equal(t, "2.1, 2.2, 2.3 or 2.4", simulator.AcceptedAPIVersions())
}

func TestAPIVersionOrder(t *testing.T) {
	assert.True(t, simulator.V21.Before(simulator.V22))
	assert.False(t, simulator.V24.Before(simulator.V23))
	assert.True(t, simulator.V23.AtLeast(simulator.V23))
	assert.False(t, simulator.APIVersion("").Deprecated(), "a payment with no recorded version is 2.4")
	assert.True(t, simulator.V23.Deprecated())
	assert.False(t, simulator.V24.Deprecated())
}

// TestVersionDifferencesTable: which version has which difference.
func TestVersionDifferencesTable(t *testing.T) {
	for _, tc := range []struct {
		kind string
		has  []simulator.APIVersion
	}{
		{simulator.DiffAttemptRoutes, []simulator.APIVersion{simulator.V21, simulator.V22, simulator.V23}},
		{simulator.DiffIdempotency400, []simulator.APIVersion{simulator.V21, simulator.V22}},
		{simulator.DiffProductData, []simulator.APIVersion{simulator.V21}},
	} {
		for _, v := range simulator.APIVersions {
			assert.Equal(t, contains(tc.has, v), v.Has(tc.kind), "%s on %s", tc.kind, v)
		}
	}
	assert.Empty(t, simulator.DifferencesOf(simulator.V24))
	assert.Len(t, simulator.DifferencesOf(simulator.V21), len(simulator.VersionDifferences))
	for _, d := range simulator.VersionDifferences {
		assert.NotEmpty(t, d.Description, d.Kind)
	}
}

func contains(vs []simulator.APIVersion, v simulator.APIVersion) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}

func TestAPIVersionRequestTimeout(t *testing.T) {
	assert.Equal(t, 25*time.Second, simulator.V23.RequestTimeout(90*time.Second))
	assert.Equal(t, 90*time.Second, simulator.V24.RequestTimeout(90*time.Second))
	assert.Equal(t, 200*time.Millisecond, simulator.V21.RequestTimeout(200*time.Millisecond), "a shorter configured timeout wins")
}

func TestLegacyPaymentType(t *testing.T) {
	assert.Equal(t, "UNSCHEDULED", simulator.LegacyPaymentType(true))
	assert.Equal(t, "ECOMMERCE", simulator.LegacyPaymentType(false))
}

// TestWebhookDiffers: each member the renderer asks about is a row of
// simulator.WebhookDifferences, and the answer is the row's: every version before
// Below differs, the current one never; a member the table does not name
// never differs.
func TestWebhookDiffers(t *testing.T) {
	members := []string{simulator.WebhookVersionMember, simulator.WebhookAuthorizationCode, simulator.WebhookTransactionEvents, simulator.WebhookCustomer, simulator.WebhookIsVaulted}
	paths := make([]string, len(simulator.WebhookDifferences))
	for i, d := range simulator.WebhookDifferences {
		paths[i] = d.Path
	}
	assert.ElementsMatch(t, paths, members, "one constant per row of simulator.WebhookDifferences")
	tests := []struct {
		v      simulator.APIVersion
		member string
		want   bool
	}{
		{simulator.V21, simulator.WebhookCustomer, true}, {simulator.V22, simulator.WebhookCustomer, false},
		{simulator.V21, simulator.WebhookIsVaulted, true}, {simulator.V22, simulator.WebhookIsVaulted, false},
		{simulator.V23, simulator.WebhookAuthorizationCode, true}, {simulator.V24, simulator.WebhookAuthorizationCode, false},
		{simulator.V23, simulator.WebhookTransactionEvents, true}, {"", simulator.WebhookTransactionEvents, false},
		{simulator.V21, "payment.unknown", false},
	}
	for _, tc := range tests {
		t.Run(string(tc.v)+"/"+tc.member, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.v.WebhookDiffers(tc.member))
		})
	}
}
