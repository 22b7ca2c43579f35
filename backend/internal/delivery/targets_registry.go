package delivery

import "net/netip"

// reach is what an address range means for a webhook target.
type reach uint8

const (
	// refused: not globally reachable (the registry's "Globally Reachable" is False, or N/A for a
	// range that is no single public host), or no single host at all.
	refused reach = iota
	// global: the registry marks the range globally reachable; the address is dialled as it is.
	global
	// viaIPv4: the address stands for the IPv4 address written inside it (6to4, the well-known
	// NAT64 prefix, IPv4-mapped): that IPv4 address decides, by the same rule.
	viaIPv4
)

// specialRange is one entry of the IANA special-purpose registries (or one of the few other
// ranges no webhook may reach), with what it means for a target.
type specialRange struct {
	prefix netip.Prefix
	name   string
	reach  reach
	// ipv4At is, for viaIPv4, the byte offset of the embedded IPv4 address in the IPv6 address.
	ipv4At int
}

// specialRanges is every range the webhook rule knows, in one place: each entry of the IANA IPv4
// and IPv6 Special-Purpose Address Registries (the versions backend/docs/sharing-safely.md names) with its
// "Globally Reachable" column, plus multicast and the deprecated IPv4-compatible and site-local
// IPv6 prefixes, which are in other registries. Entries nest (192.0.0.9/32 inside 192.0.0.0/24,
// 2001:1::1/128 inside 2001::/23): the longest prefix containing an address decides, as the
// registry's notes say ("unless allowed by a more specific allocation"). An address in no entry
// is an ordinary public address.
var specialRanges = []specialRange{
	// IANA IPv4 Special-Purpose Address Registry.
	{prefix: p("0.0.0.0/8"), name: "this network", reach: refused},
	{prefix: p("0.0.0.0/32"), name: "this host on this network", reach: refused},
	{prefix: p("10.0.0.0/8"), name: "private-use", reach: refused},
	{prefix: p("100.64.0.0/10"), name: "shared address space (carrier-grade NAT)", reach: refused},
	{prefix: p("127.0.0.0/8"), name: "loopback", reach: refused},
	{prefix: p("169.254.0.0/16"), name: "link-local (with the metadata address 169.254.169.254)", reach: refused},
	{prefix: p("172.16.0.0/12"), name: "private-use", reach: refused},
	{prefix: p("192.0.0.0/24"), name: "IETF protocol assignments", reach: refused},
	{prefix: p("192.0.0.0/29"), name: "IPv4 service continuity prefix", reach: refused},
	{prefix: p("192.0.0.8/32"), name: "IPv4 dummy address", reach: refused},
	{prefix: p("192.0.0.9/32"), name: "Port Control Protocol anycast", reach: global},
	{prefix: p("192.0.0.10/32"), name: "TURN anycast", reach: global},
	{prefix: p("192.0.0.170/32"), name: "NAT64/DNS64 discovery", reach: refused},
	{prefix: p("192.0.0.171/32"), name: "NAT64/DNS64 discovery", reach: refused},
	{prefix: p("192.0.2.0/24"), name: "documentation (TEST-NET-1)", reach: refused},
	{prefix: p("192.31.196.0/24"), name: "AS112-v4", reach: global},
	{prefix: p("192.52.193.0/24"), name: "AMT", reach: global},
	{prefix: p("192.88.99.0/24"), name: "deprecated 6to4 relay anycast (columns N/A)", reach: refused},
	{prefix: p("192.88.99.2/32"), name: "6a44-relay anycast", reach: refused},
	{prefix: p("192.168.0.0/16"), name: "private-use", reach: refused},
	{prefix: p("192.175.48.0/24"), name: "direct delegation AS112 service", reach: global},
	{prefix: p("198.18.0.0/15"), name: "benchmarking", reach: refused},
	{prefix: p("198.51.100.0/24"), name: "documentation (TEST-NET-2)", reach: refused},
	{prefix: p("203.0.113.0/24"), name: "documentation (TEST-NET-3)", reach: refused},
	{prefix: p("240.0.0.0/4"), name: "reserved", reach: refused},
	{prefix: p("255.255.255.255/32"), name: "limited broadcast", reach: refused},

	// IANA IPv6 Special-Purpose Address Registry.
	{prefix: p("::1/128"), name: "loopback", reach: refused},
	{prefix: p("::/128"), name: "unspecified", reach: refused},
	{prefix: p("::ffff:0:0/96"), name: "IPv4-mapped", reach: viaIPv4, ipv4At: 12},
	{prefix: p("64:ff9b::/96"), name: "IPv4-IPv6 translation (well-known NAT64)", reach: viaIPv4, ipv4At: 12},
	{prefix: p("64:ff9b:1::/48"), name: "local-use IPv4-IPv6 translation (whatever it embeds)", reach: refused},
	{prefix: p("100::/64"), name: "discard-only", reach: refused},
	{prefix: p("100:0:0:1::/64"), name: "dummy IPv6 prefix", reach: refused},
	{prefix: p("2001::/23"), name: "IETF protocol assignments", reach: refused},
	{prefix: p("2001::/32"), name: "Teredo (N/A; embeds an obfuscated IPv4 address)", reach: refused},
	{prefix: p("2001:1::1/128"), name: "Port Control Protocol anycast", reach: global},
	{prefix: p("2001:1::2/128"), name: "TURN anycast", reach: global},
	{prefix: p("2001:1::3/128"), name: "DNS-SD service registration protocol anycast", reach: global},
	{prefix: p("2001:2::/48"), name: "benchmarking", reach: refused},
	{prefix: p("2001:3::/32"), name: "AMT", reach: global},
	{prefix: p("2001:4:112::/48"), name: "AS112-v6", reach: global},
	{prefix: p("2001:10::/28"), name: "deprecated ORCHID (N/A)", reach: refused},
	{prefix: p("2001:20::/28"), name: "ORCHIDv2", reach: global},
	{prefix: p("2001:30::/28"), name: "drone remote ID entity tags", reach: global},
	{prefix: p("2001:db8::/32"), name: "documentation", reach: refused},
	{prefix: p("2002::/16"), name: "6to4 (N/A; reaches the IPv4 address it embeds)", reach: viaIPv4, ipv4At: 2},
	{prefix: p("2620:4f:8000::/48"), name: "direct delegation AS112 service", reach: global},
	{prefix: p("3fff::/20"), name: "documentation", reach: refused},
	{prefix: p("5f00::/16"), name: "segment routing (SRv6) SIDs", reach: refused},
	{prefix: p("fc00::/7"), name: "unique-local", reach: refused},
	{prefix: p("fe80::/10"), name: "link-local unicast", reach: refused},

	// Not in the special-purpose registries, refused all the same.
	{prefix: p("224.0.0.0/4"), name: "IPv4 multicast (no single host)", reach: refused},
	{prefix: p("ff00::/8"), name: "IPv6 multicast (no single host)", reach: refused},
	{prefix: p("::/96"), name: "deprecated IPv4-compatible (RFC 4291), whatever it embeds", reach: refused},
	{prefix: p("fec0::/10"), name: "deprecated site-local (RFC 3879)", reach: refused},
}

// p parses a prefix of the table above; a typo there panics at start, in every test.
func p(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// lookupSpecial returns the most specific range containing addr (a valid, unzoned address; an
// IPv4-mapped one is matched as IPv6), and false for an ordinary address.
func lookupSpecial(addr netip.Addr) (specialRange, bool) {
	var best specialRange
	found := false
	for _, r := range specialRanges {
		if r.prefix.Contains(addr) && (!found || r.prefix.Bits() > best.prefix.Bits()) {
			best, found = r, true
		}
	}
	return best, found
}

// embeddedIPv4 returns the IPv4 address r says addr stands for.
func (r specialRange) embeddedIPv4(addr netip.Addr) netip.Addr {
	b := addr.As16()
	return netip.AddrFrom4([4]byte(b[r.ipv4At : r.ipv4At+4]))
}

// NotGlobalIPv4 is every IPv4 address the strict rule (Targets' zero value) refuses, as
// prefixes that do not overlap, in the registry's order: each refused range less the globally
// reachable ranges nested in it (192.0.0.9/32 inside 192.0.0.0/24). It is for rules that cannot
// take "the longest prefix decides", such as a firewall's list of destinations to reject
// (--machines-egress): any address in none of them is one a webhook may reach.
func NotGlobalIPv4() []netip.Prefix {
	var out []netip.Prefix
	for _, r := range specialRanges {
		if r.reach != refused || !r.prefix.Addr().Is4() || insideRefused(r.prefix) {
			continue
		}
		parts := []netip.Prefix{r.prefix}
		for _, g := range specialRanges {
			if g.reach != refused && g.prefix.Bits() > r.prefix.Bits() && r.prefix.Overlaps(g.prefix) {
				parts = excludePrefix(parts, g.prefix)
			}
		}
		out = append(out, parts...)
	}
	return out
}

// insideRefused says whether the most specific range strictly containing p is refused, so
// that range's own prefixes already hold p's addresses.
func insideRefused(p netip.Prefix) bool {
	var outer specialRange
	found := false
	for _, r := range specialRanges {
		if r.prefix.Bits() < p.Bits() && r.prefix.Contains(p.Addr()) && (!found || r.prefix.Bits() > outer.prefix.Bits()) {
			outer, found = r, true
		}
	}
	return found && outer.reach == refused
}

// excludePrefix is parts without the addresses of hole: a part that holds hole is split in
// halves until no half overlaps it but those inside it, which are dropped.
func excludePrefix(parts []netip.Prefix, hole netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range parts {
		switch {
		case !p.Overlaps(hole):
			out = append(out, p)
		case p.Bits() >= hole.Bits(): // inside the hole
		default:
			lo := netip.PrefixFrom(p.Addr(), p.Bits()+1)
			hi := netip.PrefixFrom(lastAddr(lo).Next(), p.Bits()+1)
			out = append(out, excludePrefix([]netip.Prefix{lo, hi}, hole)...)
		}
	}
	return out
}

// lastAddr is the last address of the masked prefix p.
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3]) | (uint32(1)<<(32-p.Bits()) - 1)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}
