package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// GC policy of a server process (serve).
//
// A sandbox allocates a lot per request (JSON in and out, records, webhook
// bodies) and keeps little of it, so with Go's default target (the heap may
// grow to twice the live data before a collection) the collector took 7-8%
// of a write-heavy load's CPU. While the live heap is small (a CI run's
// sandbox: some twenty thousand checkouts), the target is raised to
// gcPercentSmall: collections run half as often, for some more memory under
// load. Past gcLiveLarge the default comes back: the garbage allowed between
// collections also spreads the stored records over more of the heap's spans
// (measured: about 0.6 KB more resident memory per checkout at 100k
// checkouts made through the API), which a big, long-running store should
// not pay. An idle server returns its free heap to the OS either way
// (store/disk.go). GOGC, when set, is the operator's choice and wins.
const (
	gcPercentSmall = 200
	gcPercentLarge = 100
	gcLiveLarge    = 64 << 20
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
