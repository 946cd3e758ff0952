// Package httpapi is the HTTP adapter: one echo server binding a handler to
// each operation of the kernel's route table (routes.go), the middleware of the request pipeline (request id and log,
// auth, version, body limit, timeout, CORS), the one code->status table and
// error handler (errors.go), request schemas, wire DTOs (every answer is
// written by encoding/json through writeJSON), one handler file per
// resource, and the per-tenant request journal with its hints (journal.go
// holds the state, journal_http.go the small middleware hook). Handlers run
// parse -> validate -> service -> render. The OpenAPI 3.1 document of every
// operation is generated at build time (go generate) by a builder in the
// package's tests (openapi_build_test.go, kin-openapi) from the same tables:
// the operations, the request schemas, the DTOs, the catalogue and statusOf,
// the version differences; apiOps documents each operation. The server
// embeds the generated documents (openapi.go) and adds the binary's version
// when it serves one; kin-openapi is linked into no binary. With
// Options.Tracer, an outermost middleware makes a span of each request
// (tracer.go; the port is declared here, the tracing package implements it).
// It imports simulator and simulator/service; never store, processors,
// webhooks or OpenTelemetry.
package httpapi
