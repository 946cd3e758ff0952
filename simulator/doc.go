// Package simulator is the domain kernel of paysandbox: tenants, client
// sessions, payment instruments, payments, payment attempts, events and
// disputes; their state machines as pure methods (the Check* methods,
// Payment.Actions); the error catalogue; ids; limits; the webhook retry
// schedule (RetryDelays, NextRetry); and the ports the rest of the program
// plugs into (Store, Tx, ChangeFeed, Processor, RuleBook, Clock, IDGen,
// EndpointPolicy).
//
// The card types (CardInfo, BinData, CardRef) and the pure card rules
// (LuhnValid, CardFingerprint, AllDigits) are the kernel's; the test-card
// catalogue that produces a CardInfo from a number is simulator/cards. The
// tenant snapshot file format (its document, checksum and the rules an
// import is held to) is simulator/snapshot, which asks the kernel's rules
// and limits.
//
// The use cases live in simulator/service, the adapters beside it. The
// kernel imports only the standard library and github.com/google/uuid, and
// holds no goroutine, lock, cache, log or I/O: a test in this package fails
// if a non-test file starts a goroutine or imports echo, buntdb, viper,
// yaml, net/http, os, sync, sync/atomic or log/slog.
package simulator
