package app

import (
	"fmt"
	"os"

	"github.com/paysandbox/paysandbox"
	"github.com/paysandbox/paysandbox/scenarios"
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
