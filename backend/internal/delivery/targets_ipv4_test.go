package delivery

import (
	"net/netip"
	"testing"
)

// TestNotGlobalIPv4IsTheStrictRule: an IPv4 address is in NotGlobalIPv4 exactly when the strict
// rule refuses it, checked at the edges of every registry entry (where a nested entry changes
// the answer) and at ordinary addresses; the prefixes do not overlap.
func TestNotGlobalIPv4IsTheStrictRule(t *testing.T) {
	list := NotGlobalIPv4()
	in := func(a netip.Addr) bool {
		for _, p := range list {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	probes := []netip.Addr{netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("1.1.1.1"), netip.MustParseAddr("169.254.169.254")}
	for _, r := range specialRanges {
		if !r.prefix.Addr().Is4() {
			continue
		}
		first, last := r.prefix.Addr(), lastAddr(r.prefix)
		probes = append(probes, first, last, first.Prev(), last.Next())
	}
	for _, a := range probes {
		if !a.IsValid() {
			continue
		}
		if got, want := in(a), !(Targets{}).Permits(a); got != want {
			t.Errorf("%s: in NotGlobalIPv4 %v, want %v (the strict rule refuses it: %v)", a, got, want, want)
		}
	}
	for i, p := range list {
		for _, q := range list[i+1:] {
			if p.Overlaps(q) {
				t.Errorf("%s overlaps %s", p, q)
			}
		}
	}
}
