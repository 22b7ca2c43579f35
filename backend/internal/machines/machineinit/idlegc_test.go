package machineinit

import (
	"runtime"
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

	Busy(before)
	if after := CurrentGC(); after != before {
		t.Errorf("settings after Busy %+v, want the ones before Idle %+v", after, before)
	}
}
