package service_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// Held caps per tenant, frees a slot once per release, and Stop ends holders.
func TestHeldCapsPerTenant(t *testing.T) {
	h := service.NewHeld(2)
	r1, err := h.Acquire("a")
	require.NoError(t, err)
	_, err = h.Acquire("a")
	require.NoError(t, err)
	_, err = h.Acquire("a")
	assert.Equal(t, simulator.CodeTooManyRequests, simulator.ErrorCode(err), "the third of tenant a")
	rb, err := h.Acquire("b")
	require.NoError(t, err, "another tenant is not refused")
	assert.Equal(t, 2, h.Open("a"))

	r1()
	r1() // a second release gives nothing back twice
	assert.Equal(t, 1, h.Open("a"))
	_, err = h.Acquire("a")
	require.NoError(t, err)
	rb()
	assert.Equal(t, 0, h.Open("b"))

	select {
	case <-h.Stopping():
		t.Fatal("stopping before Stop")
	default:
	}
	h.Stop()
	h.Stop()
	_, open := <-h.Stopping()
	assert.False(t, open, "Stopping is closed by Stop")
	assert.Equal(t, service.DefaultMaxHeldPerTenant, service.NewHeld(0).Max())
}
