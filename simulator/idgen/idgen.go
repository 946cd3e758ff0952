// Package idgen holds the deterministic id generator of the tests
// (simulator.IDGen), kept out of the kernel because it counts with atomics.
// It imports the standard library and simulator only.
package idgen

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Seq is a deterministic simulator.IDGen for tests: every kind counts on its
// own, so golden files stay byte-stable. Safe for concurrent use; the zero
// value is ready.
type Seq struct{ n [16]atomic.Int64 }

// NewID implements simulator.IDGen.
func (s *Seq) NewID(kind simulator.IDKind) string {
	n := s.n[kind].Add(1)
	switch kind {
	case simulator.IDPayment:
		return fmt.Sprintf("pay%05d", n)
	case simulator.IDUUID:
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	case simulator.IDClientToken:
		return fmt.Sprintf("cst_test_%06d", n)
	case simulator.IDPaymentToken:
		return fmt.Sprintf("tok_test_%06d", n)
	case simulator.IDAnalytics:
		return fmt.Sprintf("an_%06d", n)
	case simulator.IDProcessorTxn:
		return fmt.Sprintf("txn_%06d", n)
	case simulator.IDAuthCode:
		return fmt.Sprintf("A%05d", n)
	case simulator.IDSecret:
		return fmt.Sprintf("secret_%06d", n)
	}
	return fmt.Sprintf("id%06d", n)
}

// TimedUUID implements simulator.TimedIDs as RandomIDs does (a UUID
// version 7 of at, so the store keys an event by its id alone), with the
// IDUUID counter in place of the random bits: "<at>-7<at>-8000-<n>".
// Fixed ids that carry no time are those of NewID.
func (s *Seq) TimedUUID(at time.Time) string {
	n := s.n[simulator.IDUUID].Add(1)
	id := simulator.RandomIDs{}.TimedUUID(at)
	if _, ok := simulator.UUIDMicros(id); !ok { // at out of version 7's range
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	}
	return id[:19] + fmt.Sprintf("8000-%012d", n)
}
