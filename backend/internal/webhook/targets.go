package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// ErrRefusedTarget is the error of an attempt to an address webhooks may not reach (see
// Targets). The refusal happens before any connection is made.
var ErrRefusedTarget = errors.New("webhook target refused: the address is internal")

// internalPrefixes are the addresses no webhook may reach unless the operator admits them:
// what is not the public internet, where a tenant's URL could reach the operator's own
// services (loopback, private networks, the cloud metadata address on link-local, carrier-grade
// NAT) or no single host at all (unspecified, multicast, broadcast, reserved).
var internalPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network", with the unspecified address
	netip.MustParsePrefix("127.0.0.0/8"),        // loopback
	netip.MustParsePrefix("10.0.0.0/8"),         // private
	netip.MustParsePrefix("172.16.0.0/12"),      // private
	netip.MustParsePrefix("192.168.0.0/16"),     // private
	netip.MustParsePrefix("169.254.0.0/16"),     // link-local, with the metadata address 169.254.169.254
	netip.MustParsePrefix("100.64.0.0/10"),      // carrier-grade NAT
	netip.MustParsePrefix("224.0.0.0/4"),        // multicast
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved, with the broadcast address
	netip.MustParsePrefix("::/128"),             // unspecified
	netip.MustParsePrefix("::1/128"),            // loopback
	netip.MustParsePrefix("fc00::/7"),           // unique local (private)
	netip.MustParsePrefix("fe80::/10"),          // link-local
	netip.MustParsePrefix("ff00::/8"),           // multicast
	netip.MustParsePrefix("64:ff9b::/96"),       // NAT64: an IPv4 address (such as 127.0.0.1) in disguise
	netip.MustParsePrefix("255.255.255.255/32"), // broadcast (inside 240/4; named for the reader)
}

// Targets is the rule of which addresses webhook attempts may connect to: every address but
// the internal ones, plus the ranges the operator admits (--webhook-allow-cidr) and, with
// AllowLoopback (--allow-http-webhooks, for tests), this machine's loopback addresses. The zero
// value is the strict rule.
type Targets struct {
	AllowLoopback bool
	Allow         []netip.Prefix
}

// Permits reports whether an attempt may connect to addr.
func (t Targets) Permits(addr netip.Addr) bool {
	addr = addr.Unmap().WithZone("") // a zoned address matches no prefix: fe80::1%eth0 would pass
	if !addr.IsValid() {
		return false
	}
	for _, p := range t.Allow {
		if p.Contains(addr) {
			return true
		}
	}
	if t.AllowLoopback && addr.IsLoopback() {
		return true
	}
	for _, p := range internalPrefixes {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// CheckHost reports, at registration, whether host (a URL's hostname) is an address the rule
// refuses: a literal address or localhost. A name is resolved only when an attempt dials it,
// and each address it resolves to is checked there (Control), so a name that resolves inside, or
// is rebound later, gets no connection either.
func (t Targets) CheckHost(host string) error {
	if isLocalhost(host) {
		if t.AllowLoopback {
			return nil
		}
		return fmt.Errorf("names this machine (%s); webhooks must reach a public address", host)
	}
	addr, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return nil //nolint:nilerr // a name, checked when dialled
	}
	if !t.Permits(addr) {
		return errors.New("is an internal address (loopback, private, link-local, carrier-grade NAT, " +
			"unspecified, multicast or broadcast); webhooks must reach a public address")
	}
	return nil
}

// Control is a net.Dialer's Control: it runs for every address a connection is about to be
// made to, after name resolution, and refuses the internal ones with ErrRefusedTarget.
func (t Targets) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable address %q", ErrRefusedTarget, address)
	}
	if !t.Permits(ap.Addr()) {
		return ErrRefusedTarget
	}
	return nil
}

// isLocalhost reports whether host is localhost or a name under .localhost, which resolvers
// answer with loopback (RFC 6761).
func isLocalhost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// dialer returns the dialer of the attempts: every address it connects to is checked by t,
// names resolved by resolver (nil: the system's).
func (t Targets) dialer(resolver *net.Resolver) *net.Dialer {
	return &net.Dialer{Control: t.Control, Resolver: resolver}
}
