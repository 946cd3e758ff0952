package service_test

import (
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// The store implements the port the service declares (asserted here: the
// store does not import the service).
var _ simulator.Store = (*store.DB)(nil)
