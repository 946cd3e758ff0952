// Package bench is the sandbox's benchmark, which `paysandbox bench` runs:
// the load flows against a serve process of its own and the bare ceiling
// server they are compared with (Run, RunCeiling), webhook delivery
// throughput and lag on an in-process server (Webhooks), and a db file
// filled with stored checkouts for start-up and memory measurements (Seed).
// It is a root like cmd/paysandbox: it builds the server through package app
// and may reach its store; flags (cobra) stay in the command.
package bench
