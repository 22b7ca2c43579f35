package delivery

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

// Targets is the rule of which addresses webhook attempts may connect to: every globally
// reachable address, that is every address but those the IANA special-purpose registries say are
// not (specialRanges), plus the ranges the operator admits (--webhook-allow-cidr) and, with
// AllowLoopback (--allow-http-webhooks, for tests), this machine's loopback addresses. An address
// that stands for an IPv4 address (6to4 2002::/16, NAT64 64:ff9b::/96, IPv4-mapped) is judged by
// that IPv4 address, admitted ranges included. The zero value is the strict rule.
type Targets struct {
	AllowLoopback bool
	Allow         []netip.Prefix
}

// Permits reports whether an attempt may connect to addr.
func (t Targets) Permits(addr netip.Addr) bool {
	// An IPv4-mapped address is dialled as its IPv4 address; a zoned one matches no prefix
	// (fe80::1%eth0 would pass).
	addr = addr.Unmap().WithZone("")
	if !addr.IsValid() {
		return false
	}
	if t.AllowLoopback && addr.IsLoopback() {
		return true // this machine's own receivers; not the loopback inside a 6to4 or NAT64 address
	}
	return t.reaches(addr)
}

// reaches reports whether addr is admitted (--webhook-allow-cidr) or globally reachable, and, for
// an address that stands for an IPv4 address, whether that one is too. It recurses at most once:
// only IPv6 ranges stand for an IPv4 address, and an IPv4 address embeds nothing.
func (t Targets) reaches(addr netip.Addr) bool {
	for _, p := range t.Allow {
		if p.Contains(addr) {
			return true
		}
	}
	r, special := lookupSpecial(addr)
	if !special {
		return true
	}
	switch r.reach {
	case global:
		return true
	case viaIPv4:
		return t.reaches(r.embeddedIPv4(addr))
	default:
		return false
	}
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
		return errors.New("is a special-purpose address that is not globally reachable (loopback, private, " +
			"link-local, shared, documentation, benchmarking, reserved, multicast, broadcast, or a 6to4 or " +
			"NAT64 address of one); webhooks must reach a public address")
	}
	return nil
}

// Control is a net.Dialer's Control: it runs for every address a connection is about to be
// made to, after name resolution, and refuses those the rule refuses with ErrRefusedTarget.
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
