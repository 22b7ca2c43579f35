package server

import (
	"strings"
	"testing"
)

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
