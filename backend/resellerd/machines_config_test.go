package resellerd

import (
	"net/netip"
	"slices"
	"strings"
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

// TestMachinesPidsMaxOption: --machines-pids-max reaches the machine runtime, 0 there meaning
// the runtime's default, and Validate refuses a cap out of bounds naming the flag.
func TestMachinesPidsMaxOption(t *testing.T) {
	if got := (MachinesConfig{Dir: "d", PidsMax: 64}).options(nil).PidsMax; got != 64 {
		t.Errorf("options().PidsMax = %d, want 64", got)
	}
	for _, c := range []struct {
		n       int
		wantErr bool
	}{{0, false}, {32, false}, {4096, false}, {31, true}, {-1, true}, {1<<22 + 1, true}} {
		err := MachinesConfig{PidsMax: c.n}.Validate()
		if (err != nil) != c.wantErr || (err != nil && !strings.Contains(err.Error(), "--machines-pids-max")) {
			t.Errorf("Validate with PidsMax %d: %v, want an error naming --machines-pids-max: %v", c.n, err, c.wantErr)
		}
	}
}
