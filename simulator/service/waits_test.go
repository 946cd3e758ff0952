package service_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A wait whose payment already has the status answers at once, even with
// timeout 0 (no wait is held).
func TestWaitAlreadySatisfiedAnswersAtOnce(t *testing.T) {
	e := newSvcEnv(t, nil)
	p := e.pay(t, 1000, cardOK)
	r, err := e.svc.WaitForStatus(context.Background(), e.t, p.ID, p.Status, 0)
	require.NoError(t, err, "already satisfied: answered at once even with timeout 0")
	assert.Equal(t, p.ID, r.ID)
	assert.Zero(t, e.svc.OpenWaits())
}
