package idgen_test

import (
	"testing"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/idgen"
)

// TestSeqDeterministic: each kind counts on its own, and processor ids keep
// the counters (Seq does not shape them like RandomIDs).
func TestSeqDeterministic(t *testing.T) {
	ids := &idgen.Seq{}
	if a, b := simulator.NewProcessorID(ids, simulator.IDProcessorTxn, "STRIPE"), simulator.NewProcessorID(ids, simulator.IDProcessorTxn, "ADYEN"); a != "txn_000001" || b != "txn_000002" {
		t.Errorf("Seq gave %q, %q", a, b)
	}
	if p := ids.NewID(simulator.IDPayment); p != "pay00001" {
		t.Errorf("the first payment id is %q", p)
	}
}
