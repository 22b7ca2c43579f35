package delivery

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/delivery/webhooktest"
)

// TestTargetsRefuseInternalAddresses: every class of internal address is refused by the strict
// rule, a public one permitted; --allow-http-webhooks admits loopback only, and
// --webhook-allow-cidr the ranges it names.
func TestTargetsRefuseInternalAddresses(t *testing.T) {
	t.Parallel()
	loopback := Targets{AllowLoopback: true}
	admitted := Targets{Allow: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")}}
	tests := []struct {
		addr                string
		strict, loop, admit bool // permitted by Targets{}, loopback, admitted
	}{
		{"93.184.216.34", true, true, true},
		{"2606:2800:220:1:248:1893:25c8:1946", true, true, true},
		{"127.0.0.1", false, true, false},
		{"127.1.2.3", false, true, false},
		{"::1", false, true, false},
		{"::ffff:127.0.0.1", false, true, false},
		{"10.0.0.1", false, false, false},
		{"10.20.3.4", false, false, true},
		{"172.16.0.1", false, false, false},
		{"172.31.255.255", false, false, false},
		{"192.168.1.1", false, false, false},
		{"fc00::1", false, false, false},
		{"fd12:3456::1", false, false, false},
		{"169.254.169.254", false, false, false},
		{"fe80::1", false, false, false},
		{"fe80::1%eth0", false, false, false},
		{"::1%lo", false, true, false},
		{"100.64.0.1", false, false, false},
		{"100.127.255.254", false, false, false},
		{"0.0.0.0", false, false, false},
		{"::", false, false, false},
		{"224.0.0.1", false, false, false},
		{"ff02::1", false, false, false},
		{"255.255.255.255", false, false, false},
		{"::ffff:10.0.0.1", false, false, false},
		{"64:ff9b::7f00:1", false, false, false},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := (Targets{}).Permits(a); got != tt.strict {
			t.Errorf("strict Permits(%s) = %v, want %v", a, got, tt.strict)
		}
		if got := loopback.Permits(a); got != tt.loop {
			t.Errorf("AllowLoopback Permits(%s) = %v, want %v", a, got, tt.loop)
		}
		if got := admitted.Permits(a); got != tt.admit {
			t.Errorf("Allow 10.20/16 Permits(%s) = %v, want %v", a, got, tt.admit)
		}
	}
}

func TestTargetsCheckHost(t *testing.T) {
	t.Parallel()
	for _, host := range []string{"localhost", "LocalHost.", "api.localhost", "127.0.0.1", "[::1]", "::1",
		"169.254.169.254", "10.1.2.3", "0.0.0.0", "fe80::1%eth0"} {
		if err := (Targets{}).CheckHost(host); err == nil {
			t.Errorf("CheckHost(%q) = nil, want refused", host)
		}
	}
	for _, host := range []string{"hooks.example.com", "93.184.216.34", "localhost.example.com"} {
		if err := (Targets{}).CheckHost(host); err != nil {
			t.Errorf("CheckHost(%q) = %v, want permitted", host, err)
		}
	}
	if err := (Targets{AllowLoopback: true}).CheckHost("localhost"); err != nil {
		t.Errorf("CheckHost(localhost) with loopback allowed = %v", err)
	}
}

// TestSenderRefusesANameResolvingInside: a name that resolves to loopback (the test's own
// resolver answers 127.0.0.1) gets no connection under the strict rule: the listener sees none.
// The same name and resolver with loopback admitted do connect, so the refusal is the rule's.
func TestSenderRefusesANameResolvingInside(t *testing.T) {
	t.Parallel()
	srv, conns := webhooktest.CountingServer(t, false)
	resolver := webhooktest.Resolver(netip.MustParseAddr("127.0.0.1"))
	m := Message{URL: webhooktest.HostPort(srv.URL, "hooks.rebound.test") + "/hook", Secret: "whsec_0123456789abcdef",
		Event: "ping", DeliveryID: "dlv_1", Body: []byte(`{}`), At: time.Now()}

	status, err := NewHTTPSender(Targets{}, resolver).Send(context.Background(), m)
	if !errors.Is(err, ErrRefusedTarget) || status != 0 {
		t.Fatalf("Send to a name resolving to 127.0.0.1 = %d, %v; want ErrRefusedTarget", status, err)
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the listener saw %d connections, want none", n)
	}

	status, err = NewHTTPSender(Targets{AllowLoopback: true}, resolver).Send(context.Background(), m)
	if err != nil || status != http.StatusNoContent || conns.Load() != 1 {
		t.Fatalf("with loopback admitted: %d, %v, %d connections; want 204 over one", status, err, conns.Load())
	}
}

// registryCase is one row of TestTargetsFollowTheSpecialPurposeRegistries: an address inside
// entry (and in no more specific entry), and whether the strict rule lets a webhook reach it.
type registryCase struct {
	entry   string // the registry entry (or "" for an ordinary address)
	addr    string
	permits bool
	why     string // the registry's "Globally Reachable" column, or why the outcome
}

// registryCases lists each entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (the versions backend/docs/sharing-safely.md names), the ranges refused beside them, and the addresses that
// stand for an IPv4 address, with the outcome the registry's "Globally Reachable" column gives.
var registryCases = []registryCase{
	// IPv4 registry.
	{"0.0.0.0/8", "0.1.2.3", false, "False"},
	{"0.0.0.0/32", "0.0.0.0", false, "False"},
	{"10.0.0.0/8", "10.255.255.255", false, "False"},
	{"100.64.0.0/10", "100.127.255.254", false, "False"},
	{"127.0.0.0/8", "127.0.0.1", false, "False"},
	{"169.254.0.0/16", "169.254.169.254", false, "False"},
	{"172.16.0.0/12", "172.31.255.255", false, "False"},
	{"192.0.0.0/24", "192.0.0.100", false, "False (unless a more specific entry says otherwise)"},
	{"192.0.0.0/29", "192.0.0.1", false, "False"},
	{"192.0.0.8/32", "192.0.0.8", false, "False"},
	{"192.0.0.9/32", "192.0.0.9", true, "True (PCP anycast)"},
	{"192.0.0.10/32", "192.0.0.10", true, "True (TURN anycast)"},
	{"192.0.0.170/32", "192.0.0.170", false, "False"},
	{"192.0.0.171/32", "192.0.0.171", false, "False"},
	{"192.0.2.0/24", "192.0.2.1", false, "False"},
	{"192.31.196.0/24", "192.31.196.1", true, "True (AS112-v4)"},
	{"192.52.193.0/24", "192.52.193.1", true, "True (AMT)"},
	{"192.88.99.0/24", "192.88.99.1", false, "N/A, deprecated: refused"},
	{"192.88.99.2/32", "192.88.99.2", false, "False"},
	{"192.168.0.0/16", "192.168.1.1", false, "False"},
	{"192.175.48.0/24", "192.175.48.1", true, "True (AS112 direct delegation)"},
	{"198.18.0.0/15", "198.19.255.255", false, "False"},
	{"198.51.100.0/24", "198.51.100.1", false, "False"},
	{"203.0.113.0/24", "203.0.113.1", false, "False"},
	{"240.0.0.0/4", "240.0.0.1", false, "False"},
	{"255.255.255.255/32", "255.255.255.255", false, "False"},

	// IPv6 registry.
	{"::1/128", "::1", false, "False"},
	{"::/128", "::", false, "False"},
	{"::ffff:0:0/96", "::ffff:10.0.0.1", false, "dialled as its IPv4 address: 10.0.0.1 is False"},
	{"::ffff:0:0/96", "::ffff:8.8.8.8", true, "dialled as its IPv4 address: 8.8.8.8 is public"},
	{"64:ff9b::/96", "64:ff9b::a9fe:a9fe", false, "True, but the IPv4 inside (169.254.169.254) is False"},
	{"64:ff9b::/96", "64:ff9b::7f00:1", false, "True, but the IPv4 inside (127.0.0.1) is False"},
	{"64:ff9b::/96", "64:ff9b::808:808", true, "True, and the IPv4 inside (8.8.8.8) is public"},
	{"64:ff9b:1::/48", "64:ff9b:1::a9fe:a9fe", false, "False (169.254.169.254 inside)"},
	{"64:ff9b:1::/48", "64:ff9b:1::808:808", false, "False, whatever it embeds (the translator is someone's own)"},
	{"100::/64", "100::1", false, "False"},
	{"100:0:0:1::/64", "100:0:0:1::1", false, "False"},
	{"2001::/23", "2001:1::4", false, "False (unless a more specific entry says otherwise)"},
	{"2001::/23", "2001:1ff:ffff::1", false, "False"},
	{"2001::/32", "2001:0:4136:e378:8000:63bf:3fff:fdd2", false, "N/A (Teredo): refused"},
	{"2001:1::1/128", "2001:1::1", true, "True (PCP anycast)"},
	{"2001:1::2/128", "2001:1::2", true, "True (TURN anycast)"},
	{"2001:1::3/128", "2001:1::3", true, "True (DNS-SD SRP anycast)"},
	{"2001:2::/48", "2001:2::1", false, "False"},
	{"2001:3::/32", "2001:3::1", true, "True (AMT)"},
	{"2001:4:112::/48", "2001:4:112::1", true, "True (AS112-v6)"},
	{"2001:10::/28", "2001:10::1", false, "N/A, deprecated ORCHID: refused"},
	{"2001:20::/28", "2001:20::1", true, "True (ORCHIDv2)"},
	{"2001:30::/28", "2001:30::1", true, "True (drone remote ID DETs)"},
	{"2001:db8::/32", "2001:db8::1", false, "False"},
	{"2002::/16", "2002:a9fe:a9fe::", false, "N/A (6to4): the IPv4 inside (169.254.169.254) is False"},
	{"2002::/16", "2002:7f00:1::1", false, "N/A (6to4): the IPv4 inside (127.0.0.1) is False"},
	{"2002::/16", "2002:c000:201::", false, "N/A (6to4): the IPv4 inside (192.0.2.1) is False"},
	{"2002::/16", "2002:808:808::1", true, "N/A (6to4): the IPv4 inside (8.8.8.8) is public"},
	{"2620:4f:8000::/48", "2620:4f:8000::1", true, "True (AS112 direct delegation)"},
	{"3fff::/20", "3fff:fff:ffff::1", false, "False"},
	{"5f00::/16", "5f00::1", false, "False"},
	{"fc00::/7", "fd12:3456::1", false, "False"},
	{"fe80::/10", "fe80::1", false, "False"},

	// Outside the special-purpose registries, refused all the same.
	{"224.0.0.0/4", "224.0.0.251", false, "multicast: no single host"},
	{"ff00::/8", "ff02::1", false, "multicast: no single host"},
	{"::/96", "::a9fe:a9fe", false, "deprecated IPv4-compatible: refused whatever it embeds"},
	{"::/96", "::808:808", false, "deprecated IPv4-compatible: refused whatever it embeds"},
	{"fec0::/10", "fec0::1", false, "deprecated site-local"},

	// Ordinary addresses, next to special ones.
	{"", "8.8.8.8", true, "public"},
	{"", "192.0.1.255", true, "public, just below 192.0.2.0/24"},
	{"", "198.20.0.1", true, "public, just above 198.18.0.0/15"},
	{"", "2606:4700:4700::1111", true, "public"},
	{"", "2001:200::1", true, "public, just above 2001::/23"},
	{"", "3fff:1000::1", true, "public, just above 3fff::/20"},
}

// TestTargetsFollowTheSpecialPurposeRegistries: each registry entry's outcome under the strict
// rule (the address given is inside the entry and in no more specific one), and every entry of
// the rule's table is listed here, so a range added to one and not the other fails.
func TestTargetsFollowTheSpecialPurposeRegistries(t *testing.T) {
	t.Parallel()
	listed := map[netip.Prefix]bool{}
	for _, c := range registryCases {
		a := netip.MustParseAddr(c.addr)
		if c.entry != "" {
			entry := netip.MustParsePrefix(c.entry)
			listed[entry] = true
			if !entry.Contains(a) {
				t.Fatalf("case %s: %s is not inside the entry", c.entry, c.addr)
			}
			if r, ok := lookupSpecial(a); !ok || r.prefix != entry {
				t.Errorf("%s is matched by %v, want its own entry %s", c.addr, r.prefix, c.entry)
			}
		}
		if got := (Targets{}).Permits(a); got != c.permits {
			t.Errorf("Permits(%s) in %s = %v, want %v (%s)", c.addr, c.entry, got, c.permits, c.why)
		}
	}
	for _, r := range specialRanges {
		if r.reach == viaIPv4 && (!r.prefix.Addr().Is6() || r.prefix.Bits() > r.ipv4At*8) {
			t.Errorf("range %s stands for an IPv4 address at byte %d: not an IPv6 prefix before it", r.prefix, r.ipv4At)
		}
		if !listed[r.prefix] {
			t.Errorf("the rule's range %s (%s) has no case here", r.prefix, r.name)
		}
	}
}

// TestTargetsAdmitAndLoopbackWithEmbeddedIPv4: --webhook-allow-cidr admits the IPv4 address inside
// a 6to4 or well-known NAT64 address as it admits the address itself, but not the local-use
// NAT64 prefix (not globally reachable, whatever it embeds) unless that prefix is named;
// --allow-http-webhooks admits this machine's loopback only, not a 6to4 or NAT64 form of it.
func TestTargetsAdmitAndLoopbackWithEmbeddedIPv4(t *testing.T) {
	t.Parallel()
	admitted := Targets{Allow: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")}}
	localNAT64 := Targets{Allow: []netip.Prefix{netip.MustParsePrefix("64:ff9b:1::/48")}}
	loopback := Targets{AllowLoopback: true}
	tests := []struct {
		targets Targets
		addr    string
		want    bool
	}{
		{admitted, "2002:a14:304::", true},
		{admitted, "64:ff9b::a14:304", true},
		{admitted, "::ffff:10.20.3.4", true},
		{admitted, "2002:a15:304::", false},
		{admitted, "64:ff9b:1::a14:304", false},
		{admitted, "::a14:304", false},
		{localNAT64, "64:ff9b:1::a9fe:a9fe", true},
		{localNAT64, "64:ff9b::a9fe:a9fe", false},
		{loopback, "127.0.0.1", true},
		{loopback, "::1", true},
		{loopback, "2002:7f00:1::", false},
		{loopback, "64:ff9b::7f00:1", false},
		{loopback, "::7f00:1", false},
	}
	for _, tt := range tests {
		if got := tt.targets.Permits(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("%+v Permits(%s) = %v, want %v", tt.targets, tt.addr, got, tt.want)
		}
	}
}

// TestTargetsRefuseEmbeddedIPv4AtRegistrationAndDial: literal hosts that embed an internal IPv4
// address (NAT64, 6to4, IPv4-compatible) or lie in another special-purpose range are refused at
// registration (CheckHost), while those embedding a public one are permitted; and a name
// resolving to the local NAT64 form of the metadata address gets no connection: the dialer's
// check refuses it (ErrRefusedTarget) instead of dialling it.
func TestTargetsRefuseEmbeddedIPv4AtRegistrationAndDial(t *testing.T) {
	t.Parallel()
	for _, host := range []string{"[64:ff9b:1::a9fe:a9fe]", "[2002:a9fe:a9fe::]", "[64:ff9b::a9fe:a9fe]",
		"[2001::1]", "[100::1]", "198.18.0.1", "192.0.0.170", "[fec0::1]", "[::a9fe:a9fe]"} {
		if err := (Targets{}).CheckHost(host); err == nil {
			t.Errorf("CheckHost(%q) = nil, want refused", host)
		}
	}
	for _, host := range []string{"[2002:808:808::]", "[64:ff9b::808:808]", "192.0.0.9", "[2001:1::1]"} {
		if err := (Targets{}).CheckHost(host); err != nil {
			t.Errorf("CheckHost(%q) = %v, want permitted", host, err)
		}
	}

	for _, addr := range []string{"64:ff9b:1::a9fe:a9fe", "2002:a9fe:a9fe::1"} {
		// The refusal comes at once; the minute only keeps a broken test from hanging.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		m := Message{URL: "https://hooks.nat64.test/hook", Secret: "whsec_0123456789abcdef",
			Event: "ping", DeliveryID: "dlv_1", Body: []byte(`{}`), At: time.Now()}
		status, err := NewHTTPSender(Targets{}, webhooktest.Resolver(netip.MustParseAddr(addr))).Send(ctx, m)
		cancel()
		if !errors.Is(err, ErrRefusedTarget) || status != 0 {
			t.Errorf("Send to a name resolving to %s = %d, %v; want ErrRefusedTarget", addr, status, err)
		}
	}
}
