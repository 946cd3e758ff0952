package service_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// TestServiceReadsAreTheCallers: a payment or a session a read hands out is
// the caller's own: changing it (fields, maps, nested values) changes
// nothing that the next read returns, and a change through the service is
// read at once.
func TestServiceReadsAreTheCallers(t *testing.T) {
	e := newSvcEnv(t, nil)
	ctx := context.Background()

	p := e.pay(t, 1000, cardOK)
	e.get(t, p.ID)
	first := e.get(t, p.ID) // read again
	first.Status, first.Amount = simulator.StatusFailed, 1
	first.Metadata = map[string]any{"k": "changed by a reader"}
	first.Transactions[0].ProcessorStatus = simulator.StatusFailed
	second := e.get(t, p.ID)
	assert.NotSame(t, first, second)
	assert.Equal(t, simulator.StatusAuthorized, second.Status, "a reader's change is not read by the next")
	assert.Equal(t, int64(1000), second.Amount)
	assert.Nil(t, second.Metadata)
	assert.Equal(t, simulator.StatusAuthorized, second.Transactions[0].ProcessorStatus)
	_, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{})
	require.NoError(t, err)
	assert.Equal(t, simulator.StatusSettled, e.get(t, p.ID).Status, "the capture is read at once")

	cs, err := e.svc.CreateSession(e.t, simulator.SessionData{OrderID: "o1", CurrencyCode: "EUR", Amount: i64(5),
		Metadata: map[string]any{"k": "v"}}, simulator.ApprovalAuto)
	require.NoError(t, err)
	got, tn, err := e.svc.ClientSession(cs.ClientToken)
	require.NoError(t, err)
	assert.Equal(t, e.t.ID, tn.ID)
	got.Data.OrderID, got.Data.Metadata["k"], *got.Data.Amount = "changed by a reader", "changed by a reader", 7
	again, err := e.svc.Session(e.t, cs.ClientToken)
	require.NoError(t, err)
	assert.NotSame(t, got, again)
	assert.Equal(t, "o1", again.Data.OrderID, "a reader's change is not read by the next")
	assert.Equal(t, "v", again.Data.Metadata["k"])
	assert.Equal(t, int64(5), *again.Data.Amount)
	again.Data.OrderID = "changed by another reader"
	_, err = e.svc.UpdateSession(e.t, cs.ClientToken, func(cur simulator.SessionData) (simulator.SessionData, error) {
		assert.Equal(t, "o1", cur.OrderID, "the update starts from what is stored")
		cur.OrderID = "o2"
		return cur, nil
	})
	require.NoError(t, err)
	now, _, err := e.svc.ClientSession(cs.ClientToken)
	require.NoError(t, err)
	assert.Equal(t, "o2", now.Data.OrderID, "the update is read at once")

	_, _, err = e.svc.ClientSession("cst_unknown")
	assert.Equal(t, simulator.CodeClientSessionValidationError, simulator.ErrorCode(err))
	_, err = e.svc.Payment(e.t, "unknown")
	assert.Equal(t, simulator.CodePaymentError, simulator.ErrorCode(err))
}
