package store

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An idle store empties its hot cache; what a reader took before the clear
// is not published after it, what was written after it is.
func TestHotCacheClear(t *testing.T) {
	h := newHotCache()
	for i := range 100 {
		h.publish("k"+strconv.Itoa(i), &hotEntry{raw: "v", seq: h.seq.Add(1)})
	}
	require.Equal(t, 100, h.len())
	before := h.seq.Load()
	h.clear()
	assert.Equal(t, 0, h.len())
	h.publish("k1", &hotEntry{raw: "stale", seq: before - 1})
	assert.Nil(t, h.get("k1"), "a value read before the clear is not published")
	h.publish("k1", &hotEntry{raw: "new", seq: h.seq.Add(1)})
	require.NotNil(t, h.get("k1"))
	assert.Equal(t, "new", h.get("k1").raw)
}
