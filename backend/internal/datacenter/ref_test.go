package datacenter

import (
	"math"
	"testing"
)

func TestMachineRefRoundTrip(t *testing.T) {
	for _, id := range []int64{1, 9, 10, 42, 1 << 40, math.MaxInt64} {
		ref := MachineRef(id)
		got, ok := OrderOfRef(ref)
		if !ok || got != id {
			t.Errorf("OrderOfRef(MachineRef(%d) = %q) = %d, %v; want %d, true", id, ref, got, ok, id)
		}
	}
	if got := MachineRef(42); got != "vm-42" {
		t.Errorf("MachineRef(42) = %q, want vm-42 (stored refs keep this form)", got)
	}
}

func TestOrderOfRefRejectsOtherForms(t *testing.T) {
	for _, ref := range []string{
		"", "vm-", "vm", "42", "vm-x", "vm-4x", "vm-0", "vm--3", "vm-+3", "vm-007", "VM-3", " vm-3", "vm-3 ",
		"vm-9223372036854775808", // beyond int64
		"host-3", "m",
	} {
		if id, ok := OrderOfRef(ref); ok || id != 0 {
			t.Errorf("OrderOfRef(%q) = %d, %v; want 0, false", ref, id, ok)
		}
	}
}
