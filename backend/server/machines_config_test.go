package server

import (
	"net/netip"
	"slices"
	"testing"
)

// TestMachinesConfigHandsEgressAllowToTheRuntime: --machines-egress-allow-cidr's ranges reach
// the machine runtime's options with egress, and are refused without it or for IPv6.
func TestMachinesConfigHandsEgressAllowToTheRuntime(t *testing.T) {
	allow := []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}
	c := MachinesConfig{Mode: MachinesSandbox, Dir: "/srv/m", Egress: true, EgressAllow: allow}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := c.options(nil).EgressAllow; !slices.Equal(got, allow) {
		t.Fatalf("options' EgressAllow %v, want %v", got, allow)
	}
	for _, bad := range []MachinesConfig{
		{Mode: MachinesSandbox, EgressAllow: allow},
		{Mode: MachinesSandbox, Egress: true, EgressAllow: []netip.Prefix{netip.MustParsePrefix("fd00::/64")}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v): nil, want a refusal", bad)
		}
	}
}
