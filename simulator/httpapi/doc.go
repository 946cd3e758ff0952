// Package httpapi is the HTTP adapter: one echo server with one route table
// (routes.go), the middleware of the request pipeline (request id and log,
// auth, version, body limit, timeout, CORS), the one code->status table and
// error handler (errors.go), request schemas and wire DTOs, and one handler
// file per resource. Handlers run parse -> validate -> service -> render.
// It imports simulator; never store, processors or webhooks.
package httpapi
