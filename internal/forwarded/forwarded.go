// Package forwarded answers the client's scheme, host and address of a
// request, the one notion every adapter uses (serve's --trusted-proxy): the
// API's challengeUrl, the dashboard's absolute links and its cookie's
// Secure, and the client address in the logs. X-Forwarded-Proto,
// X-Forwarded-Host and X-Forwarded-For (or X-Real-IP) count only when the
// connection's peer lies in a trusted range; from any other peer they are
// ignored. It imports the standard library only.
package forwarded

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// DefaultCIDRs are trusted when none are configured: loopback and the
// private ranges (a reverse proxy on the same host or network).
var DefaultCIDRs = []string{"127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"}

// None, as the only entry, trusts no peer.
const None = "none"

// Trust is the set of peers whose X-Forwarded-* headers count. A nil *Trust
// trusts DefaultCIDRs.
type Trust struct {
	nets []netip.Prefix
}

var defaultTrust = func() *Trust {
	t, err := parse(DefaultCIDRs)
	if err != nil {
		panic(err)
	}
	return t
}()

// New parses CIDRs (or single addresses); blank entries are skipped, none
// at all means DefaultCIDRs, and "none" alone trusts no peer.
func New(cidrs []string) (*Trust, error) {
	t, err := parse(cidrs)
	if t == nil {
		return defaultTrust, err
	}
	return t, err
}

// parse is New without the default: nil when nothing is listed.
func parse(cidrs []string) (*Trust, error) {
	t := &Trust{}
	var errs []error
	listed := 0
	for _, c := range cidrs {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		listed++
		if strings.EqualFold(c, None) {
			continue
		}
		if p, err := netip.ParsePrefix(c); err == nil {
			t.nets = append(t.nets, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(c); err == nil {
			a = a.WithZone("")
			t.nets = append(t.nets, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		errs = append(errs, fmt.Errorf("%q is not a CIDR or an IP address (or %q alone)", c, None))
	}
	if listed == 0 {
		return nil, nil
	}
	if len(t.nets) > 0 && listed != len(t.nets) {
		errs = append(errs, fmt.Errorf("%q cannot be combined with ranges", None))
	}
	return t, errors.Join(errs...)
}

func (t *Trust) prefixes() []netip.Prefix {
	if t == nil {
		return defaultTrust.nets
	}
	return t.nets
}

func (t *Trust) trusts(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	for _, p := range t.prefixes() {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// peer is the connection's remote address.
func peer(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	return a.WithZone("").Unmap(), err == nil
}

// FromProxy reports whether r's peer is trusted, so its X-Forwarded-*
// headers count.
func (t *Trust) FromProxy(r *http.Request) bool {
	a, ok := peer(r)
	return ok && t.trusts(a)
}

// first is the first comma-separated value of header h, trimmed.
func first(r *http.Request, h string) string {
	v, _, _ := strings.Cut(r.Header.Get(h), ",")
	return strings.TrimSpace(v)
}

// Scheme is "https" on a TLS connection, else X-Forwarded-Proto ("http" or
// "https") from a trusted peer, else "http".
func (t *Trust) Scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	if t.FromProxy(r) {
		switch p := strings.ToLower(first(r, "X-Forwarded-Proto")); p {
		case "http", "https":
			return p
		}
	}
	return "http"
}

// Host is X-Forwarded-Host from a trusted peer when it is a plain host[:port],
// else the request's Host.
func (t *Trust) Host(r *http.Request) string {
	if t.FromProxy(r) {
		if h := first(r, "X-Forwarded-Host"); h != "" && plainHost(h) {
			return h
		}
	}
	return r.Host
}

// plainHost admits the characters of a host name, an IP (IPv6 in brackets)
// and a port, nothing that could change a URL's meaning.
func plainHost(h string) bool {
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-_:[]", c)) {
			return false
		}
	}
	return len(h) <= 255
}

// SameOrigin is false when the request's Origin (or, without it, its
// Referer) names another host than the client's (Host), or is "null" (an
// opaque origin: a sandboxed frame, a file). A request with neither header
// (curl, a script, the CLI) is not a browser's cross-site one: true.
func (t *Trust) SameOrigin(r *http.Request) bool {
	src := r.Header.Get("Origin")
	if src == "" {
		src = r.Header.Get("Referer")
	}
	switch src {
	case "":
		return true
	case "null":
		return false
	}
	u, err := url.Parse(src)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, t.Host(r))
}

// BaseURL is Scheme://Host, the base of every absolute URL the server writes.
func (t *Trust) BaseURL(r *http.Request) string { return t.Scheme(r) + "://" + t.Host(r) }

// ClientIP is the client's address: the peer, or, when the peer is trusted,
// the nearest address of X-Forwarded-For that is not itself a trusted proxy
// (read from the right, the entries the proxies appended; the leftmost when
// all are trusted), or X-Real-IP without X-Forwarded-For. It matches
// echo.IPExtractor.
func (t *Trust) ClientIP(r *http.Request) string {
	p, ok := peer(r)
	if !ok {
		return r.RemoteAddr
	}
	if !t.trusts(p) {
		return p.String()
	}
	xff := r.Header.Values("X-Forwarded-For")
	if len(xff) == 0 {
		if v := strings.TrimSpace(r.Header.Get("X-Real-Ip")); v != "" { // the canonical name: looked up without a copy
			if a, err := netip.ParseAddr(v); err == nil {
				return a.WithZone("").Unmap().String()
			}
		}
		return p.String()
	}
	hops := strings.Split(strings.Join(xff, ","), ",")
	client := p
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: what lies left of it cannot be vouched for
		}
		client = a.WithZone("").Unmap()
		if !t.trusts(client) {
			break
		}
	}
	return client.String()
}
