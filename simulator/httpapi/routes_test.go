package httpapi

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestOperationBindings: every operation of simulator.Operations has a
// handler, every handler an operation, and the server registers each
// operation's method and path (and nothing else).
func TestOperationBindings(t *testing.T) {
	b := (&Server{}).bindings()
	ids := map[simulator.OperationID]bool{}
	for _, op := range simulator.Operations {
		assert.False(t, ids[op.ID], "operation %s is in the table twice", op.ID)
		ids[op.ID] = true
		_, ok := b[op.ID]
		assert.True(t, ok, "operation %s (%s %s) has no handler in bindings", op.ID, op.Method, op.Path)
	}
	for id := range b {
		assert.True(t, ids[id], "bindings binds a handler to %s, which is not an operation", id)
	}

	s := New(nil, Options{})
	want := map[string]bool{}
	for _, op := range simulator.Operations {
		want[op.Method+" "+op.Path] = true
	}
	got := map[string]bool{}
	for _, r := range s.e.Routes() {
		got[r.Method+" "+r.Path] = true
	}
	assert.Equal(t, want, got)
}

// TestOperationDocs: each operation is documented once in apiOps.
func TestOperationDocs(t *testing.T) {
	n := map[simulator.OperationID]int{}
	for _, d := range apiOps {
		if !d.dashboard {
			n[d.id]++
		}
	}
	for _, op := range simulator.Operations {
		assert.Equal(t, 1, n[op.ID], "operation %s: apiOps documents it %d times", op.ID, n[op.ID])
		delete(n, op.ID)
	}
	assert.Empty(t, n, "apiOps documents ids that are not operations")
}
