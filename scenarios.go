// Package paysandbox holds data embedded from the repository root, which
// go:embed cannot reach from the packages below it.
package paysandbox

import _ "embed"

// DefaultScenarios is the built-in scenarios.yaml; `serve --scenarios FILE`
// replaces it.
//
//go:embed scenarios.yaml
var DefaultScenarios []byte
