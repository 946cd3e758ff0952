// Command paysandbox is the payment-API sandbox: `paysandbox serve` runs it.
package main

import (
	"os"
)

// Stamped at build time with -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
var (
	version = "dev"
	commit  = "unknown"
	date    = "unknown"
)

func main() {
	if err := newRootCmd(os.Stdout, os.Stderr).Execute(); err != nil {
		os.Exit(exitCode(err)) // 1, or 2 for usage errors (scenarios_cmd.go)
	}
}
