// Package observe is the one registration point of what watches the
// sandbox, in two shapes.
//
// Observers are told, after the commit, what happened: a Happening (a
// request answered, a version difference hit, a scenario rule matched, an
// event made, a delivery attempted, a hint a delivery raised) with its
// tenant and its fields. The use cases and the HTTP adapter publish
// happenings (Point.Publish); they call no counter. The CI report counts
// (Report) and the migration notes (Migration) are two observers; a metric
// would be a third.
//
// Interceptors carry context around a step rather than watch it: tracing
// decorates the ports the use cases call (the store, the processor, see
// Interceptor) and the HTTP chain, so that no use case starts a span.
//
// An observer with state keeps it per tenant and kind through its own
// small storage port (Store: load and save one record), written behind:
// a Tally counts in memory and writes a tenant's record at most once per
// interval, at Close, and never after the tenant's reset or deletion
// (Drop). A tenant's lifecycle reaches every such observer through the
// Point: Close (flush at shutdown), Drop (reset, delete), and the export
// and import of a snapshot (Tally.Export, Tally.Import).
//
// It imports the standard library and the kernel (simulator) only: no
// adapter, no other use-case package. The store implements Store; the
// service owns the Point and registers the two observers above.
package observe
