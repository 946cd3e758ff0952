package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// A web page the developer happens to open must not drive their sandbox:
// the control plane creates tenants without a key and points webhooks
// anywhere, so a page that reached it could make the machine POST where it
// likes. Two checks keep pages out (the dashboard's forms have their own:
// same origin and a CSRF token):
//
//   - Hosts (Options.AllowedHosts, set for a loopback-bound server): a page
//     whose own name was pointed at 127.0.0.1 (DNS rebinding) reaches the
//     server as same-origin, but its requests carry its name in Host. Only
//     names that never come from a page's DNS answer: localhost, loopback IP
//     literals, and the names the operator lists.
//   - browserWrites (every server): a write under /_sandbox whose Origin (or
//     Referer) names another host, or whose body has a type a page may send
//     to any site without asking first (text/plain and the two form
//     encodings, CORS "simple" requests), is refused before anything runs.

// Hosts is the set of Host names a server answers; nil answers any.
type Hosts struct {
	names map[string]bool
}

// LoopbackHosts answers localhost, every loopback IP literal (127.0.0.0/8,
// [::1]) and the extra names given (a port is ignored, as in every check).
func LoopbackHosts(extra []string) *Hosts {
	h := &Hosts{names: map[string]bool{"localhost": true}}
	for _, n := range extra {
		if n = hostName(n); n != "" {
			h.names[n] = true
		}
	}
	return h
}

// Allows reports whether host (a Host header: name or IP, maybe a port,
// IPv6 in brackets) is answered.
func (h *Hosts) Allows(host string) bool {
	if h == nil {
		return true
	}
	n := hostName(host)
	if h.names[n] {
		return true
	}
	a, err := netip.ParseAddr(n)
	return err == nil && a.Unmap().IsLoopback()
}

// hostName is host without its port and IPv6 brackets, lower case, without
// a trailing dot ("LocalHost.:8080" is "localhost").
func hostName(host string) string {
	host = strings.TrimSpace(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// errForeignHost is the answer to a request for a Host a loopback-bound
// server does not answer.
func errForeignHost(host string) *simulator.Error {
	return simulator.Errorf(simulator.CodeForbidden,
		"This sandbox listens on loopback only and answers the Host names localhost, 127.0.0.1 and [::1]; Host %q is refused, as a web page whose name points at this machine would be", host).
		WithRecovery("Call it as http://localhost:PORT; to reach it by another name, start serve with --allowed-host " + hostName(host) +
			"; to let other machines reach it, listen on their interface with --addr (docs/sharing.md says what that opens).")
}

// browserWrites refuses a write to the control plane that a page on another
// site could have sent (see the comment above Hosts); GET, HEAD and OPTIONS
// pass, and so does any request without Origin or Referer and with a JSON
// or YAML body or none (curl, scripts, the CLI).
func (s *Server) browserWrites(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if !browserWrite(r.Method, r.URL.Path) {
			return next(c)
		}
		if !s.opt.Trust.SameOrigin(r) {
			src := r.Header.Get("Origin")
			if src == "" {
				src = r.Header.Get("Referer")
			}
			return simulator.Errorf(simulator.CodeForbidden,
				"The control plane takes no writes from a web page of another origin (Origin %q, this server is %q)", src, s.opt.Trust.Host(r)).
				WithRecovery("Call /_sandbox from a script, curl or the paysandbox CLI (no Origin header), or use the dashboard at /_sandbox/ui/.")
		}
		if t := simpleBodyType(r.Header.Get("Content-Type")); t != "" {
			return simulator.Errorf(simulator.CodeForbidden,
				"The control plane takes no %s body: any web page can send one to this server without asking", t).
				WithRecovery("Send the body as JSON with Content-Type: application/json (curl: -H 'Content-Type: application/json'); PUT /_sandbox/scenarios also takes application/yaml.")
		}
		return next(c)
	}
}

// browserWrite reports whether a request of this method to this path is a
// write to the control plane, which browserWrites checks.
func browserWrite(method, path string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return strings.HasPrefix(path, "/_sandbox/")
}

// simpleBodyType is the media type of a Content-Type value when it is one a
// browser sends to any origin without a preflight ("" otherwise): what
// precedes the parameters, trimmed, in lower case, as browsers compare it.
func simpleBodyType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	switch t = strings.ToLower(strings.TrimSpace(t)); t {
	case "text/plain", "application/x-www-form-urlencoded", "multipart/form-data":
		return t
	}
	return ""
}
