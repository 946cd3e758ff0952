package bench

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// A copy holds fresh ids wherever the value held the checkout's (whole
// strings, inside strings, in pointers, slices, maps and raw bytes), each
// clone its own; the value itself is unchanged, and what holds no id is
// shared with it.
func TestIDCopier(t *testing.T) {
	ids := []cloneID{{ID: "pay1", Kind: simulator.IDPayment}, {ID: "tok1", Kind: simulator.IDPaymentToken}}
	n := 0
	cp := newIDCopier(ids, func(id cloneID) string { n++; return fmt.Sprintf("fresh%d-%d", id.Kind, n) })
	orig := &simulator.Payment{ID: "pay1", OrderID: "order-1", Metadata: map[string]any{"ref": "x-pay1-y", "n": json.Number("7")},
		PaymentMethod: simulator.PaymentMethod{PaymentMethodToken: "tok1"},
		Transactions:  []simulator.Transaction{{ID: "t1", ProcessorTransactionID: "pay1/tok1"}, {ID: "t2"}},
		Processor:     &simulator.ProcessorState{Name: "STRIPE"}}
	ev := &simulator.Event{ID: "e1", PaymentID: "pay1", Payment: orig, Body: json.RawMessage(`{"id":"pay1"}`)}

	first, second := cp.newCopy(), cp.newCopy()
	p1 := first(orig).(*simulator.Payment)
	e1 := first(ev).(*simulator.Event)
	p2 := second(orig).(*simulator.Payment)

	assert.Equal(t, p1.ID, e1.PaymentID, "one clone's ids are the same everywhere")
	assert.Equal(t, p1.ID, e1.Payment.ID)
	assert.JSONEq(t, `{"id":"`+p1.ID+`"}`, string(e1.Body))
	assert.NotEqual(t, "pay1", p1.ID)
	assert.NotEqual(t, p1.ID, p2.ID, "each clone has its own")
	assert.Equal(t, "x-"+p1.ID+"-y", p1.Metadata["ref"])
	assert.Equal(t, json.Number("7"), p1.Metadata["n"])
	assert.Equal(t, p1.ID+"/"+p1.PaymentMethod.PaymentMethodToken, p1.Transactions[0].ProcessorTransactionID)
	assert.Equal(t, "order-1", p1.OrderID)

	require.Equal(t, "pay1", orig.ID, "the value is unchanged")
	assert.Equal(t, "x-pay1-y", orig.Metadata["ref"])
	assert.Equal(t, "pay1/tok1", orig.Transactions[0].ProcessorTransactionID)
	assert.JSONEq(t, `{"id":"pay1"}`, string(ev.Body))
	assert.Same(t, orig.Processor, p1.Processor, "what holds no id is shared")
	assert.Equal(t, "replaced", first("replaced"))
}
