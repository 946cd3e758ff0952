// Package service holds the use cases of paysandbox, one file per noun:
// payments and payment actions, authorization with its processor fallback
// and 3DS, idempotency keys, client sessions, tokenisation, the vault,
// payment attempts, disputes, tenants, scenarios, the webhook outbox and
// endpoints, tenant snapshots (export and import), the scheduler of stored
// jobs, long-poll waits and held requests. Service is made fully wired by NewService.
//
// It works on the kernel's types and rules (package simulator) and reaches
// storage, processors, clocks, the webhook dispatcher and tracing only
// through ports: those the kernel declares (simulator.Store,
// simulator.Processor, ...) and WebhookRunner and Tracer, declared here
// where they are used.
//
// What watches the sandbox hangs off the service's one registration point
// (simulator/observe, observers.go): the use cases publish what happened
// after the commit, and the CI report counts and the migration notes are
// two observers that keep their state through their own storage port;
// tracing is an interceptor (tracer.go) that decorates the processor port
// and the writes made for a step, and runs around each job. No use case
// calls a counter or starts a span.
//
// It imports the standard library, simulator, simulator/cards (the
// test-card catalogue), simulator/snapshot (the tenant snapshot format) and
// simulator/observe (the observers' seam), all of which import the kernel
// only; never simulator/store, simulator/httpapi,
// webhooks, dashboard, processors, scenarios or cmd (a test fails if it
// does). Its behaviour tests run on the real store in memory with a manual
// clock.
package service
