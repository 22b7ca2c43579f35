package machines

import (
	"context"
	"fmt"
	"net"
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

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/agent"
)

// testDiskMB is the disk of the tests' machines with a size: small, so filling it is quick.
const testDiskMB = 64

// rootInAMachineIsNotTheHostsRoot runs, inside a machine with a disk of its own, what a
// tenant would try, each with what it must answer; then checks from the host what the machine
// is there: an unprivileged uid, a file of root's on the disk, a disk of the plan's size.
func rootInAMachineIsNotTheHostsRoot(t *testing.T) {
	m := newManager(t, "198.18.230.0/24")
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.230.10")
	if err := m.Create(ctx, Spec{Ref: "vm-e", Hostname: "e", Template: "t", IPv4: ip, Password: "pw", Limits: Limits{DiskMB: testDiskMB}}, ""); err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprint(machineIDs.Base)
	cases := []struct {
		name, command, want string
	}{
		{"root inside is uid 0", "id -u; id -g", "0\n0"},
		{"its uids are the host's unprivileged range", "cat /proc/self/uid_map | tr -s ' ' | sed 's/^ //'", "0 " + base + " 65536"},
		{"its gids are the host's unprivileged range", "cat /proc/self/gid_map | tr -s ' ' | sed 's/^ //'", "0 " + base + " 65536"},
		{"it cannot signal init, the host's root", "kill -0 1 2>/dev/null && echo allowed || echo refused", "refused"},
		{"its files are root's inside", "touch /root/made-inside && stat -c '%u:%g' /root/made-inside /etc/passwd /bin/busybox", "0:0\n0:0\n0:0"},
		{"its /tmp, /run and /dev are root's", "stat -c '%u:%g' /tmp /run /dev /dev/null /dev/shm", "0:0\n0:0\n0:0\n0:0\n0:0"},
		{"mountinfo names no host path", fmt.Sprintf("grep -cE '%s|=/|/tmp/' /proc/self/mountinfo || true", m.o.Dir), "0"},
		{"the overlay's layers have names that mean nothing", "grep -o ' overlay overlay [^ ]*' /proc/self/mountinfo | grep -o 'lowerdir=[^,]*,upperdir=[^,]*,workdir=[^,]*'", "lowerdir=lower,upperdir=disk/upper,workdir=disk/work"},
		// Every machine's root is the same host uid: unmasked, one machine's key quotas would show
		// in another's /proc/key-users (a machine sees the lines of the uids it maps).
		{"/proc/key-users is masked (/dev/null over it)", "stat -c %t:%T /proc/key-users; wc -c < /proc/key-users", "1:3\n0"},
		{"df / shows the plan's disk", "s=$(df -k / | awk 'NR==2 {print $2}'); [ \"$s\" -le 65536 ] && [ \"$s\" -ge 55000 ] && echo ok || echo \"$s KiB\"", "ok"},
		{"its inodes are bounded with it", "n=$(df -i / | awk 'NR==2 {print $2}'); [ \"$n\" -le 8192 ] && echo ok || echo \"$n inodes\"", "ok"},
		{"a write past the disk fails with ENOSPC", "dd if=/dev/zero of=/root/fill bs=1M count=100 2>&1 | grep -o 'No space left on device'; rm -f /root/fill", "No space left on device"},
		{"the disk is writable again once freed", "echo after > /root/after && cat /root/after", "after"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := sshRun(ip, "pw", c.command)
			if got := strings.TrimSpace(out); err != nil || got != c.want {
				t.Errorf("%s: got %q (%v), want %q", c.command, got, err, c.want)
			}
		})
	}
	t.Run("a PTY is root's and the tty group's", func(t *testing.T) {
		if out := ptyRun(t, ip, "pw", "stat -c %u:%g $(tty)"); out != "0:5" {
			t.Errorf("the PTY's owner: got %q, want 0:5", out)
		}
	})
	t.Run("from the host, its processes but init run as the unprivileged uid", func(t *testing.T) {
		pid1 := machinePID(t, m, "vm-e")
		for _, p := range processesIn(t, machinePIDNS(t, m, "vm-e")) {
			want := base
			if p.pid == fmt.Sprint(pid1) {
				want = "0"
			}
			if got := statusIDs(t, p.pid, "Uid:"); got != strings.Repeat(want+" ", 4) {
				t.Errorf("process %s runs as uids %q, want %s", p.pid, got, want)
			}
		}
	})
	t.Run("from the host, a file made inside is root's on the disk (the idmapped mount maps it back)", func(t *testing.T) {
		fi, err := os.Stat(filepath.Join(m.o.Dir, "machines", "vm-e", "disk", "upper", "root", "made-inside"))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 || st.Gid != 0 {
			t.Errorf("owned by %d:%d on the disk, want 0:0", st.Uid, st.Gid)
		}
	})
	t.Run("from the host, the overlay marks the disk as without a user namespace (trusted.* xattrs)", func(t *testing.T) {
		mustSSH(t, ip, "pw", "rm /bin/vi && rm -rf /opt && mkdir /opt")
		upper := filepath.Join(m.o.Dir, "machines", "vm-e", "disk", "upper")
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(upper, "bin", "vi"), &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFCHR || st.Rdev != 0 {
			t.Errorf("/bin/vi removed inside: on the disk %o rdev %d (%v), want a 0:0 character device (a whiteout)", st.Mode, st.Rdev, err)
		}
		buf := make([]byte, 8)
		n, err := syscall.Getxattr(filepath.Join(upper, "opt"), "trusted.overlay.opaque", buf)
		if err != nil || string(buf[:n]) != "y" {
			t.Errorf("/opt removed and made again inside: trusted.overlay.opaque %q (%v), want \"y\"", buf[:max(n, 0)], err)
		}
	})
	t.Run("from the host, the disk is a filesystem of its own", func(t *testing.T) {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(filepath.Join(m.o.Dir, "machines", "vm-e", "disk", "upper"), &fs); err != nil {
			t.Fatal(err)
		}
		if size := int64(fs.Blocks) * fs.Bsize; size > testDiskMB<<20 {
			t.Errorf("the disk's filesystem holds %d bytes, want at most %d", size, testDiskMB<<20)
		}
	})
}

// disksGrowAndLeaveNothing grows a running machine's disk, then deletes it and closes the
// Manager: no loop device of the Manager's is left, nor the deleted machine's image; the other
// machine's image stays for its next boot.
func disksGrowAndLeaveNothing(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	m, err := New(ctx, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.231.0/24"), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	a, b := netip.MustParseAddr("198.18.231.10"), netip.MustParseAddr("198.18.231.11")
	for ref, ip := range map[string]netip.Addr{"vm-a": a, "vm-b": b} {
		if err := m.Create(ctx, Spec{Ref: ref, Hostname: ref, Template: "t", IPv4: ip, Password: "pw", Limits: Limits{DiskMB: testDiskMB}}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(loopsOf(t, m.o.Dir)); n != 2 {
		t.Fatalf("%d loop devices for two running machines, want 2", n)
	}
	// A running machine's disk grows at once where the host may grow a mounted ext4
	// (CAP_SYS_RESOURCE), else at its next boot; a stopped machine's at once.
	mustSSH(t, a, "pw", "echo kept > /root/note")
	if err := m.SetLimits(ctx, "vm-a", Limits{DiskMB: 2 * testDiskMB}); err != nil {
		t.Fatal(err)
	}
	if err := m.Reboot(ctx, "vm-a"); err != nil {
		t.Fatal(err)
	}
	if kib := diskKiB(t, a); kib <= testDiskMB<<10 {
		t.Fatalf("df / after growing to %d MB: %d KiB", 2*testDiskMB, kib)
	}
	if out := mustSSH(t, a, "pw", "cat /root/note"); out != "kept\n" {
		t.Fatalf("a file written before the disk grew: %q", out)
	}
	if err := m.Stop(ctx, "vm-a"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetLimits(ctx, "vm-a", Limits{DiskMB: 3 * testDiskMB}); err != nil {
		t.Fatal(err)
	}
	if size, err := fsBytes(ctx, filepath.Join(m.o.Dir, "machines", "vm-a", "disk.img")); err != nil || size != 3*testDiskMB<<20 {
		t.Fatalf("a stopped machine's disk after growing to %d MB: %d bytes, %v", 3*testDiskMB, size, err)
	}
	if err := m.SetLimits(ctx, "vm-a", Limits{DiskMB: testDiskMB}); err != nil {
		t.Fatalf("a smaller disk asked: %v, want it recorded", err)
	}
	if err := m.Start(ctx, "vm-a"); err != nil {
		t.Fatal(err)
	}
	if kib := diskKiB(t, a); kib <= 2*testDiskMB<<10 {
		t.Fatalf("df / after a smaller disk was asked: %d KiB, want the disk kept", kib)
	}
	if err := m.Stop(ctx, "vm-b"); err != nil {
		t.Fatal(err)
	}
	waitNoLoop(t, m.o.Dir, "vm-b")
	if err := m.Start(ctx, "vm-b"); err != nil {
		t.Fatal(err)
	}
	mustSSH(t, b, "pw", "true")
	imgA := filepath.Join(m.o.Dir, "machines", "vm-a", "disk.img")
	if err := m.Delete(ctx, "vm-a"); err != nil {
		t.Fatal(err)
	}
	waitNoLoop(t, m.o.Dir, "vm-a")
	if _, err := os.Stat(imgA); !os.IsNotExist(err) {
		t.Errorf("vm-a's image after Delete: %v, want it gone", err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitNoLoop(t, m.o.Dir, "")
	if _, err := os.Stat(filepath.Join(m.o.Dir, "machines", "vm-b", "disk.img")); err != nil {
		t.Errorf("vm-b's image after Close: %v, want it kept", err)
	}
	if mounted(filepath.Join(m.o.Dir, "machines", "vm-b", "disk")) {
		t.Error("vm-b's disk is still mounted after Close")
	}
}

// TestDiskWaitsUntilNoMountHoldsIt: a machine that boots copies the host's mounts, another
// machine's disk among them, until its init has made its own root, and so do host processes
// that make a mount namespace (mmdebstrap, `unshare -m`) for as long as they run; a disk
// unmounted on the host meanwhile lived on in such a copy. Stopping a machine detaches its
// disk from every copy (detachCopies): an idle copy lets it go at once. A copy still in use (a
// process's directory inside the disk) keeps it, and the disk is then neither checked, grown
// nor mounted again until that copy has gone (waitDiskFree): CI's e2fsck found a journal to
// recover (TestTenantCannotBreakOut/4_host_disk), and the live copy's superblock, written back
// as it went, would undo resize2fs's growth.
func TestDiskWaitsUntilNoMountHoldsIt(t *testing.T) {
	m := newManager(t, "198.18.235.0/24")
	ctx := context.Background()
	addr := netip.MustParseAddr("198.18.235.10")
	if err := m.Create(ctx, Spec{Ref: "vm-a", Hostname: "a", Template: "t", IPv4: addr, Password: "pw", Limits: Limits{DiskMB: testDiskMB}}, ""); err != nil {
		t.Fatal(err)
	}
	mustSSH(t, addr, "pw", "echo kept > /root/note")
	dir := filepath.Join(m.o.Dir, "machines", "vm-a")
	image := filepath.Join(dir, "disk.img")

	idle := holdMounts(t, "/") // a copy nobody uses: let go at the stop
	if err := m.Stop(ctx, "vm-a"); err != nil {
		t.Fatal(err)
	}
	if err := waitDiskFree(ctx, image); err != nil {
		t.Fatalf("an idle copy of the host's mounts kept the stopped machine's disk: %v", err)
	}
	idle()

	if err := m.Start(ctx, "vm-a"); err != nil {
		t.Fatal(err)
	}
	release := holdMounts(t, filepath.Join(dir, "disk", "upper")) // a copy in use: kept
	if err := m.Stop(ctx, "vm-a"); err != nil {
		t.Fatal(err)
	}
	if dev, err := loopBackedBy(image); err != nil || dev == "" {
		t.Fatalf("after Stop, with a copy of the host's mounts in use: loop device %q, %v; want the disk still held", dev, err)
	}
	grown := make(chan error, 1)
	go func() { grown <- m.SetLimits(ctx, "vm-a", Limits{DiskMB: 2 * testDiskMB}) }()
	select {
	case err := <-grown:
		t.Fatalf("SetLimits grew the disk while another mount namespace used its filesystem (%v)", err)
	case <-time.After(2 * time.Second): // e2fsck and resize2fs of the disk take a fraction of it
	}
	release()
	if err := <-grown; err != nil {
		t.Fatalf("SetLimits once the copy went: %v", err)
	}
	if size, err := fsBytes(ctx, image); err != nil || size != 2*testDiskMB<<20 {
		t.Fatalf("the disk after growing to %d MB: %d bytes, %v", 2*testDiskMB, size, err)
	}
	if out, err := exec.Command("e2fsck", "-f", "-n", image).CombinedOutput(); err != nil {
		t.Fatalf("e2fsck -n of the grown disk: %v: %s", err, out)
	}
	if err := m.Start(ctx, "vm-a"); err != nil {
		t.Fatal(err)
	}
	if out := mustSSH(t, addr, "pw", "cat /root/note"); out != "kept\n" {
		t.Fatalf("a file written before: %q", out)
	}
}

// holdMounts starts a process in a mount namespace of its own, a private copy of this one's (as
// `unshare -m` and a booting machine make), working in directory cwd of it, and returns what
// ends it and waits until it has gone.
func holdMounts(t *testing.T, cwd string) (release func()) {
	t.Helper()
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", `cd "$1" && read _`, "sh", cwd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	release = sync.OnceFunc(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	t.Cleanup(release)
	want, _ := filepath.EvalSymlinks(cwd)
	deadline := time.Now().Add(eventWait)
	for {
		if dir, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", cmd.Process.Pid)); err == nil && dir == want {
			return release
		}
		if time.Now().After(deadline) {
			t.Fatalf("unshare --mount: not in %s after %v", cwd, eventWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSnapshotsAcrossDisks: a snapshot of a disk without a size (as every disk was before) and
// one written by hand as overlayfs wrote them without a user namespace (a whiteout, an opaque
// directory, a root-only file) become disks of a size; a snapshot of a sized disk restores.
func TestSnapshotsAcrossDisks(t *testing.T) {
	m := newManager(t, "198.18.232.0/24")
	ctx := context.Background()
	old, sized := netip.MustParseAddr("198.18.232.10"), netip.MustParseAddr("198.18.232.11")
	if err := m.Create(ctx, Spec{Ref: "vm-old", Hostname: "old", Template: "t", IPv4: old, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	mustSSH(t, old, "pw", "echo kept > /root/note; rm /bin/vi")
	if _, err := m.Snapshot(ctx, "vm-old", "img-old"); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, Spec{Ref: "vm-sized", Hostname: "sized", Template: "t", IPv4: sized, Limits: Limits{DiskMB: testDiskMB}}, "img-old"); err != nil {
		t.Fatal(err)
	}
	if out := mustSSH(t, sized, "pw", "cat /root/note; test -e /bin/vi && echo vi; df -k / | awk 'NR==2 {print ($2 <= 65536)}'"); out != "kept\n1\n" {
		t.Fatalf("a sized disk from an unsized disk's snapshot: %q, want the note, no /bin/vi, a 64 MB disk", out)
	}
	handMade(t, filepath.Join(m.o.Dir, "snapshots", "img-hand"))
	if err := m.Restore(ctx, "vm-sized", "img-hand"); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx, "vm-sized"); err != nil {
		t.Fatal(err)
	}
	out := mustSSH(t, sized, "pw", "test -e /bin/vi && echo vi; ls /etc/ssh | wc -l; stat -c '%u %a' /root/secret; cat /root/secret")
	if out != "1\n0 600\nold\n" {
		t.Fatalf("a restored hand-made snapshot: %q, want no /bin/vi, /etc/ssh opaque (only the new host key), /root/secret root's", out)
	}
	mustSSH(t, sized, "pw", "echo second > /root/note")
	if _, err := m.Snapshot(ctx, "vm-sized", "img-sized"); err != nil {
		t.Fatal(err)
	}
	mustSSH(t, sized, "pw", "echo third > /root/note")
	if err := m.Restore(ctx, "vm-sized", "img-sized"); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx, "vm-sized"); err != nil {
		t.Fatal(err)
	}
	if out := mustSSH(t, sized, "pw", "cat /root/note"); out != "second\n" {
		t.Fatalf("after restoring a sized disk's snapshot: %q", out)
	}
}

// handMade writes a snapshot as overlayfs wrote disks without a user namespace: root's files,
// a whiteout (a 0:0 character device) hiding /bin/vi, an opaque /etc/ssh (trusted.overlay.opaque)
// and the password "pw".
func handMade(t *testing.T, dir string) {
	t.Helper()
	upper := filepath.Join(dir, "upper")
	for _, d := range []string{"bin", "root", "etc/ssh"} {
		if err := os.MkdirAll(filepath.Join(upper, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mknod(filepath.Join(upper, "bin", "vi"), syscall.S_IFCHR, 0); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setxattr(filepath.Join(upper, "etc", "ssh"), "trusted.overlay.opaque", []byte("y"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(upper, "root", "secret"), []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hash, err := agent.HashPassword("pw")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "password"), []byte(hash), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ptyRun runs cmd over SSH with a PTY and returns its output, trimmed.
func ptyRun(t *testing.T, addr netip.Addr, password, cmd string) string {
	t.Helper()
	c, err := ssh.Dial("tcp", net.JoinHostPort(addr.String(), "22"), &ssh.ClientConfig{User: "root",
		Auth: []ssh.AuthMethod{ssh.Password(password)}, HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm", 24, 80, ssh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out, err := s.CombinedOutput(cmd)
	if err != nil {
		t.Fatalf("%s with a PTY: %v (%q)", cmd, err, out)
	}
	return strings.TrimSpace(string(out))
}

// machinePID is the host's PID of ref's init.
func machinePID(t *testing.T, m *Manager, ref string) int {
	t.Helper()
	m.mu.Lock()
	mc := m.machines[ref]
	m.mu.Unlock()
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if mc.run == nil {
		t.Fatalf("%s is not running", ref)
	}
	return mc.run.pid
}

// statusIDs is a line of /proc/PID/status (Uid: or Gid:) as "real effective saved fs ".
func statusIDs(t *testing.T, pid, key string) string {
	t.Helper()
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			return strings.Join(strings.Fields(rest), " ") + " "
		}
	}
	t.Fatalf("no %s in /proc/%s/status", key, pid)
	return ""
}

// diskKiB is the size of the disk a machine's df / shows, in KiB.
func diskKiB(t *testing.T, ip netip.Addr) int {
	t.Helper()
	var kib int
	out := mustSSH(t, ip, "pw", "df -k / | awk 'NR==2 {print $2}'")
	if _, err := fmt.Sscan(out, &kib); err != nil {
		t.Fatalf("df: %q: %v", out, err)
	}
	return kib
}

// loopsOf lists the loop devices (losetup -a) whose file is under dir.
func loopsOf(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("losetup", "-a").CombinedOutput()
	if err != nil {
		t.Fatalf("losetup -a: %v: %s", err, out)
	}
	var ours []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, dir+"/") {
			ours = append(ours, line)
		}
	}
	return ours
}

// waitNoLoop waits until no loop device has a file under dir/machines/ref ("": under dir). A
// loop device clears itself once its filesystem's last user is gone, which the kernel finishes
// after the unmount returns; the wait is bounded (by eventWait).
func waitNoLoop(t *testing.T, dir, ref string) {
	t.Helper()
	if ref != "" {
		dir = filepath.Join(dir, "machines", ref)
	}
	deadline := time.Now().Add(eventWait)
	for {
		left := loopsOf(t, dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("loop devices left for %s: %v", dir, left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNewReleasesTheDisksOfACrashedManager: a Manager that died with its machines leaves their
// disks mounted (and their loop devices attached); the next Manager on its Dir releases them.
func TestNewReleasesTheDisksOfACrashedManager(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	o := Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.234.0/24"), Logger: testLogger(t)}
	crashed, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := crashed.Create(ctx, Spec{Ref: "vm-c", Hostname: "c", Template: "t", IPv4: netip.MustParseAddr("198.18.234.10"), Password: "pw", Limits: Limits{DiskMB: testDiskMB}}, ""); err != nil {
		t.Fatal(err)
	}
	pid := machinePID(t, crashed, "vm-c")
	crashed.mu.Lock()
	done := crashed.machines["vm-c"].run.done
	crashed.closed = true // the Manager is gone with its process: it boots nothing again (liveness.go)
	crashed.mu.Unlock()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil { // as Pdeathsig does when resellerd dies
		t.Fatal(err)
	}
	<-done
	crashed.dirLock.Close()
	if len(loopsOf(t, o.Dir)) != 1 {
		t.Fatal("no loop device left by the crashed Manager: nothing to release")
	}
	newManagerAt(t, o)
	waitNoLoop(t, o.Dir, "")
	if mounted(filepath.Join(o.Dir, "machines", "vm-c", "disk")) {
		t.Error("the crashed Manager's disk is still mounted")
	}
}
