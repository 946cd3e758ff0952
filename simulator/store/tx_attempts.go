package store

import (
	"encoding/json"

	"github.com/paysandbox/paysandbox/simulator"
)

// Attempts returns every payment attempt of the tenant, in id order (the
// caller sorts). Attempts are few per tenant (one per MANUAL tokenisation).
func (t *Tx) Attempts(tid string) ([]*simulator.Attempt, error) {
	var out []*simulator.Attempt
	var derr error
	err := t.prefix(tenantPrefix(tid)+"att:", func(_, v string) bool {
		a := new(simulator.Attempt)
		if derr = json.Unmarshal([]byte(v), a); derr != nil {
			return false
		}
		out = append(out, a)
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, derr
}
