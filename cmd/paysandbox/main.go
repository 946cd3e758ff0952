// Command paysandbox is the payment-API sandbox: `paysandbox serve` runs it;
// the other commands are its client (see `paysandbox --help`).
package main

import (
	"os"
)

// Stamped by the release build (the Dockerfile and .goreleaser.yaml) with
// -ldflags "-X main.version=... -X main.commit=... -X main.date=..."; read
// through currentBuild only.
var (
	version = "dev"
	commit  = "unknown"
	date    = "unknown"
)

func main() {
	os.Exit(runCLI(os.Args[1:], defaultDeps(os.Stdout, os.Stderr)))
}
