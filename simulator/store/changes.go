package store

import (
	"github.com/paysandbox/paysandbox/simulator"
)

// Changes is notified after each committed write transaction, once per
// tenant whose records it wrote (simulator.Store).
func (d *DB) Changes() simulator.ChangeFeed { return d.changes }

// noteTenant remembers that the transaction wrote a record of tenant tid
// (notified after the commit, notifyChanges). "" (a global index of the
// catalog, always written together with a record of the tenant it points
// to) is not noted.
func (t *Tx) noteTenant(tid string) {
	if tid == "" || (len(t.wrote) > 0 && t.wrote[len(t.wrote)-1] == tid) {
		return
	}
	for _, w := range t.wrote {
		if w == tid {
			return
		}
	}
	if t.wrote == nil {
		t.wrote = t.wroteBuf[:0]
	}
	t.wrote = append(t.wrote, tid)
}

// notifyChanges tells the watchers of every tenant whose records were
// written; call it after the commit, so that their next read sees it.
func (d *DB) notifyChanges(tenants []string) {
	for _, tid := range tenants {
		d.changes.Notify(tid)
	}
}
