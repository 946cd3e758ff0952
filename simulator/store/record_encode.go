package store

import (
	"fmt"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// encodeRecord is the stored form of v, a kernel value read from a record
// at key: the key/value pairs that store it in this build's format (the
// record, and for a payment its list-index entry, which the format keeps
// beside it); at an observer's key (observed.go), v is that observer's
// value. The conversion of older layouts re-encodes what it reads
// through it, so every record it writes is the transaction code's. The
// tenant of a record is v's.
func encodeRecord(key string, v any) ([][2]string, error) {
	var b string
	var err error
	switch x := v.(type) {
	case *simulator.Payment:
		if b, err = encodePayment(x); err != nil {
			return nil, err
		}
		return [][2]string{{key, b}, {kPayIdx(x.Date, x.ID), listIndexValue(x)}}, nil
	case *simulator.Event:
		st, err := eventInputs(x, nil)
		if err != nil {
			return nil, err
		}
		st.R.PaymentStatus = string(x.PaymentStatus) // as read: "" for an event stored without it
		ev, err := eventValue(&st)
		return [][2]string{{key, ev}}, err
	case *simulator.Instrument:
		b, err = encodeInstrument(x)
	case *simulator.ClientSession:
		b, err = marshal(sessionRecordOf(x))
	case *simulator.Attempt:
		b, err = marshal(attemptRecordOf(x))
	case *simulator.Job:
		b, err = marshal(jobRecordOf(x))
	case *simulator.Dispute:
		b, err = marshal(disputeRecordOf(x))
	case *simulator.Tenant:
		b, err = marshal(tenantRecordOf(x))
	case *simulator.ExpiredTenant:
		b, err = marshal(expiredTenantRecordOf(x))
	default:
		if kind, ok := observedKind(key); ok && checkKind(kind) == nil {
			b, err = observedValue(v)
			break
		}
		return nil, fmt.Errorf("store: no record of a %T", v)
	}
	return [][2]string{{key, b}}, err
}

// observedKind is the kind of an observer's record key (a tenant file's
// "<kind>", which has no ':').
func observedKind(key string) (string, bool) {
	return key, key != "" && !strings.Contains(key, ":")
}
