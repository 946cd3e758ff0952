// Package dashboard is the web UI of the sandbox: server-rendered
// html/template pages, embedded static assets (a little hand-written
// JavaScript and CSS, no third-party front-end code), server-sent events for
// live updates, and the demo checkout with its 3DS challenge page.
//
// It is an adapter on service.Service, like httpapi: it reads and acts
// through the service's methods, never a store transaction, and asks the
// kernel what a payment allows (and which takes a 3DS answer). It must not
// import httpapi, the store (or any other adapter): the sources it shows that other packages own
// (webhooks, scenarios, the request journal) are the small interfaces of
// sources.go, wired by the composition root (app/ui_sources.go
// adapts the real ones). A nil source makes its view say
// that the feature is not configured.
//
// Sign-in takes a tenant's API key on a plain form and answers with a signed,
// expiring, HttpOnly, SameSite=Strict session cookie; every page then acts for
// that tenant with that key's scopes. State-changing forms carry a CSRF token
// bound to the session and are refused from another origin. Sign-out ends its
// session (revocations.go); a rotation of the tenant's signing secret or the
// tenant's deletion ends all of the tenant's (the cookie's generation).
package dashboard
