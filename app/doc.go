// Package app is the composition root of the sandbox: Open wires the store,
// the service, the fake processors, the webhook dispatcher, the merchant API
// and the dashboard from a validated Config; Listen, Start and Run serve;
// Shutdown and Close stop within one budget. The command (cmd/paysandbox)
// resolves the Config from flags, env and file with viper and cobra; other
// roots (the benchmark, the end-to-end tests) build the same server through
// Open. It may import every package of the module but cmd, and neither viper
// nor cobra.
package app
