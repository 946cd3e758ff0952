package simulator

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDisputeStatus: a dispute opens OPEN and moves to any other status,
// from whatever status it has; nothing else is a status.
func TestDisputeStatus(t *testing.T) {
	assert.Equal(t, DisputeOpen, DisputeStatuses[0], "the status a dispute opens with comes first")
	for _, s := range DisputeStatuses {
		assert.Equal(t, s != DisputeOpen, s.IsMove(), "%s", s)
	}
	for _, s := range []DisputeStatus{"", "open", "SHRUG", "CHARGEBACK"} {
		assert.False(t, s.IsMove(), "%q", s)
	}
	assert.Equal(t, []string{"OPEN", "CHALLENGED", "ACCEPTED", "WON", "LOST", "EXPIRED", "CANCELLED"}, Names(DisputeStatuses))
}
