package machineinit

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestIdleTurnsCollectingOff: an idle process collects nothing more on its own (no forced
// collection every two minutes), under a memory limit just above what it holds after Idle's
// collection; Busy gives it back the settings it had.
func TestIdleTurnsCollectingOff(t *testing.T) {
	const slack = 512 << 10 // what the test itself allocates after Idle
	before := CurrentGC()
	if before.Percent < 0 {
		t.Fatalf("the test process starts with collecting off (GOGC %d)", before.Percent)
	}
	t.Cleanup(func() { Busy(before) })
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)

	Idle()
	idle := CurrentGC()
	held := inUse()
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	if idle.Percent != -1 {
		t.Errorf("GOGC %d once idle, want -1 (off)", idle.Percent)
	}
	if margin := idle.Limit - held; margin < idleHeadroom-slack || margin > idleHeadroom+slack {
		t.Errorf("memory limit %d once idle, %d above the %d held, want idleHeadroom (%d)", idle.Limit, margin, held, idleHeadroom)
	}
	if ms1.NumGC == ms0.NumGC {
		t.Error("Idle did not collect")
	}
	if ms1.HeapReleased == 0 {
		t.Error("Idle gave no memory back")
	}
	if m := hugePageMappings(t); len(m) > 0 {
		t.Errorf("after Idle, mappings asking for huge pages (the runtime's metadata, once a heap goal passed 1 GiB): %q", m)
	}

	Busy(before)
	if after := CurrentGC(); after != before {
		t.Errorf("settings after Busy %+v, want the ones before Idle %+v", after, before)
	}
}

// hugePageMappings lists the process's mappings advised MADV_HUGEPAGE (VmFlags "hg").
func hugePageMappings(t *testing.T) []string {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var mapping string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			mapping = line
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && strings.Contains(" "+rest+" ", " hg ") {
			out = append(out, mapping)
		}
	}
	return out
}
