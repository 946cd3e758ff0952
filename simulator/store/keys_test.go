package store

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestStamp: a stamp is the microseconds since the epoch in 20 digits,
// zero-padded (so that key order is time order), 0 before 1970; the keys
// built around its digits hold the same text.
func TestStamp(t *testing.T) {
	for _, us := range []int64{0, 1, 9, 10, 1764403200123456, math.MaxInt64} {
		d := stampDigits(us)
		assert.Equal(t, fmt.Sprintf("%020d", us), string(d[:]))
	}
	d := stampDigits(-5)
	assert.Equal(t, "00000000000000000000", string(d[:]))
	at := time.Date(2026, 11, 29, 9, 0, 0, 123456000, time.UTC)
	assert.Equal(t, "payx:"+stamp(at)+":p1", kPayIdx(at, "p1"))
	assert.Equal(t, "evt:"+stamp(at)+":e1", kEvent(at, "e1"))
	assert.Equal(t, "payx:00000000000000000000:p1", kPayIdx(time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC), "p1"))
}
