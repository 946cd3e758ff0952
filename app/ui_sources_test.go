package app

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paysandbox/paysandbox/dashboard"
)

// TestUISourcesWired: Open fills the dashboard's sources that the options
// leave nil, and keeps those they set.
func TestUISourcesWired(t *testing.T) {
	own := uiJournal{}
	opt := dashboard.Options{Journal: own}
	a := startApp(t, testConfig())
	a.UISources(&opt)
	assert.IsType(t, uiWebhooks{}, opt.Webhooks)
	assert.IsType(t, uiScenarios{}, opt.Scenarios)
	assert.Equal(t, own, opt.Journal)
	assert.NotNil(t, a.Webhooks.OnAttempt, "the dispatcher reports to the journal")
}
