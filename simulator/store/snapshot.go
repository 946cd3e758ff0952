package store

import (
	"encoding/hex"
	"errors"
	"strings"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// What a tenant snapshot reads beyond the other Tx methods, by key prefix
// (keys.go, tx_outbox.go), and the held events of an import.

// Sessions implements simulator.Tx: the tenant's client sessions, in key order.
func (t *Tx) Sessions(tid string) ([]*simulator.ClientSession, error) {
	return listUnder(t, kSession(""), tid, decodeSession)
}

// Instruments implements simulator.Tx: the tenant's payment instruments, in
// key order.
func (t *Tx) Instruments(tid string) ([]*simulator.Instrument, error) {
	return listUnder(t, kInstrument(""), tid, decodeInstrument)
}

// IdempotencyKeys implements simulator.Tx: the tenant's idempotency keys
// (stored hex encoded) and the payment each was used for.
func (t *Tx) IdempotencyKeys(tid string) (map[string]string, error) {
	out := map[string]string{}
	p := kIdem("")
	var ferr error
	err := t.prefix(tid, p, func(k, v string) bool {
		key, err := hex.DecodeString(strings.TrimPrefix(k, p))
		if err != nil {
			ferr = errors.New("store: malformed idempotency key " + k)
			return false
		}
		out[string(key)] = v
		return true
	})
	return out, errors.Join(err, ferr)
}

// HoldEvent implements simulator.Tx: the event leaves the pending queue
// (kPending), which is all the dispatcher reads.
func (t *Tx) HoldEvent(e *simulator.Event) error {
	if e.Status != simulator.DeliveryPending {
		return nil
	}
	return t.del(e.TenantID, kPending(e))
}

// EventHeld implements simulator.Tx.
func (t *Tx) EventHeld(e *simulator.Event) (bool, error) {
	if e.Status != simulator.DeliveryPending {
		return false, nil
	}
	btx, err := t.tenantTx(e.TenantID, false)
	if err != nil {
		return false, err
	}
	_, err = btx.Get(kPending(e)) // a queued event's value may be "" (due at once)
	if errors.Is(err, buntdb.ErrNotFound) {
		return true, nil
	}
	return false, err
}

// listUnder decodes every record under prefix (records of tenant tid).
func listUnder[T any](t *Tx, prefix, tid string, dec func(raw, tid string) (*T, error)) ([]*T, error) {
	var out []*T
	var ferr error
	err := t.prefix(tid, prefix, func(k, v string) bool {
		var r *T
		if r, ferr = dec(v, tid); ferr != nil {
			if ferr = unreadable(k, ferr); t.skip(ferr) {
				ferr = nil
				return true
			}
			return false
		}
		out = append(out, r)
		return true
	})
	return out, errors.Join(err, ferr)
}
