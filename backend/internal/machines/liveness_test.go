package machines

import (
	"context"
	"net/netip"
	"testing"
	"time"
)

// TestStoppedState reads the state of /proc/PID/stat lines, whose command may hold spaces and
// parentheses of its own.
func TestStoppedState(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want bool
	}{
		{"42 (reseller-agent) S 41 42 42 0 -1", false},
		{"42 (reseller-agent) T 41 42 42 0 -1", true},
		{"42 (reseller-agent) t 41 42 42 0 -1", true},
		{"42 (a) T (b) S 41 42 42 0 -1", false}, // a command named "a) T (b"
		{"42 (x) R 1", false},
		{"42 (x)", false},
		{"", false},
	} {
		if got := stoppedState(tc.stat); got != tc.want {
			t.Errorf("stoppedState(%q) = %v, want %v", tc.stat, got, tc.want)
		}
	}
}

// TestIdleMachineIsNotWoken: the liveness watch does not call into an idle machine (a ping on a
// timer woke 50 idle machines' agents into 2 % of a core, bench/logins), yet it knows its agent.
func TestIdleMachineIsNotWoken(t *testing.T) {
	m := newManager(t, "198.18.219.0/24")
	ctx := context.Background()
	if err := m.Create(ctx, Spec{Ref: "vm-idle", Hostname: "idle", Template: "t", IPv4: netip.MustParseAddr("198.18.219.10"), Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	mc, err := m.lock("vm-idle")
	if err != nil {
		t.Fatal(err)
	}
	run := mc.run
	mc.mu.Unlock()
	if run.agent == 0 || stopped(run.agent) {
		t.Fatalf("the watch knows agent PID %d (stopped: %v), want the running agent", run.agent, stopped(run.agent))
	}
	calls := func() int64 {
		run.ctl.mu.Lock()
		defer run.ctl.mu.Unlock()
		return run.ctl.nextID
	}
	before := calls()
	time.Sleep(3*livenessEvery + time.Second)
	if after := calls(); after != before {
		t.Fatalf("%d calls into the idle machine over %s of liveness watch, want none", after-before, 3*livenessEvery+time.Second)
	}
}
