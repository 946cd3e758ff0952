// Package store is the buntdb adapter of simulator.Store. A store is a
// catalog (the file --db names: tenants, API keys, expired tenants, next-due
// hints, the format number) and one buntdb file per tenant beside it,
// opened on first use and closed when idle (tenant_files.go for the layout,
// registry.go for the open tenants, hints.go for the next-due hints,
// catalog.go for a transaction's catalog writes). Key layout in keys.go,
// typed transaction methods in tx.go; every tenant's records live in its
// own file, under keys that do not name it. Every read hands out a value of the
// caller's own. One cache sits behind Tx, handing out copies: the tenant
// cache (tenant_cache.go: tenants and the API key index, read from the
// catalog, dropped on every tenant write). Records are MessagePack behind
// a version byte (codec.go): types of the store's own (records.go), mapped
// field by field from the kernel's (record_map.go), encoded by generated
// code (records_gen.go). The files are format 1 (the catalog's
// "fileformat" key): Open converts files of an older format first through
// simulator/storeconv, which holds every conversion of the earlier layouts
// and writes through the store's Target (conversion.go), so the transaction
// code reads one format. It implements the observers' storage port too
// (observe.Store, observed.go). The catalog also knows how far each
// tenant's file reaches (file_marks.go), so that a missing or short file
// answers TenantUnavailable instead of an empty or shorter tenant; a record
// that does not decode answers RecordUnreadable (unreadable_records.go).
// It imports simulator, simulator/observe (for that port),
// simulator/storeconv, buntdb and the msgp runtime; never httpapi,
// processors or webhooks.
package store
