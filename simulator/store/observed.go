package store

import (
	"encoding/json"
	"fmt"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// The observers' records (observe.Store): one per tenant and kind, under
// the tenant's file, so that a reset or a deletion drops them with the
// rest of the tenant's data. A kind has no ':', so no other record's key
// range reaches it.
//
//	<kind>                            an observer's record ("mig": the
//	                                  migration notes, "rep": the report counts)
//
// An observer's record is JSON behind the version byte: its value is the
// observer's own type (observe.Store takes any), written behind the
// requests that counted it, never in a checkout's transaction.
func kObserved(kind string) string { return kind }

func observedValue(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(append([]byte{recV2}, b...)), nil
}

func decodeObserved(raw string, v any) error {
	if len(raw) == 0 || raw[0] != recV2 {
		return errNotRecord
	}
	return json.Unmarshal(view(raw[1:]), v)
}

var _ observe.Store = (*DB)(nil)

// checkKind refuses a kind that could reach into another record's keys.
func checkKind(kind string) error {
	if kind == "" {
		return fmt.Errorf("store: an observer kind is not empty")
	}
	for _, c := range kind {
		if c < 'a' || c > 'z' {
			return fmt.Errorf("store: observer kind %q: lower-case letters only", kind)
		}
	}
	return nil
}

// LoadObserved reads the tenant's record of kind into v (false: none).
func (d *DB) LoadObserved(tid, kind string, v any) (bool, error) {
	if err := checkKind(kind); err != nil {
		return false, err
	}
	var found bool
	err := d.View(func(tx simulator.Tx) error {
		k := kObserved(kind)
		raw, err := tx.(*Tx).get(tid, k)
		if err != nil || raw == "" {
			return err
		}
		found = true
		return unreadable(k, decodeObserved(raw, v))
	})
	return found, err
}

// SaveObserved stores records as the tenant's, in one write that first
// checks the tenant exists (a tenant gone gets nothing).
func (d *DB) SaveObserved(tid string, records ...observe.Record) error {
	for _, r := range records {
		if err := checkKind(r.Kind); err != nil {
			return err
		}
	}
	return d.Update(func(tx simulator.Tx) error {
		t := tx.(*Tx)
		if tn, err := t.Tenant(tid); err != nil || tn == nil {
			return err
		}
		for _, r := range records {
			v, err := observedValue(r.Value)
			if err != nil {
				return err
			}
			if err := t.set(tid, kObserved(r.Kind), v); err != nil {
				return err
			}
		}
		return nil
	})
}
