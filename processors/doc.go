// Package processors holds the fake payment processors: an implementation of
// simulator.Processor (and simulator.RuleBook) whose decisions come from the
// scenario rules (package scenarios): the server's file, or a tenant's own
// document. It never talks to a network. It imports simulator and scenarios;
// never store, httpapi or webhooks.
package processors
