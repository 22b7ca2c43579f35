package machines

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cgroupEscapes runs, inside machines, what a tenant could do to take the host's resources,
// and shows each held by the machine's own cgroups (issue 40, points 4 and 9): a neighbour
// machine running all along notices nothing, and neither does the host.
func cgroupEscapes(t *testing.T) {
	m := newManagerWith(t, Options{CIDR: netip.MustParsePrefix("198.18.240.0/24"), PidsMax: 64})
	requireLimits(t, m)
	ctx := context.Background()
	neighbour := netip.MustParseAddr("198.18.240.200")
	if err := m.Create(ctx, Spec{Ref: "vm-neighbour", Hostname: "n", Template: "t", IPv4: neighbour, Password: "pw", Limits: Limits{MemoryMB: 256}}, ""); err != nil {
		t.Fatal(err)
	}
	neighbourPID := m.machines["vm-neighbour"].run.pid
	cases := []struct {
		name   string
		limits Limits
		resize *Limits // applied to the running machine before script
		script string  // run over SSH as root
		check  func(t *testing.T, ref string, ip netip.Addr, out string)
	}{
		{"a fork bomb stops at --machines-pids-max", Limits{}, nil,
			`i=0; while [ $i -lt 200 ]; do sleep 1000 </dev/null >/dev/null 2>&1 & i=$((i+1)); done; echo spawned all`,
			func(t *testing.T, ref string, _ netip.Addr, out string) {
				if strings.Contains(out, "spawned all") || !strings.Contains(out, "fork") {
					t.Errorf("200 processes started in a machine capped at 64: %q", out)
				}
				if n := cgroupNumber(t, m, "pids", ref, "pids.current"); n > 64 {
					t.Errorf("pids.current = %d, want at most 64", n)
				}
				if err := exec.Command("true").Run(); err != nil {
					t.Errorf("the host cannot fork: %v", err)
				}
			}},
		{"memory past the plan's is OOM-killed inside", Limits{MemoryMB: 64}, nil,
			`dd if=/dev/zero of=/dev/null bs=96M count=1 2>/dev/null; echo "dd exit $?"`,
			func(t *testing.T, ref string, ip netip.Addr, out string) {
				if !strings.Contains(out, "dd exit 137") {
					t.Errorf("96 MB allocated in a 64 MB machine: %q, want dd killed (exit 137)", out)
				}
				if n := oomKills(t, m, ref); n < 1 {
					t.Errorf("oom_kill in the machine's memory cgroup = %d, want at least 1", n)
				}
				pid := m.machines[ref].run.pid
				if got := mustSSH(t, ip, "pw", "echo alive"); got != "alive\n" {
					t.Errorf("after the OOM kill the machine answers %q", got)
				}
				if !m.Running(ref) || m.machines[ref].run.pid != pid {
					t.Error("the machine was not kept running as it was")
				}
			}},
		{"resize applies at once", Limits{MemoryMB: 64}, &Limits{MemoryMB: 256},
			`dd if=/dev/zero of=/dev/null bs=96M count=1 2>/dev/null; echo "dd exit $?"`,
			func(t *testing.T, ref string, _ netip.Addr, out string) {
				if got := cgroupValue(t, m, "memory", ref); got != "268435456" {
					t.Errorf("memory limit after SetLimits = %s, want 268435456", got)
				}
				if !strings.Contains(out, "dd exit 0") {
					t.Errorf("96 MB in a machine resized to 256 MB: %q, want dd exit 0", out)
				}
			}},
		{"the plan's cores are its CPU quota", Limits{CPUs: 2}, nil, `echo ok`,
			func(t *testing.T, ref string, _ netip.Addr, _ string) {
				want := "200000"
				if cgroupDirOf(t, m, "cpu").v2 {
					want = "200000 100000"
				}
				if got := cgroupValue(t, m, "cpu", ref); got != want {
					t.Errorf("CPU quota of 2 cores = %q, want %q", got, want)
				}
			}},
		{"no host path in /proc/self/cgroup", Limits{CPUs: 1, MemoryMB: 256}, nil, `cat /proc/self/cgroup`,
			func(t *testing.T, _ string, _ netip.Addr, out string) {
				for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
					if f := strings.SplitN(line, ":", 3); len(f) != 3 || f[2] != "/" {
						t.Errorf("/proc/self/cgroup in the machine: %q, want every path \"/\"", line)
					}
				}
			}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref, ip := fmt.Sprintf("vm-cg%d", i), netip.AddrFrom4([4]byte{198, 18, 240, byte(10 + i)})
			if err := m.Create(ctx, Spec{Ref: ref, Hostname: "cg", Template: "t", IPv4: ip, Password: "pw", Limits: c.limits}, ""); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := m.Delete(ctx, ref); err != nil {
					t.Errorf("Delete: %v", err)
				}
			})
			if c.resize != nil {
				if err := m.SetLimits(ctx, ref, *c.resize); err != nil {
					t.Fatal(err)
				}
			}
			out, _ := sshRun(ip, "pw", c.script) // a killed or refused command is the case's to judge
			t.Logf("in the machine: %q", out)
			c.check(t, ref, ip, out)
		})
	}
	if got := mustSSH(t, neighbour, "pw", "echo alive"); got != "alive\n" || m.machines["vm-neighbour"].run.pid != neighbourPID {
		t.Errorf("the neighbour machine after the others' escapes: %q, PID %d (was %d)", got, m.machines["vm-neighbour"].run.pid, neighbourPID)
	}
	if n := oomKills(t, m, "vm-neighbour"); n != 0 {
		t.Errorf("the neighbour's OOM killer killed %d processes, want 0", n)
	}
}

// TestCgroupsAreNestedAndLeaveNothing: a machine's cgroups sit under the cgroup this process
// runs in, in every hierarchy, with its PID 1 in them; Delete removes them, Close the
// Manager's.
func TestCgroupsAreNestedAndLeaveNothing(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	m, err := New(ctx, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.241.0/24"), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			m.Close(ctx)
		}
	})
	requireLimits(t, m)
	own, err := findOwnCgroups()
	if err != nil {
		t.Fatal(err)
	}
	var mine []string
	for _, o := range own {
		mine = append(mine, filepath.Join(o.dir, "reseller-"+m.net.bridge))
	}
	for _, ref := range []string{"vm-a", "vm-b"} {
		ip := netip.MustParseAddr("198.18.241.10")
		if ref == "vm-b" {
			ip = netip.MustParseAddr("198.18.241.11")
		}
		if err := m.Create(ctx, Spec{Ref: ref, Hostname: "n", Template: "t", IPv4: ip, Password: "pw", Limits: Limits{CPUs: 1, MemoryMB: 256}}, ""); err != nil {
			t.Fatal(err)
		}
		pid := strconv.Itoa(m.machines[ref].run.pid)
		for _, dir := range mine {
			procs, err := os.ReadFile(filepath.Join(dir, ref, "cgroup.procs"))
			if err != nil || !slices.Contains(strings.Fields(string(procs)), pid) {
				t.Errorf("%s/%s/cgroup.procs = %q (%v), want its PID 1 %s", dir, ref, procs, err, pid)
			}
		}
	}
	if err := m.Delete(ctx, "vm-a"); err != nil {
		t.Fatal(err)
	}
	for _, dir := range mine {
		if _, err := os.Stat(filepath.Join(dir, "vm-a")); !os.IsNotExist(err) {
			t.Errorf("%s/vm-a after Delete: %v, want it gone", dir, err)
		}
	}
	closed = true
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, dir := range mine {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s after Close: %v, want it gone", dir, err)
		}
	}
}

// newManagerWith is newManager with options of the test's own (Dir: a temporary directory).
func newManagerWith(t testing.TB, o Options) *Manager {
	t.Helper()
	requireRoot(t)
	o.Dir, o.Logger = t.TempDir(), testLogger(t)
	m, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

// requireLimits fails a test on a host where the Manager enforces no limits: this project's
// hosts (cgroup v1 as CI, or v2) offer memory, cpu and pids.
func requireLimits(t testing.TB, m *Manager) {
	t.Helper()
	if !m.LimitsEnforced() {
		t.Fatal("machine limits are not enforced on this host (see the Manager's log: run with -v)")
	}
}

// cgroupDirOf is the Manager's cgroup holding controller.
func cgroupDirOf(t testing.TB, m *Manager, controller string) cgroupDir {
	t.Helper()
	requireLimits(t, m)
	for _, d := range m.cgroups {
		if slices.Contains(d.controllers, controller) {
			return d
		}
	}
	t.Fatalf("no cgroup of the Manager holds %s", controller)
	return cgroupDir{}
}

// cgroupValue reads ref's limit of controller: memory's bytes, cpu's quota, pids' count.
func cgroupValue(t testing.TB, m *Manager, controller, ref string) string {
	t.Helper()
	d := cgroupDirOf(t, m, controller)
	file := map[string]string{"memory": "memory.limit_in_bytes", "cpu": "cpu.cfs_quota_us", "pids": "pids.max"}[controller]
	if d.v2 {
		file = map[string]string{"memory": "memory.max", "cpu": "cpu.max", "pids": "pids.max"}[controller]
	}
	data, err := os.ReadFile(filepath.Join(d.machineDir(ref), file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// cgroupNumber reads a file of ref's cgroup that holds one number.
func cgroupNumber(t testing.TB, m *Manager, controller, ref, file string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cgroupDirOf(t, m, controller).machineDir(ref), file))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return n
}

// oomKills is how many processes the OOM killer of ref's memory cgroup has killed.
func oomKills(t testing.TB, m *Manager, ref string) int {
	t.Helper()
	d := cgroupDirOf(t, m, "memory")
	file := "memory.oom_control"
	if d.v2 {
		file = "memory.events"
	}
	data, err := os.ReadFile(filepath.Join(d.machineDir(ref), file))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "oom_kill" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatalf("no oom_kill line in %s: %q", file, data)
	return 0
}

// TestSmallestPidsMaxBoots: a machine capped at MinPidsMax processes (threads count: init's and
// the agent's Go runtimes hold several) still boots and runs a command over SSH.
func TestSmallestPidsMaxBoots(t *testing.T) {
	m := newManagerWith(t, Options{CIDR: netip.MustParsePrefix("198.18.242.0/24"), PidsMax: MinPidsMax})
	requireLimits(t, m)
	ip := netip.MustParseAddr("198.18.242.10")
	if err := m.Create(context.Background(), Spec{Ref: "vm-min", Hostname: "min", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	t.Logf("pids.current idle: %d", cgroupNumber(t, m, "pids", "vm-min", "pids.current"))
	if got := mustSSH(t, ip, "pw", "echo ok; cat /proc/self/status | grep Threads | wc -l"); got != "ok\n1\n" {
		t.Fatalf("got %q, want ok", got)
	}
	t.Logf("pids.current after a login: %d", cgroupNumber(t, m, "pids", "vm-min", "pids.current"))
}
