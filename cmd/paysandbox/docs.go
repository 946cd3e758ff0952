package main

// The reference pages generated from the commands themselves: docs/cli/
// (cobra's doc generator, one page per command) and the configuration table
// of docs/configuration.md (configKeys, the table of serve's settings).
// TestGeneratedDocs fails when the committed pages differ from what the
// commands generate; this regenerates them:
//
//go:generate go test -run ^TestGeneratedDocs$ -update-docs .
