package idgen_test

import (
	"strings"
	"testing"
	"time"

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

// TestSeqTimedUUID: Seq's event ids carry their time like RandomIDs' and
// count with the other UUIDs, so they stay deterministic.
func TestSeqTimedUUID(t *testing.T) {
	ids := &idgen.Seq{}
	at := time.UnixMicro(1764400000123457)
	if u := ids.NewID(simulator.IDUUID); u != "00000000-0000-4000-8000-000000000001" {
		t.Errorf("the first uuid is %q", u)
	}
	id := simulator.NewEventID(ids, at)
	if us, ok := simulator.UUIDMicros(id); !ok || us != at.UnixMicro() || !strings.HasSuffix(id, "-8000-000000000002") {
		t.Errorf("event id %q carries %d, %v", id, us, ok)
	}
	if again := simulator.NewEventID(&idgen.Seq{}, at); again[:24] != id[:24] {
		t.Errorf("event ids of one time differ: %q, %q", id, again)
	}
}
