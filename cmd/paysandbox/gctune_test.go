package main

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{{0, 200}, {4 << 20, 200}, {gcLiveLarge - 1, 200}, {gcLiveLarge, 100}, {8 << 30, 100}} {
		assert.Equal(t, tc.want, gcPercentFor(tc.live), "live %d", tc.live)
	}
}

// TestTuneGC: the policy is applied at once, and GOGC set by the operator wins.
func TestTuneGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	t.Setenv("GOGC", "")
	tuneGC(ctx)
	assert.Equal(t, gcPercentSmall, debug.SetGCPercent(100), "a test process's live heap is small")

	t.Setenv("GOGC", "50")
	tuneGC(ctx)
	assert.Equal(t, 100, debug.SetGCPercent(100), "left alone")
}
