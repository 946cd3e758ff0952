package store

import (
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// Changes is notified after each committed write transaction, once per
// tenant whose records it wrote (simulator.Store).
func (d *DB) Changes() simulator.ChangeFeed { return d.changes }

// keyTenant is the tenant whose record key is: "tenant:<id>" and
// "t:<tenant>:..." ("" for the global indexes, which are always written
// together with a record of the tenant they point to).
func keyTenant(key string) string {
	if id, ok := strings.CutPrefix(key, pTenant); ok {
		return id
	}
	if rest, ok := strings.CutPrefix(key, "t:"); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			return unesc(rest[:i])
		}
	}
	return ""
}

// noteTenant remembers that the transaction wrote a record of the tenant of
// key (notified after the commit, notifyChanges).
func (t *Tx) noteTenant(key string) {
	tid := keyTenant(key)
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
