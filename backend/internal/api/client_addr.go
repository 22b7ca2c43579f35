package api

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Client addresses (issue 27). Behind a load balancer every request's TCP peer is the balancer,
// so limits keyed on the peer would put every tenant in one bucket: one client's wrong keys
// would lock all of them out. The operator names the proxies it runs (Config.TrustedProxies);
// when the peer is one of them, the client is read from the forwarding headers those proxies
// append, walking from the right (the hop nearest to us) past every trusted address. Whatever a
// client writes into these headers itself sits left of what our proxies appended, so the walk
// stops before reaching it; a peer that is not trusted is believed about nothing.

// maxForwardingHeader bounds the bytes of one forwarding header (all its lines together) that
// are read. A real chain of a few proxies is a few hundred bytes; a longer header is not parsed
// and counts as unusable, so the client is the peer.
const maxForwardingHeader = 8 << 10

// trustedProxies are the address ranges of the proxies whose forwarding headers are believed.
type trustedProxies []netip.Prefix

// trusts reports whether a lies in one of the trusted ranges.
func (t trustedProxies) trusts(a netip.Addr) bool {
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address r is counted and logged by: the right-most untrusted address of
// its forwarding chain when its peer is a trusted proxy, else the peer. It is computed once per
// request, by withRequestID, and read through clientIP.
func (t trustedProxies) clientAddr(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return peerHost(r.RemoteAddr) // not an IP peer (a test, a unix socket): as it stands
	}
	addr := peer.Addr().Unmap()
	if len(t) == 0 || !t.trusts(addr) {
		if peer.Addr().Is4() {
			// RemoteAddr's host as it stands: ParseAddrPort took it, so it is already the
			// address's canonical form, and the substring costs no allocation.
			return r.RemoteAddr[:strings.LastIndexByte(r.RemoteAddr, ':')]
		}
		return addr.String()
	}
	return t.forwardedClient(addr, r.Header).String()
}

// forwardedClient reads the client behind the trusted peer from the forwarding headers.
// Forwarded (RFC 7239) is the standard and is read when it is the only one sent, X-Forwarded-For
// likewise. When a request carries both, a proxy that writes only one of them passes the other
// on as the client sent it: preferring either would let any client pick its own address through
// the one our proxies do not write. So both are read, and the client is believed only when they
// agree; otherwise the peer counts, a bucket every such request shares, so no client can leave
// its own by sending a new header per request.
func (t trustedProxies) forwardedClient(peer netip.Addr, h http.Header) netip.Addr {
	fwd, hasFwd := headerList(h, "Forwarded")
	xff, hasXFF := headerList(h, "X-Forwarded-For")
	switch {
	case hasFwd && hasXFF:
		a, b := t.walk(peer, forwardedHops(fwd)), t.walk(peer, xForwardedForHops(xff))
		if a == b {
			return a
		}
		return peer
	case hasFwd:
		return t.walk(peer, forwardedHops(fwd))
	case hasXFF:
		return t.walk(peer, xForwardedForHops(xff))
	}
	return peer
}

// headerList joins every line of the header name with commas, as RFC 9110 allows for a list,
// and reports whether there was anything but blanks.
func headerList(h http.Header, name string) (string, bool) {
	v := strings.Join(h.Values(name), ",")
	return v, strings.TrimSpace(v) != ""
}

// hop is one address of a forwarding chain; ok is false when the proxy that wrote it gave no
// usable address (unknown, an obfuscated identifier, a missing for=, garbage).
type hop struct {
	addr netip.Addr
	ok   bool
}

// walk returns the right-most address of hops (the chain, oldest first, without the peer) that
// is not trusted, starting from the trusted peer. It stops at the first unusable hop from the
// right and returns the last usable address before it (a trusted proxy, or the peer): that
// proxy could not say who its client was, so the client is counted as that proxy. When every
// hop is trusted, the left-most one is the client (a request from inside the trusted ranges).
func (t trustedProxies) walk(peer netip.Addr, hops []hop) netip.Addr {
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		if !hops[i].ok {
			return client
		}
		client = hops[i].addr
		if !t.trusts(client) {
			return client
		}
	}
	return client
}

// xForwardedForHops parses an X-Forwarded-For value: comma-separated addresses, each bare
// (192.0.2.1, 2001:db8::1) or with a port (192.0.2.1:4711, [2001:db8::1]:4711). Any other entry,
// an empty one included, is an unusable hop.
func xForwardedForHops(v string) []hop {
	if len(v) > maxForwardingHeader {
		return []hop{{}}
	}
	parts := strings.Split(v, ",")
	hops := make([]hop, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if a, err := netip.ParseAddr(p); err == nil {
			hops[i] = hop{addr: normalAddr(a), ok: true}
			continue
		}
		hops[i] = parseNode(p)
	}
	return hops
}

// forwardedHops parses a Forwarded value (RFC 7239): comma-separated elements of
// semicolon-separated name=value pairs, values a token or a quoted string. Each element's hop is
// its for= node; an element without one, with two, or that does not parse is an unusable hop.
// Unquoted values are read leniently up to the next separator, so for=192.0.2.1:4711 (which the
// RFC wants quoted) is understood too.
func forwardedHops(v string) []hop {
	if len(v) > maxForwardingHeader {
		return []hop{{}}
	}
	sc := forwardedScanner{s: v}
	var hops []hop
	for {
		hops = append(hops, sc.element())
		if sc.done() {
			return hops
		}
		sc.i++ // the comma ending the element
	}
}

// forwardedScanner walks a Forwarded value byte by byte.
type forwardedScanner struct {
	s string
	i int
}

func (sc *forwardedScanner) done() bool { return sc.i >= len(sc.s) }

func (sc *forwardedScanner) skipSpace() {
	for !sc.done() && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

// element reads one element up to (not past) the comma that ends it, or to the end, and returns
// its for= node as a hop.
func (sc *forwardedScanner) element() hop {
	var node string
	seen, ok := false, true
	for {
		sc.skipSpace()
		if sc.done() || sc.s[sc.i] == ',' {
			break
		}
		if sc.s[sc.i] == ';' { // an empty pair, which the grammar allows
			sc.i++
			continue
		}
		name, value, good := sc.pair()
		if !good {
			sc.skipElement()
			return hop{}
		}
		if strings.EqualFold(name, "for") {
			ok = ok && !seen // a second for= in one element is malformed
			seen, node = true, value
		}
	}
	if !ok || !seen {
		return hop{}
	}
	return parseNode(node)
}

// pair reads name=value and the blanks after it; good is false unless a separator (or the end)
// follows.
func (sc *forwardedScanner) pair() (name, value string, good bool) {
	start := sc.i
	for !sc.done() && isTokenChar(sc.s[sc.i]) {
		sc.i++
	}
	name = sc.s[start:sc.i]
	if name == "" || sc.done() || sc.s[sc.i] != '=' {
		return "", "", false
	}
	sc.i++
	if value, good = sc.value(); !good {
		return "", "", false
	}
	sc.skipSpace()
	if !sc.done() && sc.s[sc.i] != ';' && sc.s[sc.i] != ',' {
		return "", "", false
	}
	return name, value, true
}

// value reads a quoted string (unescaping quoted pairs) or an unquoted run of visible
// characters other than separators and quotes.
func (sc *forwardedScanner) value() (string, bool) {
	if sc.done() {
		return "", false
	}
	if sc.s[sc.i] != '"' {
		start := sc.i
		for !sc.done() && sc.s[sc.i] > ' ' && sc.s[sc.i] < 0x7f && !strings.ContainsRune(`;,"`, rune(sc.s[sc.i])) {
			sc.i++
		}
		return sc.s[start:sc.i], sc.i > start
	}
	sc.i++
	var b strings.Builder
	for !sc.done() {
		c := sc.s[sc.i]
		sc.i++
		switch {
		case c == '"':
			return b.String(), true
		case c == '\\' && !sc.done():
			b.WriteByte(sc.s[sc.i])
			sc.i++
		default:
			b.WriteByte(c)
		}
	}
	return "", false // unterminated
}

// skipElement moves to the comma that ends a malformed element, outside quoted strings; an
// unterminated quote runs to the end, so everything after it is one unusable element.
func (sc *forwardedScanner) skipElement() {
	quoted := false
	for ; !sc.done(); sc.i++ {
		switch c := sc.s[sc.i]; {
		case quoted && c == '\\':
			sc.i++
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			return
		}
	}
}

// isTokenChar reports whether c may appear in an RFC 9110 token.
func isTokenChar(c byte) bool {
	return isAlphaNum(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// isAlphaNum reports whether c is an ASCII letter or digit.
func isAlphaNum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// parseNode reads an RFC 7239 node: an IPv4 address or a bracketed IPv6 address, each with an
// optional port (digits, or an obfuscated "_..." one). "unknown", obfuscated identifiers
// ("_hidden") and anything else are unusable hops.
func parseNode(node string) hop {
	host, port := node, ""
	bracketed := strings.HasPrefix(node, "[")
	if bracketed {
		end := strings.IndexByte(node, ']')
		if end < 0 {
			return hop{}
		}
		host, port = node[1:end], node[end+1:]
		if port != "" {
			if port[0] != ':' {
				return hop{}
			}
			port = port[1:]
			if !validNodePort(port) {
				return hop{}
			}
		}
	} else if h, p, found := strings.Cut(node, ":"); found {
		if !validNodePort(p) {
			return hop{}
		}
		host = h
	}
	a, err := netip.ParseAddr(host)
	if err != nil || bracketed != a.Is6() {
		return hop{}
	}
	return hop{addr: normalAddr(a), ok: true}
}

// validNodePort accepts an RFC 7239 node-port: 1 to 5 digits, or "_" and letters, digits, ".",
// "_" or "-" (an obfuscated port, which leaves the address usable).
func validNodePort(p string) bool {
	if p == "" {
		return false
	}
	if p[0] == '_' {
		for i := 1; i < len(p); i++ {
			c := p[i]
			if !isAlphaNum(c) && strings.IndexByte("._-", c) < 0 {
				return false
			}
		}
		return len(p) > 1
	}
	if len(p) > 5 {
		return false
	}
	for i := range len(p) {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return true
}

// normalAddr is a as limits count it: an IPv4-mapped address as IPv4, without an IPv6 zone.
func normalAddr(a netip.Addr) netip.Addr {
	return a.Unmap().WithZone("")
}

// peerHost is the host part of a RemoteAddr that is not an IP address and port, or all of it.
func peerHost(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote
	}
	return host
}

// clientIP is the client address of r (see clientAddr): computed once by withRequestID for
// every consumer (the failed-authentication limit, the per-client rate limits, the access log),
// and the peer for a request that did not pass it (a test calling a handler directly).
func clientIP(r *http.Request) string {
	if c := accessOf(r.Context()).client; c != "" {
		return c
	}
	return trustedProxies(nil).clientAddr(r)
}
