// Package processors holds the fake payment processors: implementations of
// simulator.Processor that decide outcomes from data (the test-card
// catalogue now; scenario rules later), never from the network. It imports
// simulator (and may import scenarios); never store, httpapi or webhooks.
package processors
