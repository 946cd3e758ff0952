package service_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// TestServiceReadsShareImmutableValues: the service's hot reads hand out the
// store's shared value until a change, which makes a new value (the one
// handed out before stays as it was) that the next read sees at once.
func TestServiceReadsShareImmutableValues(t *testing.T) {
	e := newSvcEnv(t, nil)
	ctx := context.Background()

	p := e.pay(t, 1000, cardOK)
	first, second := e.get(t, p.ID), e.get(t, p.ID)
	assert.Same(t, first, second, "a hit shares the cached payment")
	_, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{})
	require.NoError(t, err)
	after := e.get(t, p.ID)
	assert.Equal(t, simulator.StatusSettled, after.Status, "the capture is read at once")
	assert.Equal(t, simulator.StatusAuthorized, first.Status, "the value handed out before did not change")

	cs, err := e.svc.CreateSession(e.t, simulator.SessionData{OrderID: "o1", CurrencyCode: "EUR", Amount: i64(5)}, simulator.ApprovalAuto)
	require.NoError(t, err)
	got, tn, err := e.svc.ClientSession(cs.ClientToken)
	require.NoError(t, err)
	assert.Equal(t, e.t.ID, tn.ID)
	again, err := e.svc.Session(e.t, cs.ClientToken)
	require.NoError(t, err)
	assert.Same(t, got, again)
	_, err = e.svc.UpdateSession(e.t, cs.ClientToken, func(cur simulator.SessionData) (simulator.SessionData, error) {
		cur.OrderID = "o2"
		return cur, nil
	})
	require.NoError(t, err)
	now, _, err := e.svc.ClientSession(cs.ClientToken)
	require.NoError(t, err)
	assert.Equal(t, "o2", now.Data.OrderID)
	assert.Equal(t, "o1", got.Data.OrderID)

	_, _, err = e.svc.ClientSession("cst_unknown")
	assert.Equal(t, simulator.CodeClientSessionValidationError, simulator.ErrorCode(err))
	_, err = e.svc.Payment(e.t, "unknown")
	assert.Equal(t, simulator.CodePaymentError, simulator.ErrorCode(err))
}
