package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Guard is where webhook deliveries may go (serve's --webhook-allow). Its
// entries are exact host names and IP addresses or CIDRs; an endpoint passes
// when its host equals a name entry, or when every address it resolves to
// lies in an address entry. With no entries every endpoint passes (local
// receivers need no setting).
//
// The rule is applied twice: when an endpoint is set (AdmitEndpoint, the
// simulator.EndpointPolicy of the service) and when a delivery dials
// (DialContext), on the addresses actually dialled, so a DNS answer that
// changes after the endpoint was stored cannot reach a refused address.
// Deliveries never go through an environment proxy (HTTP_PROXY and the like):
// the proxy would dial in the guard's place.
type Guard struct {
	names    map[string]bool
	prefixes []netip.Prefix
	entries  string // as listed, for messages
	resolver Resolver
	dialer   net.Dialer
}

// Resolver answers the addresses of a host name (net.DefaultResolver is one).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

var _ simulator.EndpointPolicy = (*Guard)(nil)

// resolveTimeout bounds the lookup of AdmitEndpoint (a request waits on it).
const resolveTimeout = 5 * time.Second

// NewGuard parses the entries of --webhook-allow (blank entries are skipped;
// none admits every endpoint). A nil resolver is net.DefaultResolver.
func NewGuard(entries []string, r Resolver) (*Guard, error) {
	if r == nil {
		r = net.DefaultResolver
	}
	g := &Guard{names: map[string]bool{}, resolver: r, dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
	var listed []string
	var errs []error
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		listed = append(listed, e)
		if p, err := netip.ParsePrefix(e); err == nil {
			if p.Addr().Is4In6() && p.Bits() >= 96 { // ::ffff:10.0.0.0/104 is 10.0.0.0/8
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			g.prefixes = append(g.prefixes, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(e); err == nil {
			a = a.WithZone("").Unmap()
			g.prefixes = append(g.prefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		name := normalHost(e)
		if !validName(name) {
			errs = append(errs, fmt.Errorf("%q is not a host name, an IP address or a CIDR (entries are exact names: no wildcards, schemes, ports or paths)", e))
			continue
		}
		g.names[name] = true
	}
	g.entries = strings.Join(listed, ", ")
	return g, errors.Join(errs...)
}

// normalHost is how hosts compare: lower case, without a trailing dot.
func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// validName accepts DNS-style names (letters, digits, '-', '_', dots).
func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// open reports that the guard admits every endpoint.
func (g *Guard) open() bool { return len(g.names) == 0 && len(g.prefixes) == 0 }

func (g *Guard) admitsAddr(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	for _, p := range g.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// RefusedError is a host or address that --webhook-allow refuses.
type RefusedError struct {
	Host    string // as in the endpoint
	Reason  string // what about it is refused
	Allowed string // the entries
}

func (e *RefusedError) Error() string {
	return "refused by --webhook-allow (allowed: " + e.Allowed + "): " + e.Reason
}

// check applies the rule to host and the addresses it resolved to.
func (g *Guard) check(host string, addrs []netip.Addr) error {
	if g.open() || g.names[normalHost(host)] {
		return nil
	}
	for _, a := range addrs {
		if !g.admitsAddr(a) {
			reason := fmt.Sprintf("%s is not a listed host name and no entry covers its address %s", host, a.Unmap())
			if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap() == a.Unmap() {
				reason = fmt.Sprintf("no entry covers the address %s", host)
			}
			return &RefusedError{Host: host, Reason: reason, Allowed: g.entries}
		}
	}
	return nil
}

// resolve answers host's addresses (an IP literal is its own).
func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.WithZone("").Unmap()}, nil
	}
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err == nil && len(addrs) == 0 {
		err = fmt.Errorf("lookup %s: no addresses", host)
	}
	return addrs, err
}

// AdmitEndpoint implements simulator.EndpointPolicy: nil when u's host is a
// listed name or resolves only into listed addresses (or the list is empty).
func (g *Guard) AdmitEndpoint(u *url.URL) error {
	host := u.Hostname()
	if g.open() || g.names[normalHost(host)] {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return fmt.Errorf("is %w", &RefusedError{Host: host, Allowed: g.entries,
			Reason: fmt.Sprintf("%s is not a listed host name and could not be resolved to check its addresses (%v)", host, err)})
	}
	if err := g.check(host, addrs); err != nil {
		return fmt.Errorf("is %w", err)
	}
	return nil
}

// DialContext dials addr ("host:port") for a delivery. With no entries, or
// for a listed name, it dials as net.Dialer does. Otherwise it resolves the
// host once, applies the rule to every address, and dials those addresses
// itself (in order, each given a share of the time left, until one
// answers), so the address connected to is an address that was checked.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if g.open() || g.names[normalHost(host)] {
		return g.dialer.DialContext(ctx, network, addr)
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	if err := g.check(host, addrs); err != nil {
		return nil, err
	}
	var first error
	for i, a := range addrs {
		dctx, cancel := partialDeadline(ctx, len(addrs)-i)
		c, err := g.dialer.DialContext(dctx, network, net.JoinHostPort(a.Unmap().String(), port))
		cancel()
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// partialDeadline gives one of n remaining addresses its share of the time
// ctx has left (at least 2s, as net.Dialer does), so that one address that
// never answers does not use up the attempt.
func partialDeadline(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok || n <= 1 {
		return context.WithCancel(ctx)
	}
	share := time.Until(dl) / time.Duration(n)
	if share < 2*time.Second {
		share = min(2*time.Second, time.Until(dl))
	}
	return context.WithTimeout(ctx, share)
}

// Client is the HTTP client of deliveries: dials through the guard, no
// environment proxy, redirects are answers like any other non-2xx (the
// attempt fails), and up to maxIdlePerHost kept-alive connections per host.
func (g *Guard) Client(maxIdlePerHost int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = g.DialContext
	tr.MaxIdleConnsPerHost = maxIdlePerHost
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// deliveryClient is the dispatcher's client: through the service's Guard
// when its EndpointPolicy is one, else through a guard that admits every
// address (still no environment proxy).
func deliveryClient(p simulator.EndpointPolicy, maxIdlePerHost int) *http.Client {
	g, ok := p.(*Guard)
	if !ok || g == nil {
		g, _ = NewGuard(nil, nil)
	}
	return g.Client(maxIdlePerHost)
}

// attemptError is the attempt log's text of a failed request: a refusal by
// the guard reads as itself, whatever the client wrapped it in.
func attemptError(err error) (string, bool) {
	var r *RefusedError
	if errors.As(err, &r) {
		return r.Error(), true
	}
	return "", false
}
