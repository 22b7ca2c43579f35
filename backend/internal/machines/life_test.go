package machines

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"

	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/agent"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/machineinit"
)

// TestMachineLife walks one machine through every action the datacenter calls, asserting what
// the machine shows over a real SSH client at its address. The steps depend on each other and
// stop at the first failure.
func TestMachineLife(t *testing.T) {
	m := newManager(t, "198.18.200.0/24")
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.200.10")
	moved := netip.MustParseAddr("198.18.200.77")
	spec := Spec{Ref: "vm-1", Hostname: "web-1", Template: "debian-12", IPv4: ip, Username: "root", Password: "first-pass"}
	password := spec.Password
	var hostKey string // the machine's SSH host key, kept by its disk

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"create boots a machine that takes the password", func(t *testing.T) {
			if err := m.Create(ctx, spec, ""); err != nil {
				t.Fatal(err)
			}
			if out := mustSSH(t, ip, password, "echo hello"); out != "hello\n" {
				t.Fatalf("echo over SSH = %q", out)
			}
			if !m.Running("vm-1") {
				t.Fatal("Running is false after Create")
			}
			hostKey = sshHostKey(t, ip)
		}},
		{"a wrong password is refused", func(t *testing.T) {
			_, err := sshRun(ip, "wrong", "true")
			if !isAuthError(err) {
				t.Fatalf("wrong password: %v, want an authentication refusal", err)
			}
		}},
		{"hostname and os-release are the spec's", func(t *testing.T) {
			if out := mustSSH(t, ip, password, "hostname"); out != "web-1\n" {
				t.Fatalf("hostname = %q", out)
			}
			out := mustSSH(t, ip, password, "cat /etc/os-release")
			if !strings.Contains(out, `NAME="debian-12"`) {
				t.Fatalf("/etc/os-release = %q, want it to name debian-12", out)
			}
		}},
		{"ps shows only the machine's processes", func(t *testing.T) {
			host := exec.Command("sleep", "4242")
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = host.Process.Kill(); _ = host.Wait() }()
			out := mustSSH(t, ip, password, "ps -o pid,args")
			if strings.Contains(out, "4242") {
				t.Fatalf("the host's sleep 4242 is visible in the machine:\n%s", out)
			}
			if n := len(strings.Split(strings.TrimSpace(out), "\n")) - 1; n > 8 {
				t.Fatalf("ps shows %d processes, want only the machine's few:\n%s", n, out)
			}
		}},
		{"the host's files are not visible", func(t *testing.T) {
			marker := filepath.Join(os.TempDir(), fmt.Sprintf("reseller-host-marker-%d", os.Getpid()))
			if err := os.WriteFile(marker, []byte("host"), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(marker)
			out := mustSSH(t, ip, password, "if [ -e "+marker+" ]; then echo visible; else echo absent; fi; ls /tmp")
			if !strings.HasPrefix(out, "absent") {
				t.Fatalf("the host's %s is visible in the machine: %q", marker, out)
			}
		}},
		{"no host listener answers the machine, not even on 0.0.0.0", func(t *testing.T) {
			ln, err := net.Listen("tcp4", "0.0.0.0:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			accepted := make(chan struct{}, 1)
			go func() {
				if c, err := ln.Accept(); err == nil {
					accepted <- struct{}{}
					c.Close()
				}
			}()
			port := ln.Addr().(*net.TCPAddr).Port
			for _, target := range append([]string{m.net.host.String()}, hostAddresses(t)...) {
				cmd := fmt.Sprintf("nc -w 1 %s %d </dev/null && echo connected || echo refused", target, port)
				if out := mustSSH(t, ip, password, cmd); !strings.Contains(out, "refused") {
					t.Fatalf("the machine reached the host's listener at %s:%d: %q", target, port, out)
				}
			}
			select {
			case <-accepted:
				t.Fatal("the host's listener accepted a connection from the machine")
			default:
			}
			// Nor over IPv6: the host has no IPv6 address on the bridge or the machine's veth.
			inet6, _ := os.ReadFile("/proc/net/if_inet6")
			for _, link := range []string{m.net.bridge, vethName(m.net.bridge, "vm-1", "rv")} {
				if strings.Contains(string(inet6), " "+link+"\n") {
					t.Errorf("the host has an IPv6 address on %s:\n%s", link, inet6)
				}
			}
		}},
		{"root inside cannot mount, make devices, load modules or read the host's binary", func(t *testing.T) {
			checks := map[string]string{
				"mount":     "mount -t tmpfs none /tmp",
				"mknod":     "mknod /root/sda b 8 0",
				"sysctl":    "echo 3 > /proc/sys/vm/drop_caches",
				"init exe":  "cat /proc/1/exe > /dev/null",
				"agent exe": `p=$(ps -o pid,args | awk '/ reseller-agent$/ {print $1}'); [ -n "$p" ] || { echo no agent; exit 0; }; cat /proc/$p/exe > /dev/null`,
				"hostname":  "hostname other",
				"ip":        "ip addr add 198.18.200.99/24 dev eth0",
			}
			for name, cmd := range checks {
				out := mustSSH(t, ip, password, "("+cmd+") 2>/dev/null && echo allowed || echo refused")
				if out != "refused\n" {
					t.Errorf("%s (%s) in the machine: %q, want refused", name, cmd, out)
				}
			}
			out, code, err := m.Run(ctx, "vm-1", "grep CapBnd /proc/self/status", nil)
			if err != nil || code != 0 || strings.TrimSpace(out) != "CapBnd:\t"+wantBounding() {
				t.Errorf("a script's bounding set: %q %d %v, want %s", out, code, err, wantBounding())
			}
			// SIGHUP and SIGINT (bits 0 and 1) must not reach users' processes ignored (Ctrl-C).
			out, _, err = m.Run(ctx, "vm-1", "grep SigIgn /proc/self/status | cut -f2", nil)
			ignored, perr := strconv.ParseUint(strings.TrimSpace(out), 16, 64)
			if err != nil || perr != nil || ignored&3 != 0 {
				t.Errorf("a script's ignored signals: %q %v %v, want neither SIGHUP nor SIGINT", out, err, perr)
			}
		}},
		{"orphans are reaped (no zombie left)", func(t *testing.T) {
			if _, code, err := m.Run(ctx, "vm-1", "sleep 0.2 & sleep 0.2 & exit 0", nil); err != nil || code != 0 {
				t.Fatalf("Run: %d %v", code, err)
			}
			time.Sleep(600 * time.Millisecond)
			out := mustSSH(t, ip, password, "ps -o stat,args | awk '$1 ~ /^Z/' | wc -l")
			if strings.TrimSpace(out) != "0" {
				t.Fatalf("%s zombies in the machine", strings.TrimSpace(out))
			}
		}},
		{"Run returns MaxOutput of output that JSON escapes six times over", func(t *testing.T) {
			out, code, err := m.Run(ctx, "vm-1", `head -c 300000 /dev/zero | tr '\0' '\1'`, nil)
			if err != nil || code != 0 || len(out) != agent.MaxOutput || strings.Trim(out, "\x01") != "" {
				t.Fatalf("Run = %d bytes, %d, %v; want the last %d bytes of \\x01", len(out), code, err, agent.MaxOutput)
			}
			if _, _, err := m.Run(ctx, "vm-1", "true", nil); err != nil {
				t.Fatalf("the control channel after a large answer: %v", err)
			}
		}},
		{"reboot, poweroff and halt inside do nothing: power is the API's", func(t *testing.T) {
			mustSSH(t, ip, password, "echo up > /tmp/marker; reboot; poweroff; halt; true")
			time.Sleep(500 * time.Millisecond)
			if out := mustSSH(t, ip, password, "cat /tmp/marker"); strings.TrimSpace(out) != "up" {
				t.Fatalf("/tmp/marker = %q after reboot, poweroff and halt inside: the machine went down", out)
			}
		}},
		{"Run returns the output and exit code", func(t *testing.T) {
			out, code, err := m.Run(ctx, "vm-1", `echo "out $GREETING"; echo err >&2; exit 3`, map[string]string{"GREETING": "hi"})
			if err != nil || code != 3 || out != "out hi\nerr\n" {
				t.Fatalf("Run = %q, %d, %v; want \"out hi\\nerr\\n\", 3, nil", out, code, err)
			}
		}},
		{"a file written survives Stop and Start; a stopped machine refuses SSH", func(t *testing.T) {
			mustSSH(t, ip, password, "echo kept > /root/note")
			if err := m.Stop(ctx, "vm-1"); err != nil {
				t.Fatal(err)
			}
			if m.Running("vm-1") {
				t.Fatal("Running is true after Stop")
			}
			if _, err := sshRunTimeout(ip, password, "true", time.Second); err == nil || isAuthError(err) {
				t.Fatalf("SSH to a stopped machine: %v, want no answer", err)
			}
			if err := m.Start(ctx, "vm-1"); err != nil {
				t.Fatal(err)
			}
			if out := mustSSH(t, ip, password, "cat /root/note"); out != "kept\n" {
				t.Fatalf("/root/note after Stop and Start = %q", out)
			}
			if k := sshHostKey(t, ip); k != hostKey {
				t.Fatalf("the host key changed over Stop and Start: %s, was %s", k, hostKey)
			}
		}},
		{"SetPassword changes what SSH takes", func(t *testing.T) {
			if err := m.SetPassword(ctx, "vm-1", "second-pass"); err != nil {
				t.Fatal(err)
			}
			if _, err := sshRun(ip, password, "true"); !isAuthError(err) {
				t.Fatalf("the old password after SetPassword: %v, want a refusal", err)
			}
			password = "second-pass"
			mustSSH(t, ip, password, "true")
			if ok, err := m.CheckPassword(ctx, "vm-1", password); err != nil || !ok {
				t.Fatalf("CheckPassword(new) = %v, %v", ok, err)
			}
			if ok, _ := m.CheckPassword(ctx, "vm-1", "first-pass"); ok {
				t.Fatal("CheckPassword(old) = true")
			}
		}},
		{"Snapshot, change, Restore brings the disk and password back", func(t *testing.T) {
			size, err := m.Snapshot(ctx, "vm-1", "img-1")
			if err != nil || size <= 0 {
				t.Fatalf("Snapshot = %d, %v", size, err)
			}
			mustSSH(t, ip, password, "echo changed > /root/note; rm /bin/vi")
			if err := m.SetPassword(ctx, "vm-1", "third-pass"); err != nil {
				t.Fatal(err)
			}
			if err := m.Restore(ctx, "vm-1", "img-1"); err != nil {
				t.Fatal(err)
			}
			if m.Running("vm-1") {
				t.Fatal("Running is true after Restore, want the machine off")
			}
			if err := m.Start(ctx, "vm-1"); err != nil {
				t.Fatal(err)
			}
			out := mustSSH(t, ip, password, "cat /root/note; test -e /bin/vi && echo vi")
			if out != "kept\nvi\n" {
				t.Fatalf("after Restore: %q, want the snapshot's note and /bin/vi back", out)
			}
		}},
		{"SetAddress moves the machine; the old address answers nothing", func(t *testing.T) {
			if err := m.SetAddress(ctx, "vm-1", moved); err != nil {
				t.Fatal(err)
			}
			mustSSH(t, moved, password, "true")
			if _, err := sshRunTimeout(ip, password, "true", time.Second); err == nil || isAuthError(err) {
				t.Fatalf("SSH to the old address: %v, want no answer", err)
			}
			ip = moved
			if err := m.Reboot(ctx, "vm-1"); err != nil {
				t.Fatal(err)
			}
			mustSSH(t, ip, password, "true") // the new address is the machine's record too
		}},
		{"Rebuild gives a fresh disk", func(t *testing.T) {
			if err := m.Rebuild(ctx, "vm-1", "alpine-3", "fourth-pass"); err != nil {
				t.Fatal(err)
			}
			password = "fourth-pass"
			out := mustSSH(t, ip, password, "test -e /root/note && echo note; grep ^NAME= /etc/os-release")
			if out != "NAME=\"alpine-3\"\n" {
				t.Fatalf("after Rebuild: %q, want no note and the new template", out)
			}
			if sshHostKey(t, ip) == hostKey {
				t.Fatal("the host key survived Rebuild, want a fresh disk's new key")
			}
		}},
		{"Delete leaves nothing", func(t *testing.T) {
			dir := filepath.Join(m.o.Dir, "machines", "vm-1")
			procs := processesIn(t, machinePIDNS(t, m, "vm-1"))
			if err := m.Delete(ctx, "vm-1"); err != nil {
				t.Fatal(err)
			}
			assertGone(t, m, "vm-1", dir, procs)
			if err := m.Delete(ctx, "vm-1"); err != nil {
				t.Fatalf("a second Delete: %v, want nil", err)
			}
			if err := m.Start(ctx, "vm-1"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Start after Delete: %v, want ErrNotFound", err)
			}
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			break
		}
	}
}

// wantBounding is the bounding set (as /proc/PID/status shows it) of what users run: Docker's
// default capabilities without CAP_MKNOD.
func wantBounding() string {
	var mask uint64
	for _, c := range machineinit.KeptCaps() {
		mask |= 1 << c
	}
	return fmt.Sprintf("%016x", mask)
}

// sshHostKey is the SSH host key addr presents (its SHA-256 fingerprint).
func sshHostKey(t *testing.T, addr netip.Addr) string {
	t.Helper()
	var key string
	cfg := &ssh.ClientConfig{
		User: "root",
		Auth: []ssh.AuthMethod{ssh.Password("any")},
		HostKeyCallback: func(_ string, _ net.Addr, k ssh.PublicKey) error {
			key = ssh.FingerprintSHA256(k)
			return errors.New("seen")
		},
		Timeout: 3 * time.Second,
	}
	_, _ = ssh.Dial("tcp", net.JoinHostPort(addr.String(), "22"), cfg)
	if key == "" {
		t.Fatalf("no host key from %s", addr)
	}
	return key
}

// sshRunTimeout is sshRun with a dial timeout, for addresses expected to answer nothing.
func sshRunTimeout(addr netip.Addr, password, cmd string, timeout time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(addr.String(), "22"), timeout)
	if err != nil {
		return "", err
	}
	c.Close()
	return sshRun(addr, password, cmd)
}

// machinePIDNS is the PID namespace of ref's PID 1, as /proc shows it ("pid:[inode]").
func machinePIDNS(t *testing.T, m *Manager, ref string) string {
	t.Helper()
	m.mu.Lock()
	mc := m.machines[ref]
	m.mu.Unlock()
	mc.mu.Lock()
	pid := mc.run.pid
	mc.mu.Unlock()
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// assertGone checks that nothing of a machine is left on the host: none of its processes (procs,
// listed while it ran), no veth, no mount of its directory in any mount namespace, no directory.
func assertGone(t *testing.T, m *Manager, ref, dir string, procs []procIdentity) {
	t.Helper()
	assertExited(t, procs)
	paths, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range paths {
		if data, err := os.ReadFile(p + "/mountinfo"); err == nil && strings.Contains(string(data), dir) {
			t.Errorf("process %s still sees a mount of %s", filepath.Base(p), dir)
		}
	}
	if linkExists(vethName(m.net.bridge, ref, "rv")) {
		t.Errorf("the veth of %s is still there", ref)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", dir, err)
	}
}

// hostAddresses are the host's IPv4 addresses outside loopback and the machines' bridges.
func hostAddresses(t *testing.T) []string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var list []string
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err != nil || !p.Addr().Is4() || p.Addr().IsLoopback() || strings.HasPrefix(p.Addr().String(), "198.18.") {
			continue
		}
		list = append(list, p.Addr().String())
	}
	return list
}

// TestPasswordNotKeptOnDiskIsGivenBack: a new password the disk does not take (its file
// immutable) fails SetPassword, and the running machine takes its old password again, as the
// caller, told of the failure, keeps it: SSH takes the old password and refuses the new one.
func TestPasswordNotKeptOnDiskIsGivenBack(t *testing.T) {
	m := newManager(t, "198.18.221.0/24")
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.221.10")
	if err := m.Create(ctx, Spec{Ref: "vm-pw", Hostname: "pw", Template: "t", IPv4: ip, Password: "old-pw"}, ""); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(m.o.Dir, "machines", "vm-pw", "password")
	if out, err := exec.Command("chattr", "+i", file).CombinedOutput(); err != nil {
		t.Fatalf("chattr +i: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", file).Run() })
	if err := m.SetPassword(ctx, "vm-pw", "new-pw"); err == nil {
		t.Fatal("SetPassword succeeded with its file immutable")
	}
	if out, err := sshRun(ip, "old-pw", "hostname"); err != nil || out != "pw\n" {
		t.Fatalf("the old password after the failed change: %q, %v", out, err)
	}
	if _, err := sshRun(ip, "new-pw", "true"); err == nil {
		t.Fatal("the new password the disk did not take logs in")
	}
}

// TestAResetThatFailsKeepsTheDisk: a restore cut short (its context ended before the new disk
// is made) fails and leaves the machine's disk, files and password as they were, with nothing
// staged left beside it; a restore that works then replaces them, on a disk of its own size.
func TestAResetThatFailsKeepsTheDisk(t *testing.T) {
	m := newManager(t, "198.18.222.0/24")
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.222.10")
	if err := m.Create(ctx, Spec{Ref: "vm-r", Hostname: "r", Template: "t", IPv4: ip, Password: "pw", Limits: Limits{DiskMB: testDiskMB}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Snapshot(ctx, "vm-r", "img-before"); err != nil {
		t.Fatal(err)
	}
	if out, err := sshRun(ip, "pw", "echo kept > /root/file && sync && echo ok"); err != nil || out != "ok\n" {
		t.Fatalf("writing a file: %q, %v", out, err)
	}
	if err := m.Stop(ctx, "vm-r"); err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Restore(ended, "vm-r", "img-before"); err == nil {
		t.Fatal("a restore with its context ended succeeded")
	}
	if _, err := os.Stat(filepath.Join(m.o.Dir, "machines", "vm-r", "disk.next")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the staged disk of the failed restore is left: %v", err)
	}
	if err := m.Start(ctx, "vm-r"); err != nil {
		t.Fatal(err)
	}
	if out, err := sshRun(ip, "pw", "cat /root/file"); err != nil || out != "kept\n" {
		t.Fatalf("the file after the failed restore: %q, %v; want it kept", out, err)
	}
	if err := m.Restore(ctx, "vm-r", "img-before"); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx, "vm-r"); err != nil {
		t.Fatal(err)
	}
	if out, err := sshRun(ip, "pw", "test -e /root/file || echo restored; df -m / | tail -1"); err != nil || !strings.HasPrefix(out, "restored\n") {
		t.Fatalf("after the restore: %q, %v; want the snapshot's disk, without the file", out, err)
	}
}
