package machines

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sync"
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

// TestRevivalThatFailsIsTold: a machine found down is told to Options.FoundDown before its
// boot; a boot that fails is told to Revived with its error and tried again until one works,
// told with none. (The sandbox reads the machine offline from the first to the last: its
// Live.)
func TestRevivalThatFailsIsTold(t *testing.T) {
	requireRoot(t)
	var mu sync.Mutex
	var told []string
	tell := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, s)
	}
	seen := func(want string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(told, want)
	}
	m := newManagerAt(t, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.220.0/24"), Logger: testLogger(t),
		FoundDown: func(ref, reason string) { tell("down " + ref + " " + reason) },
		Revived: func(ref, reason string, err error) {
			tell(fmt.Sprintf("revived %s %s %v", ref, reason, err != nil))
		}})
	ctx := context.Background()
	if err := m.Create(ctx, Spec{Ref: "vm-fails", Hostname: "fails", Template: "t", IPv4: netip.MustParseAddr("198.18.220.10"), Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	// Its next boot fails: the password it hands the agent is gone (the running machine has it).
	pwFile := filepath.Join(m.o.Dir, "machines", "vm-fails", "password")
	hash, err := os.ReadFile(pwFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(pwFile); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Run(ctx, "vm-fails", "kill -9 $PPID", nil); err == nil {
		t.Fatal("the run that killed its agent answered")
	}
	waitFor(t, "FoundDown, then a failed boot told to Revived", func() bool {
		return seen("down vm-fails "+ReasonExited) && seen("revived vm-fails "+ReasonExited+" true")
	})
	if seen("revived vm-fails " + ReasonExited + " false") {
		t.Fatal("a boot without the password file was told as working")
	}
	if err := os.WriteFile(pwFile, hash, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a boot tried again that works, told to Revived", func() bool { return seen("revived vm-fails " + ReasonExited + " false") })
	if out, err := sshRun(netip.MustParseAddr("198.18.220.10"), "pw", "hostname"); err != nil || out != "fails\n" {
		t.Fatalf("after the revival: hostname %q, %v", out, err)
	}
}
