// Package store is the buntdb adapter of simulator.Store: key layout in
// keys.go, typed transaction methods in tx.go. Every tenant's records live
// under the prefix "t:<tenant>:", so a tenant reset is one range delete and
// no query of one tenant scans another's records. Tenants and API keys
// (hot.go) and recently used payments, sessions, instruments, attempts and
// client tokens (hotcache.go, hot_records.go) are also kept in memory as
// typed values, coherent with buntdb, for reads that take no store lock.
// Records are CBOR behind a format version byte (codec.go); a file of JSON
// records from an earlier build is converted once when it opens
// (migrate.go). It
// imports simulator and buntdb; never httpapi, processors or webhooks.
package store
