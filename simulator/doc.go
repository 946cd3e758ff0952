// Package simulator is the domain of paysandbox: tenants, client sessions,
// payment instruments, payments, payment attempts, their state machines, the
// error catalogue and the service (one use case per file).
//
// It declares the ports it consumes (Store, Processor, Clock, IDGen) and
// imports only the standard library and github.com/google/uuid. It must not
// import echo, buntdb, viper, yaml or net/http: a test in this package fails
// if it does.
package simulator
