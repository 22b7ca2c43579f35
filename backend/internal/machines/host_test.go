package machines

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"
)

func TestCheckNamesWhatIsMissing(t *testing.T) {
	all := hostFacts{euid: 0, lookPath: func(s string) (string, error) { return "/usr/bin/" + s, nil }, busybox: true, overlay: true,
		userns: true, idmap: true, loop: true}
	if err := checkHost(Options{}, all); err != nil {
		t.Fatalf("a complete host: %v", err)
	}
	noIP := all
	noIP.lookPath = func(s string) (string, error) {
		if s == "ip" {
			return "", exec.ErrNotFound
		}
		return "/usr/bin/" + s, nil
	}
	cases := []struct {
		name  string
		o     Options
		host  hostFacts
		wants []string
	}{
		{"not root", Options{}, hostFacts{euid: 1000, lookPath: all.lookPath, busybox: true, overlay: true}, []string{"not running as root", "sudo"}},
		{"no ip", Options{}, noIP, []string{"no `ip`", "apt-get install iproute2"}},
		{"no busybox", Options{}, hostFacts{lookPath: all.lookPath, overlay: true}, []string{"no busybox at /bin/busybox", "apt-get install busybox-static"}},
		{"no overlay", Options{}, hostFacts{lookPath: all.lookPath, busybox: true}, []string{"no overlayfs", "modprobe overlay"}},
		{"no user namespaces", Options{}, without(all, func(h *hostFacts) { h.userns = false }), []string{"user namespaces are disabled", "user.max_user_namespaces"}},
		{"no idmapped mounts", Options{}, without(all, func(h *hostFacts) { h.idmap = false }), []string{"no idmapped mounts", "mount_setattr"}},
		{"no loop devices", Options{}, without(all, func(h *hostFacts) { h.loop = false }), []string{"no /dev/loop-control", "modprobe loop"}},
		{"no mkfs.ext4", Options{}, without(all, func(h *hostFacts) { h.lookPath = missing("mkfs.ext4") }), []string{"no `mkfs.ext4`", "apt-get install e2fsprogs"}},
		{"the machines' uids given away", Options{}, without(all, func(h *hostFacts) { h.subIDs = `/etc/subuid: "alice:1000000:65536"` }), []string{"1000000-1065535", "alice"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkHost(c.o, c.host)
			if err == nil {
				t.Fatal("nil, want an error")
			}
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
	rootfs := t.TempDir() // an image needs only /bin/sh to pass
	if err := os.MkdirAll(filepath.Join(rootfs, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("busybox", filepath.Join(rootfs, "bin", "sh")); err != nil {
		t.Fatal(err)
	}
	if err := checkHost(Options{Image: rootfs}, hostFacts{lookPath: all.lookPath, overlay: true, userns: true, idmap: true, loop: true}); err != nil {
		t.Fatalf("no busybox with Options.Image set: %v, want nil", err)
	}
}

// without is h changed by change.
func without(h hostFacts, change func(*hostFacts)) hostFacts {
	change(&h)
	return h
}

// missing is a lookPath that finds every command but name.
func missing(name string) func(string) (string, error) {
	return func(s string) (string, error) {
		if s == name {
			return "", exec.ErrNotFound
		}
		return "/usr/bin/" + s, nil
	}
}

func TestReleaseAtLeast(t *testing.T) {
	cases := map[string]bool{"6.18.44-fc-v782": true, "5.19.0": true, "5.18.17-1": false, "4.19.0-27-amd64": false, "junk": false}
	for release, want := range cases {
		if got := releaseAtLeast(release, 5, 19); got != want {
			t.Errorf("releaseAtLeast(%q, 5, 19) = %v, want %v", release, got, want)
		}
	}
}

func TestSubIDOverlap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "subuid")
	cases := []struct{ content, want string }{
		{"alice:100000:65536\nbob:165536:65536\n", ""},
		{"root:1000000:1000000000\n", ""},
		{"alice:100000:65536\ncarol:1060000:65536\n", "carol:1060000:65536"},
		{"dave:900000:100001\n", "dave:900000:100001"},
	}
	for _, c := range cases {
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got := subIDOverlap(path, machineIDs)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("subIDOverlap(%q) = %q, want it to name %q", c.content, got, c.want)
		}
	}
	if got := subIDOverlap(filepath.Join(t.TempDir(), "none"), machineIDs); got != "" {
		t.Errorf("no file: %q, want \"\"", got)
	}
}

func TestCloseLeavesNoBridgeNorChains(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	dir := t.TempDir()
	m, err := New(ctx, Options{Dir: dir, CIDR: netip.MustParsePrefix("198.18.202.0/24"), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ip := netip.MustParseAddr("198.18.202.5")
	if err := m.Create(ctx, Spec{Ref: "vm-c", Hostname: "c", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		m.Close(ctx)
		t.Fatal(err)
	}
	procs := processesIn(t, machinePIDNS(t, m, "vm-c"))
	bridge := m.net.bridge
	if !linkExists(bridge) || !strings.Contains(iptablesSave(t), bridge) {
		t.Fatal("the bridge or its chains are missing before Close")
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if linkExists(bridge) {
		t.Errorf("bridge %s is still there after Close", bridge)
	}
	if rules := iptablesSave(t); strings.Contains(rules, bridge) {
		t.Errorf("iptables still mentions %s after Close:\n%s", bridge, rules)
	}
	assertExited(t, procs)
	if _, err := os.Stat(filepath.Join(dir, "machines", "vm-c", "disk", "upper", "etc", "hostname")); err != nil {
		t.Errorf("Close removed the disk: %v", err)
	}
	if err := m.Start(ctx, "vm-c"); err == nil {
		t.Error("Start on a closed Manager: nil, want an error")
	}
}

func TestNewRefusesACIDRRoutedOnTheHost(t *testing.T) {
	first := newManager(t, "198.18.203.0/24")
	_, err := New(context.Background(), Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.203.128/25"), Logger: testLogger(t)})
	if err == nil {
		t.Fatal("New on a CIDR inside another Manager's: nil, want a refusal")
	}
	if !strings.Contains(err.Error(), "198.18.203.0/24") || !strings.Contains(err.Error(), first.net.bridge) {
		t.Fatalf("%q does not name the route 198.18.203.0/24 on %s", err, first.net.bridge)
	}
}

// TestNewCleansWhatACrashedManagerLeft opens a second Manager on the Dir of one that never
// closed (as after a crash): it starts, with one jump per chain, not two.
func TestNewCleansWhatACrashedManagerLeft(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	dir := t.TempDir()
	o := Options{Dir: dir, CIDR: netip.MustParsePrefix("198.18.204.0/24"), Logger: testLogger(t)}
	crashed, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(ctx, o); err == nil || !strings.Contains(err.Error(), "in use by another running Manager") {
		t.Fatalf("a second Manager on a live one's Dir: %v, want a refusal", err)
	}
	crashed.dirLock.Close() // a crashed process's lock goes with it; its bridge and chains stay
	m := newManagerAt(t, o)
	if n := strings.Count(iptablesSave(t), "-j "+m.net.chain("in")); n != 1 {
		t.Fatalf("%d jumps to %s, want 1", n, m.net.chain("in"))
	}
}

// TestNewRemovesTheBridgeOfAManagerThatIsGone: a Manager killed with its Dir removed (dev's
// temporary directory) leaves its bridge routing its range; a new Manager on another Dir with
// that range removes it rather than refusing the range until the host restarts. A live
// Manager's range is still refused (TestNewRefusesACIDRRoutedOnTheHost).
func TestNewRemovesTheBridgeOfAManagerThatIsGone(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	goneDir := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(goneDir, 0o700); err != nil {
		t.Fatal(err)
	}
	o := Options{Dir: goneDir, CIDR: netip.MustParsePrefix("198.18.206.0/24"), Logger: testLogger(t)}
	gone, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	gone.dirLock.Close() // killed: its lock goes with the process, its bridge and chains stay
	if err := os.RemoveAll(goneDir); err != nil {
		t.Fatal(err)
	}
	o.Dir = t.TempDir()
	m := newManagerAt(t, o)
	if linkExists(gone.net.bridge) {
		t.Errorf("the gone Manager's bridge %s is still there", gone.net.bridge)
	}
	if rules := iptablesSave(t); strings.Contains(rules, gone.net.bridge) {
		t.Errorf("iptables still mentions %s", gone.net.bridge)
	}
	if got := linkAlias(m.net.bridge); got != o.Dir {
		t.Errorf("the new bridge's alias is %q, want its Dir %q", got, o.Dir)
	}
}

func TestMachinesReachEachOtherAndTheHostReachesTheirPorts(t *testing.T) {
	m := newManager(t, "198.18.205.0/24")
	ctx := context.Background()
	a, b := netip.MustParseAddr("198.18.205.10"), netip.MustParseAddr("198.18.205.11")
	for ref, ip := range map[string]netip.Addr{"vm-a": a, "vm-b": b} {
		if err := m.Create(ctx, Spec{Ref: ref, Hostname: ref, Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	out, code, err := m.Run(ctx, "vm-b", "mkdir -p /srv/www && echo from-b > /srv/www/index.html && httpd -p 8080 -h /srv/www", nil)
	if err != nil || code != 0 {
		t.Fatalf("httpd in vm-b: %q %d %v", out, code, err)
	}
	if got := mustSSH(t, a, "pw", "timeout 3 wget -q -O - http://198.18.205.11:8080/"); got != "from-b\n" {
		t.Fatalf("vm-a fetching vm-b's port 8080: %q", got)
	}
	got, err := exec.Command("busybox", "timeout", "3", "busybox", "wget", "-q", "-O", "-", "http://198.18.205.11:8080/").Output()
	if err != nil || string(got) != "from-b\n" {
		t.Fatalf("the host fetching vm-b's port 8080: %q %v", got, err)
	}
}

func TestCreateFromASnapshotAndRetriedCalls(t *testing.T) {
	m := newManager(t, "198.18.206.0/24")
	ctx := context.Background()
	ip1, ip2 := netip.MustParseAddr("198.18.206.10"), netip.MustParseAddr("198.18.206.11")
	s1 := Spec{Ref: "vm-1", Hostname: "one", Template: "t", IPv4: ip1, Password: "pw-1"}
	if err := m.Create(ctx, s1, ""); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, s1, ""); err != nil {
		t.Fatalf("a retried Create: %v", err)
	}
	mustSSH(t, ip1, "pw-1", "echo from-one > /root/data")
	if _, err := m.Snapshot(ctx, "vm-1", "img"); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, Spec{Ref: "vm-2", Hostname: "two", Template: "t", IPv4: ip2}, "img"); err != nil {
		t.Fatal(err)
	}
	if out := mustSSH(t, ip2, "pw-1", "cat /root/data; hostname"); out != "from-one\ntwo\n" {
		t.Fatalf("a machine made from a snapshot: %q, want its data, the snapshot's password and its own hostname", out)
	}
	if err := m.Create(ctx, Spec{Ref: "vm-3", Hostname: "three", Template: "t", IPv4: ip2, Password: "pw"}, ""); err == nil {
		t.Fatal("Create on vm-2's address: nil, want a refusal")
	}
	if err := m.Create(ctx, Spec{Ref: "vm-4", Hostname: "four", Template: "t", IPv4: netip.MustParseAddr("10.9.9.9"), Password: "pw"}, ""); err == nil {
		t.Fatal("Create outside the CIDR: nil, want a refusal")
	}
	for _, ref := range []string{"vm-3", "vm-4"} {
		if _, err := os.Stat(filepath.Join(m.o.Dir, "machines", ref)); !os.IsNotExist(err) {
			t.Errorf("a refused Create left %s's directory (%v)", ref, err)
		}
	}
	if err := m.Create(ctx, Spec{Ref: "vm-5", Hostname: "five", Template: "t", IPv4: netip.MustParseAddr("198.18.206.50")}, "no-such-image"); err == nil {
		t.Fatal("Create from a snapshot this host lacks: nil, want an error")
	}
	if _, err := os.Stat(filepath.Join(m.o.Dir, "machines", "vm-5")); !os.IsNotExist(err) {
		t.Errorf("a failed Create left vm-5's directory (%v)", err)
	}
	if err := m.DeleteSnapshot(ctx, "img"); err != nil {
		t.Fatal(err)
	}
	if err := m.Restore(ctx, "vm-1", "img"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Restore from a deleted snapshot: %v, want ErrNotFound", err)
	}
	if got := m.Refs(); strings.Join(got, ",") != "vm-1,vm-2" {
		t.Fatalf("Refs = %v, want [vm-1 vm-2]", got)
	}
}

func TestRunCancelledKillsTheScript(t *testing.T) {
	m := newManager(t, "198.18.207.0/24")
	ctx := context.Background()
	if err := m.Create(ctx, Spec{Ref: "vm-r", Hostname: "r", Template: "t", IPv4: netip.MustParseAddr("198.18.207.10"), Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, _, err := m.Run(short, "vm-r", "sleep 4343", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run past its ctx: %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > eventWait { // not held for the script's 4343 s
		t.Fatalf("Run returned after %s", d)
	}
	deadline := time.Now().Add(eventWait)
	for {
		out, _, err := m.Run(ctx, "vm-r", "ps -o args | grep -c '^sleep 4343' || true", nil)
		if err == nil && strings.TrimSpace(out) == "0" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled script still runs: %q %v", out, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestSetLimitsIsRecorded(t *testing.T) {
	m := newManager(t, "198.18.208.0/24")
	ctx := context.Background()
	if err := m.Create(ctx, Spec{Ref: "vm-l", Hostname: "l", Template: "t", IPv4: netip.MustParseAddr("198.18.208.10"), Password: "pw", Limits: Limits{CPUs: 1, MemoryMB: 256}}, ""); err != nil {
		t.Fatal(err)
	}
	if err := m.SetLimits(ctx, "vm-l", Limits{CPUs: 2, MemoryMB: 1024}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(m.o.Dir, "machines", "vm-l", "spec.json"))
	if err != nil || !strings.Contains(string(data), `"MemoryMB": 1024`) {
		t.Fatalf("spec.json after SetLimits: %s %v", data, err)
	}
	if got := cgroupValue(t, m, "memory", "vm-l"); got != "1073741824" {
		t.Fatalf("the running machine's memory limit after SetLimits = %q, want 1073741824", got)
	}
}

func TestEgressRules(t *testing.T) {
	forwardingOff(t)
	for _, egress := range []bool{false, true} {
		m := newManagerAt(t, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.209.0/24"), Egress: egress, Logger: testLogger(t)})
		rules := iptablesSave(t)
		accept := "-A " + m.net.chain("fwd") + " -i " + m.net.bridge + " -j ACCEPT"
		masquerade := "-A " + m.net.chain("nat") + " -s 198.18.209.0/24 ! -o " + m.net.bridge + " -j MASQUERADE"
		if strings.Contains(rules, accept) != egress || strings.Contains(rules, masquerade) != egress {
			t.Fatalf("Egress %v: forwarding accept %v, masquerade %v:\n%s", egress, strings.Contains(rules, accept), strings.Contains(rules, masquerade), rules)
		}
		if got := forwarding(t); got != egress {
			t.Fatalf("Egress %v: IPv4 forwarding on = %v", egress, got)
		}
		if err := m.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if forwarding(t) {
			t.Fatalf("Egress %v: IPv4 forwarding still on after Close; it was off before", egress)
		}
	}
}

// TestEgressForwardingKeptForOthers: of two Managers with egress, the first closed leaves IPv4
// forwarding on for the other's machines; the last puts it back as it was.
func TestEgressForwardingKeptForOthers(t *testing.T) {
	forwardingOff(t)
	first := newManagerAt(t, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.209.0/24"), Egress: true, Logger: testLogger(t)})
	second := newManagerAt(t, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.210.0/24"), Egress: true, Logger: testLogger(t)})
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !forwarding(t) {
		t.Fatal("IPv4 forwarding turned off while the second Manager's machines have egress")
	}
	if err := second.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if forwarding(t) {
		t.Fatal("IPv4 forwarding still on after the last Manager with egress closed")
	}
}

// forwardingOff turns host-wide IPv4 forwarding off for the test, and puts it back as it was
// afterwards; forwardRecord is the test's own meanwhile.
func forwardingOff(t *testing.T) {
	t.Helper()
	requireRoot(t)
	holdForwarding(t)
	old, err := os.ReadFile(ipForward)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.WriteFile(ipForward, old, 0o644) })
	if err := os.WriteFile(ipForward, []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	was := forwardRecord
	forwardRecord = filepath.Join(t.TempDir(), "ip_forward-before-egress")
	t.Cleanup(func() { forwardRecord = was })
}

// forwarding reports whether host-wide IPv4 forwarding is on.
func forwarding(t *testing.T) bool {
	t.Helper()
	data, err := os.ReadFile(ipForward)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data)) == "1"
}

// newManagerAt starts a Manager with o, closed at the test's end.
func newManagerAt(t *testing.T, o Options) *Manager {
	t.Helper()
	requireRoot(t)
	if o.Egress {
		holdForwarding(t)
	}
	m, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	return m
}

func iptablesSave(t *testing.T) string {
	t.Helper()
	var all strings.Builder
	for _, table := range []string{"filter", "nat"} {
		out, err := exec.Command("iptables-save", "-t", table).Output()
		if err != nil {
			t.Fatalf("iptables-save -t %s: %v", table, err)
		}
		all.Write(out)
	}
	return all.String()
}

// procIdentity names a process across PID reuse: its PID and its start time (field 22 of
// /proc/PID/stat).
type procIdentity struct {
	pid   string
	start string
}

// processesIn lists the processes in PID namespace pidNS now. A namespace's inode number is
// reused once the namespace is gone (by another machine, in another test process too), so
// "nothing left" is checked on the processes themselves, listed while pidNS is still the
// machine's.
func processesIn(t *testing.T, pidNS string) []procIdentity {
	t.Helper()
	var procs []procIdentity
	paths, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range paths {
		if ns, err := os.Readlink(p + "/ns/pid"); err == nil && ns == pidNS {
			if start := procStart(p); start != "" {
				procs = append(procs, procIdentity{pid: filepath.Base(p), start: start})
			}
		}
	}
	if len(procs) == 0 {
		t.Fatalf("no process in PID namespace %s: the machine is not running", pidNS)
	}
	return procs
}

// procStart is the start time of the process at /proc/PID, "" when it is gone.
func procStart(proc string) string {
	stat, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return ""
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19] // field 22 of stat; the name was field 2
}

// assertExited checks that none of procs is still running.
func assertExited(t *testing.T, procs []procIdentity) {
	t.Helper()
	for _, p := range procs {
		if procStart("/proc/"+p.pid) == p.start {
			t.Errorf("process %s of the machine is still running", p.pid)
		}
	}
}

// TestPTYAndCopiesInAMachine checks what the machine gives package sshd to work with: a PTY
// (its /dev/pts), and a file copied in with OpenSSH's scp (legacy protocol, as Terraform's file
// provisioner) landing on the disk.
func TestPTYAndCopiesInAMachine(t *testing.T) {
	m := newManager(t, "198.18.211.0/24")
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.211.10")
	if err := m.Create(ctx, Spec{Ref: "vm-p", Hostname: "p", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	client, err := ssh.Dial("tcp", ip.String()+":22", &ssh.ClientConfig{User: "root", Auth: []ssh.AuthMethod{ssh.Password("pw")}, HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	s, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm", 24, 80, ssh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out, err := s.CombinedOutput("tty")
	if err != nil || !strings.HasPrefix(string(out), "/dev/pts/") {
		t.Fatalf("tty with a PTY: %q %v", out, err)
	}
	if _, err := exec.LookPath("sshpass"); err != nil {
		t.Skip("no sshpass for the scp part")
	}
	local := filepath.Join(t.TempDir(), "payload.txt")
	if err := os.WriteFile(local, []byte("copied in\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scp := exec.Command("sshpass", "-p", "pw", "scp", "-O", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", local, "root@"+ip.String()+":/root/payload.txt")
	if out, err := scp.CombinedOutput(); err != nil {
		t.Fatalf("scp -O: %v: %s", err, out)
	}
	if got := mustSSH(t, ip, "pw", "cat /root/payload.txt"); got != "copied in\n" {
		t.Fatalf("the copied file: %q", got)
	}
}

func TestManyMachinesAtOnce(t *testing.T) {
	m := newManager(t, "198.18.212.0/24")
	ctx := context.Background()
	const n = 10
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			ref := fmt.Sprintf("vm-%d", i)
			ip := netip.AddrFrom4([4]byte{198, 18, 212, byte(10 + i)})
			if err := m.Create(ctx, Spec{Ref: ref, Hostname: ref, Template: "t", IPv4: ip, Password: "pw-" + ref}, ""); err != nil {
				errs <- err
				return
			}
			out, err := sshRun(ip, "pw-"+ref, "hostname")
			if err == nil && out != ref+"\n" {
				err = fmt.Errorf("%s answers hostname %q", ip, out)
			}
			if err == nil {
				err = m.Delete(ctx, ref)
			}
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if refs := m.Refs(); len(refs) != 0 {
		t.Fatalf("Refs after deleting every machine: %v", refs)
	}
}

// TestAMachineThatDiesIsSeenAndBootsAgain kills a machine's PID 1 from the host (as the OOM
// killer may): the Manager sees it and boots the machine again by itself (liveness.go).
func TestAMachineThatDiesIsSeenAndBootsAgain(t *testing.T) {
	m := newManager(t, "198.18.213.0/24")
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.213.10")
	if err := m.Create(ctx, Spec{Ref: "vm-d", Hostname: "d", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	pid := func() int {
		m.mu.Lock()
		mc := m.machines["vm-d"]
		m.mu.Unlock()
		mc.mu.Lock()
		defer mc.mu.Unlock()
		if !mc.run.alive() {
			return 0
		}
		return mc.run.pid
	}
	first := pid()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(bootWait)
	for p := pid(); p == 0 || p == first; p = pid() {
		if time.Now().After(deadline) {
			t.Fatal("the machine was not booted again after its PID 1 was killed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	mustSSH(t, ip, "pw", "true")
}

// TestOneAddressOneMachine creates machines on one address at once: one wins, the others are
// refused (each call holds only its own machine's lock, so the address needs a claim).
func TestOneAddressOneMachine(t *testing.T) {
	m := newManager(t, "198.18.216.0/24")
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.216.10")
	const n = 4
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			ref := fmt.Sprintf("vm-%d", i)
			errs <- m.Create(ctx, Spec{Ref: ref, Hostname: ref, Template: "t", IPv4: ip, Password: "pw"}, "")
		}()
	}
	created := 0
	for i := 0; i < n; i++ {
		if err := <-errs; err == nil {
			created++
		} else if !strings.Contains(err.Error(), "198.18.216.10 is machine") {
			t.Errorf("a refused Create: %v, want it to name the address's machine", err)
		}
	}
	if created != 1 || len(m.Refs()) != 1 {
		t.Fatalf("%d machines created on one address (%v), want 1", created, m.Refs())
	}
}

func TestSetAddressOfAStoppedMachineTakesEffectAtBoot(t *testing.T) {
	m := newManager(t, "198.18.217.0/24")
	ctx := context.Background()
	old, moved := netip.MustParseAddr("198.18.217.10"), netip.MustParseAddr("198.18.217.20")
	if err := m.Create(ctx, Spec{Ref: "vm-s", Hostname: "s", Template: "t", IPv4: old, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	if err := m.Stop(ctx, "vm-s"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetAddress(ctx, "vm-s", moved); err != nil {
		t.Fatal(err)
	}
	if m.Running("vm-s") {
		t.Fatal("SetAddress booted a stopped machine")
	}
	if err := m.Start(ctx, "vm-s"); err != nil {
		t.Fatal(err)
	}
	if out := mustSSH(t, moved, "pw", "ip -4 -o addr show dev eth0 | awk '{print $4}'"); out != "198.18.217.20/24\n" {
		t.Fatalf("eth0 after SetAddress while stopped and Start: %q", out)
	}
	if err := m.Stop(ctx, "vm-missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Stop of an unknown machine: %v, want ErrNotFound", err)
	}
}

func TestAnImageOfYourOwn(t *testing.T) {
	requireRoot(t)
	img := t.TempDir()
	if _, err := New(context.Background(), Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.218.0/24"), Image: img}); err == nil || !strings.Contains(err.Error(), "has no /bin/sh") {
		t.Fatalf("an image without /bin/sh: %v, want a refusal naming /bin/sh", err)
	}
	// A root filesystem with busybox only: the machine makes /proc, /dev, /tmp and /etc/ssh.
	if err := os.MkdirAll(filepath.Join(img, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(Busybox, filepath.Join(img, "bin", "busybox"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"sh", "cat", "echo"} {
		if err := os.Symlink("busybox", filepath.Join(img, "bin", a)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(img, "marker"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newManagerAt(t, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.218.0/24"), Image: img, Logger: testLogger(t)})
	ip := netip.MustParseAddr("198.18.218.10")
	if err := m.Create(context.Background(), Spec{Ref: "vm-i", Hostname: "i", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	if out := mustSSH(t, ip, "pw", "cat /marker"); out != "mine\n" {
		t.Fatalf("/marker of the given image: %q", out)
	}
}

// forwardingLock is held by the tests of this process that turn host-wide IPv4 forwarding on
// (a Manager with Egress) or look at it (forwardingOff), for as long as one of them runs: the
// lock file makes another test process on the host (another checkout's suite) wait rather than
// flip the switch under them.
var forwardingLock struct {
	sync.Mutex
	holders int
	file    *os.File
}

// holdForwarding takes forwardingLock until t ends (a test of this process that holds it
// already shares it).
func holdForwarding(t *testing.T) {
	t.Helper()
	forwardingLock.Lock()
	defer forwardingLock.Unlock()
	if forwardingLock.holders == 0 {
		f, err := os.OpenFile(filepath.Join(os.TempDir(), "reseller-machines-ip_forward.lock"), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
			f.Close()
			t.Fatal(err)
		}
		forwardingLock.file = f
	}
	forwardingLock.holders++
	t.Cleanup(func() {
		forwardingLock.Lock()
		defer forwardingLock.Unlock()
		if forwardingLock.holders--; forwardingLock.holders == 0 {
			forwardingLock.file.Close() // releases the flock
		}
	})
}
