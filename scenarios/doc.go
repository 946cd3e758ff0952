// Package scenarios owns the YAML rules of docs/scenarios.md: the schema,
// a strict loader that reports every problem of a file with its line
// (file:line: sentence), and the Engine, a pure function from a payment
// request to the decision of the fake processors (no I/O, no clock).
//
// It imports simulator (for the decision types and the card fingerprint) and
// the YAML library; never store, httpapi, processors or webhooks.
package scenarios
