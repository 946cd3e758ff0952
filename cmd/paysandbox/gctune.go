package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// GC policy of a server process (serve, and bench's in-process server).
//
// A sandbox allocates a lot per request (JSON in and out, records, webhook
// bodies) and keeps little of it, so with Go's default target (the heap may
// grow to twice the live data before a collection) the collector took 7-8%
// of a write-heavy load's CPU. While the live heap is small, the target is
// raised to gcPercentSmall: collections run half as often, for some more
// memory under load. Once the live heap passes gcLiveLarge (a store of a few
// hundred thousand checkouts), the default comes back, so a big store never
// holds three times its data. An idle server returns its free heap to the OS
// either way (store/disk.go), so the resident size measured when idle is the
// live data. GOGC, when set, is the operator's choice and wins.
const (
	gcPercentSmall = 200
	gcPercentLarge = 100
	gcLiveLarge    = 512 << 20
	gcTuneEvery    = 10 * time.Second
)

// gcPercentFor is the GC target for a live heap of live bytes.
func gcPercentFor(live uint64) int {
	if live >= gcLiveLarge {
		return gcPercentLarge
	}
	return gcPercentSmall
}

// tuneGC applies gcPercentFor now and every gcTuneEvery until ctx ends,
// unless GOGC is set. It is for a process that runs one server.
func tuneGC(ctx context.Context) {
	if os.Getenv("GOGC") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	current := -1
	apply := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if p := gcPercentFor(sample[0].Value.Uint64()); p != current {
			debug.SetGCPercent(p)
			current = p
		}
	}
	apply()
	go func() {
		t := time.NewTicker(gcTuneEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				apply()
			}
		}
	}()
}
