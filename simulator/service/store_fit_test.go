package service_test

import (
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// The store implements the ports the service declares, the optional
// in-memory reads included (asserted here: the store does not import the
// service).
var (
	_ simulator.Store      = (*store.DB)(nil)
	_ service.TenantMemory = (*store.DB)(nil)
	_ service.RecordMemory = (*store.DB)(nil)
)
