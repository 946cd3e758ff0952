package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/paysandbox/paysandbox"
	"github.com/paysandbox/paysandbox/scenarios"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// loadScenarios loads the --scenarios file, or the built-in scenarios.yaml
// when path is "". The error lists every problem as file:line: sentence.
func loadScenarios(path string) (*scenarios.Doc, error) {
	if path == "" {
		doc, err := scenarios.Load("scenarios.yaml (built in)", paysandbox.DefaultScenarios, nil)
		if err != nil {
			return nil, fmt.Errorf("scenarios: the built-in file is invalid:\n%w", err)
		}
		return doc, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	doc, err := scenarios.Load(path, data, nil)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %s has problems:\n%w", path, err)
	}
	return doc, nil
}

// tenantScenarios reads a tenant's own rules document from the store ("" when
// it has none or is gone). It reads the store, not the service, so that the
// processors exist before the service they are a port of.
func tenantScenarios(db *store.DB) func(string) string {
	return func(tenantID string) string {
		t, err := db.CachedTenant(tenantID)
		if err != nil || t == nil {
			return ""
		}
		return t.Scenarios
	}
}

// ReloadScenarios reads the --scenarios file (or the built-in one) again and
// swaps the server's rules; a bad file leaves the old rules in force.
func (a *App) ReloadScenarios() error {
	doc, err := loadScenarios(a.Config.Scenarios)
	if err != nil {
		return err
	}
	a.Processors.SetServer(doc)
	return nil
}

// reloadOnSIGHUP reloads the scenarios on each SIGHUP until ctx ends; the
// outcome is logged.
func reloadOnSIGHUP(ctx context.Context, a *App) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				if err := a.ReloadScenarios(); err != nil {
					a.Log.Error("SIGHUP: scenarios not reloaded; the previous rules stay in force", "err", err.Error())
				} else {
					a.Log.Info("SIGHUP: scenarios reloaded", "scenarios", a.Config.Scenarios)
				}
			}
		}
	}()
}
