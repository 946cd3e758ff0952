package store

// Test hooks (compiled into this package's tests only).

// SetHotGenSize sets the size of a generation of each shard of the hot
// cache, so that tests turn generations over often. Call it before use.
func (d *DB) SetHotGenSize(n int) { d.hot.genSize = n }

// HotLen counts the records the hot cache holds.
func (d *DB) HotLen() int { return d.hot.len() }

// HotMaxEntries is the cache's bound at its default generation size.
const HotMaxEntries = hotMaxEntries

// SetHotMissHook makes every lock-free read that missed call f between its
// read of the store and its publish.
func (d *DB) SetHotMissHook(f func(key string)) { d.hot.afterMiss = f }

// DropHotCache empties the hot cache (memory measurements).
func (d *DB) DropHotCache() { d.hot = newHotCache() }
