// Package store is the buntdb adapter of simulator.Store: key layout in
// keys.go, typed transaction methods in tx.go. Every tenant's records live
// under the prefix "t:<tenant>:", so a tenant reset is one range delete and
// no query of one tenant scans another's records. It imports simulator and
// buntdb; never httpapi, processors or webhooks.
package store
