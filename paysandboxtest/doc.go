// Package paysandboxtest runs the payment sandbox inside a Go test binary,
// for merchants' tests of their own apps.
//
// New gives each test a tenant of its own (its own data, clock, scenario
// rules, webhook endpoint, API key and signing secret) on one sandbox shared
// by the test binary: it starts on first use, listens on a free loopback
// port, keeps its store in memory and serves until the binary exits. The
// tenant is deleted when the test ends (t.Cleanup). NewServer starts a
// sandbox of the test's own, stopped when the test ends, for tests that
// need other server settings (a shorter request timeout, a scenario file).
//
//	func TestDeclinedCheckout(t *testing.T) {
//		t.Parallel()
//		sb := paysandboxtest.New(t)
//		shop := myshop.New(sb.URL, sb.APIKey, sb.SigningSecret) // the app under test
//		hooks := sb.Webhooks(paysandboxtest.Forward(shop.Handler()))
//		sb.Next("generic-decline") // the next payment is declined, whatever the card
//		id := shop.Checkout(t, sb.CardToken(shop.Session(t), "4111111111111111"))
//		hooks.WaitFor(t, func(e paysandboxtest.Event) bool { return e.PaymentID == id && e.Status == "DECLINED" })
//		// the shop has handled the webhook: check what it shows
//	}
//
// A Tenant's methods are shortcuts to the control plane (/_sandbox, over
// HTTP at the tenant's URL with its key): the clock, one-shot outcomes,
// scenario rules, waits, the CI report. Each fails the test that made the
// handle (t.Fatalf) with the API's errorId and description when the
// sandbox refuses; With hands a subtest a handle that fails it instead.
// The webhook Receiver verifies each delivery's signature with the
// tenant's secret, optionally passes it to the app's handler, and lets a
// test wait for an event, failing it with what did arrive when none does
// in time.
//
// Everything here is safe for parallel tests (t.Parallel). The package
// builds on the composition root (app) like `paysandbox serve` does, so
// the sandbox behaves as the binary does. It imports what the product
// imports and the standard library's testing: no test framework, so a
// merchant's module gains no dependency the binary does not have.
package paysandboxtest
