// Package observe is the one registration point of what watches the
// sandbox, in two shapes.
//
// Observers are told, after the commit, what happened: a Happening (a
// request answered, a version difference hit, a scenario rule matched, an
// event made, a delivery attempted, a hint a delivery raised) with its
// tenant and its fields. The use cases and the HTTP adapter publish
// happenings (Point.Publish, after the commit); they call no counter. The
// CI report counts (Report) and the migration notes (Migration) are two
// observers; a metric would be a third.
//
// Interceptors carry context around a step rather than watch it
// (Interceptor): they decorate the ports the use cases call (the
// processor, the store's writes made for a step) and run around each job
// of the scheduler, so that no use case starts a span; tracing is one.
// The HTTP chain is decorated in its own adapter the same way (the
// outermost middleware of simulator/httpapi).
//
// An observer with state keeps it per tenant and kind through its own
// small storage port (Store: load one record, save a tenant's records in
// one write), written behind: a Tally counts in memory and its Ledger
// writes a tenant's records of every kind in one write at most once per
// interval, at Close, and never after the tenant's reset or deletion
// (Drop). A tenant's lifecycle reaches the keepers of that state through
// the Point (Close at shutdown, Drop on reset and delete); a snapshot
// exports and imports each observer's state (Report.Export,
// Report.Import, and Migration's).
//
// The service owns the Point (its Config names further observers and
// interceptors) and registers the two observers above; the store
// implements Store. It imports the standard library and the kernel
// (simulator) only (a test fails otherwise).
package observe
