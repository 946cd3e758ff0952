package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Guard is where webhook deliveries may go (serve's --webhook-allow). Its
// entries are exact host names and IP addresses or CIDRs, each optionally
// with a port (ParseAllowEntry); an endpoint passes when its host equals a
// name entry, or when every address it resolves to lies in an address
// entry, the entry admitting the endpoint's port (the URL's, else 80 for
// http and 443 for https). An entry without a port admits every port. With
// no entries every endpoint passes (local receivers need no setting).
//
// The rule is applied twice: when an endpoint is set (AdmitEndpoint, the
// simulator.EndpointPolicy of the service) and when a delivery dials
// (DialContext), on the addresses actually dialled, so a DNS answer that
// changes after the endpoint was stored cannot reach a refused address.
// Deliveries never go through an environment proxy (HTTP_PROXY and the like):
// the proxy would dial in the guard's place.
type Guard struct {
	names    map[string][]int // the ports each name entry admits (0: any)
	prefixes []AllowEntry     // the address entries
	entries  string           // as listed, for messages
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
	g := &Guard{names: map[string][]int{}, resolver: r, dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
	var listed []string
	var errs []error
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		listed = append(listed, e)
		a, err := ParseAllowEntry(e)
		switch {
		case err != nil:
			errs = append(errs, err)
		case a.Name != "":
			g.names[a.Name] = append(g.names[a.Name], a.Port)
		default:
			g.prefixes = append(g.prefixes, a)
		}
	}
	g.entries = strings.Join(listed, ", ")
	return g, errors.Join(errs...)
}

// AllowEntry is one entry of --webhook-allow: a host name (Name) or the
// addresses of Prefix, and the port it admits (Port; 0: any).
type AllowEntry struct {
	Name   string // lower case, without a trailing dot; "" for addresses
	Prefix netip.Prefix
	Port   int
}

// ParseAllowEntry reads an entry of --webhook-allow: HOST or HOST:PORT,
// HOST being an exact host name, an IP address or a CIDR, PORT 1 to 65535.
// An IPv6 address or CIDR takes brackets when it has a port ([::1]:8443,
// [fd00::/8]:443); an IPv4 CIDR does not (10.0.0.0/8:8080). Without
// brackets, an entry with more than one colon is an IPv6 address or CIDR
// without a port. Names compare without case or trailing dot; IPv4-mapped
// IPv6 addresses are their IPv4 address.
func ParseAllowEntry(e string) (AllowEntry, error) {
	host, port, hasPort, bracketed := e, "", false, false
	if rest, ok := strings.CutPrefix(e, "["); ok {
		h, after, found := strings.Cut(rest, "]")
		if !found || (after != "" && !strings.HasPrefix(after, ":")) {
			return AllowEntry{}, badEntry(e)
		}
		host, bracketed = h, true
		port, hasPort = strings.CutPrefix(after, ":")
	} else if strings.Count(e, ":") == 1 {
		host, port, hasPort = strings.Cut(e, ":")
	}
	var a AllowEntry
	if hasPort {
		if port != "" && !allDigits(port) {
			return AllowEntry{}, badEntry(e) // a scheme (http://...), a path
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return AllowEntry{}, badPort(e, port)
		}
		a.Port = n
	}
	if p, err := netip.ParsePrefix(host); err == nil {
		if p.Addr().Is4In6() && p.Bits() >= 96 { // ::ffff:10.0.0.0/104 is 10.0.0.0/8
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		a.Prefix = p.Masked()
		return a, nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.WithZone("").Unmap()
		a.Prefix = netip.PrefixFrom(ip, ip.BitLen())
		return a, nil
	}
	if a.Name = normalHost(host); bracketed || !validName(a.Name) {
		return AllowEntry{}, badEntry(e)
	}
	return a, nil
}

func badEntry(e string) error {
	return fmt.Errorf("%q is not a host name, an IP address or a CIDR, optionally with :port (entries are exact names: no wildcards, schemes or paths; an IPv6 address or CIDR with a port is written in brackets: [fd00::/8]:443)", e)
}

func badPort(e, port string) error {
	return fmt.Errorf("%q: the port %q is not a number from 1 to 65535", e, port)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// admits reports whether a's Port admits port.
func (a AllowEntry) admits(port int) bool { return a.Port == 0 || a.Port == port }

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

// admitsName reports whether a name entry admits host on port.
func (g *Guard) admitsName(host string, port int) bool {
	for _, p := range g.names[normalHost(host)] {
		if p == 0 || p == port {
			return true
		}
	}
	return false
}

// admitsAddr reports whether an address entry admits a on port, and
// whether one covers a on some other port.
func (g *Guard) admitsAddr(a netip.Addr, port int) (ok, otherPort bool) {
	a = a.WithZone("").Unmap()
	for _, p := range g.prefixes {
		if p.Prefix.Contains(a) {
			if p.admits(port) {
				return true, false
			}
			otherPort = true
		}
	}
	return false, otherPort
}

// endpointPort is the port a delivery to u dials: its own, else the
// scheme's (80, 443); -1 when u names none that can be read.
func endpointPort(u *url.URL) int {
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err == nil {
			return n
		}
		return -1
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return 80
	case "https":
		return 443
	}
	return -1
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

// check applies the rule to host, the port dialled and the addresses host
// resolved to. The reason names the port only when an entry admits the
// name or the address on another port.
func (g *Guard) check(host string, port int, addrs []netip.Addr) error {
	if g.open() || g.admitsName(host, port) {
		return nil
	}
	for _, a := range addrs {
		ok, otherPort := g.admitsAddr(a, port)
		if ok {
			continue
		}
		addrPort := ""
		if otherPort {
			addrPort = fmt.Sprintf(" on port %d", port)
		}
		reason := fmt.Sprintf("no entry covers the address %s%s", host, addrPort)
		if ip, err := netip.ParseAddr(host); err != nil || ip.Unmap() != a.Unmap() {
			reason = fmt.Sprintf("%s and no entry covers its address %s%s", g.notListed(host, port), a.Unmap(), addrPort)
		}
		return &RefusedError{Host: host, Reason: reason, Allowed: g.entries}
	}
	return nil
}

// notListed says that host is no name entry: "NAME is not a listed host
// name", with " on port N" when it is one for other ports.
func (g *Guard) notListed(host string, port int) string {
	if len(g.names[normalHost(host)]) > 0 {
		return fmt.Sprintf("%s is not a listed host name on port %d", host, port)
	}
	return host + " is not a listed host name"
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
// listed name or resolves only into listed addresses, each entry admitting
// u's port (or the list is empty).
func (g *Guard) AdmitEndpoint(u *url.URL) error {
	host, port := u.Hostname(), endpointPort(u)
	if g.open() || g.admitsName(host, port) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return fmt.Errorf("is %w", &RefusedError{Host: host, Allowed: g.entries,
			Reason: fmt.Sprintf("%s and could not be resolved to check its addresses (%v)", g.notListed(host, port), err)})
	}
	if err := g.check(host, port, addrs); err != nil {
		return fmt.Errorf("is %w", err)
	}
	return nil
}

// DialContext dials addr ("host:port") for a delivery. With no entries, or
// for a name listed for that port, it dials as net.Dialer does. Otherwise it
// resolves the host once, applies the rule to every address and the port,
// and dials those addresses itself (in order, each given a share of the
// time left, until one answers), so the address connected to is an address
// that was checked.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	portNum, err := strconv.Atoi(port)
	if err != nil {
		portNum = -1 // a named port: only entries without a port admit it
	}
	if g.open() || g.admitsName(host, portNum) {
		return g.dialer.DialContext(ctx, network, addr)
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	if err := g.check(host, portNum, addrs); err != nil {
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
