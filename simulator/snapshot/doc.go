// Package snapshot owns the tenant snapshot file format: one tenant whole as
// one JSON document (Snapshot: its format, version and checksum), written by
// Snapshot.Seal and read by Open (gzip or JSON, checksum first, then the
// shape); the RFC 8785 canonical JSON the checksum sums (CanonicalJSON); the
// limits and live-state rules an import is held to (Snapshot.Check, CheckReport,
// CheckCredential, the clock range ClockMin to ClockMax), answered as the
// 422 of a refused snapshot (Refused); and the importing server's bounds on
// what a tenant keeps (Bounds, Snapshot.Trim).
//
// The records it carries are the kernel's types, and every rule a live
// request also follows (ids, enums, currencies, metadata size, transaction
// count, webhook URL, API version) is asked of package simulator, never
// restated. Exporting and importing a tenant (the store, ids, keys) is
// simulator/service's. Like the kernel, it imports only the standard library
// and package simulator, and holds no goroutine, lock, log or I/O: a test in
// package simulator fails if it does.
package snapshot
