package machines

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshotFilesStayInTheDisk reproduces, as root inside a machine, the ways its disk can
// point the host's writes elsewhere, then snapshots it and orders a server from the snapshot:
// the host's files (and another machine's disk) are left as they were, and the new server's
// identity files are its own.
func snapshotFilesStayInTheDisk(t *testing.T) {
	m := newManager(t, "198.18.231.0/24")
	ctx := context.Background()
	for i, tc := range []struct {
		name string
		// setup is run as root inside the source machine, HOSTDIR replaced by a host directory
		// the test owns, holding hostFileContents.
		setup string
	}{
		{"/etc/hosts a symlink to a host file", "ln -sf HOSTDIR/hosts /etc/hosts"},
		{"/etc/hostname a relative symlink climbing out", "ln -sf ../../../../../../../../../..HOSTDIR/hostname /etc/hostname"},
		{"/etc a symlink to a host directory", "rm -rf /etc && ln -s HOSTDIR /etc"},
		{"/etc/hosts a symlink into another machine's disk, its path read from mountinfo",
			`up=$(sed -n 's/.*upperdir=\([^,]*\).*/\1/p' /proc/self/mountinfo | head -n 1)
			 ln -sf "${up%/machines/*}/machines/vm-victim/disk/upper/etc/hosts" /etc/hosts`},
		{"/etc/os-release a directory", "rm -f /etc/os-release && mkdir -p /etc/os-release/sub && echo x > /etc/os-release/sub/f"},
		{"/etc/ssh a symlink to a host directory", "rm -rf /etc/ssh && ln -s HOSTDIR /etc/ssh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hostDir := hostFiles(t)
			victim := filepath.Join(m.o.Dir, "machines", "vm-victim", "disk", "upper", "etc", "hosts")
			writeHostFile(t, victim, "the victim's hosts\n")
			src, dst := fmt.Sprintf("vm-s%d", i), fmt.Sprintf("vm-d%d", i)
			srcIP, dstIP := netip.AddrFrom4([4]byte{198, 18, 231, byte(10 + 2*i)}), netip.AddrFrom4([4]byte{198, 18, 231, byte(11 + 2*i)})
			if err := m.Create(ctx, Spec{Ref: src, Hostname: "source", Template: "t", IPv4: srcIP, Password: "pw"}, ""); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = m.Delete(ctx, src) })
			if out, code, err := m.Run(ctx, src, strings.ReplaceAll(tc.setup, "HOSTDIR", hostDir), nil); err != nil || code != 0 {
				t.Fatalf("setup in the machine: exit %d, %v: %s", code, err, out)
			}
			image := "img-" + src
			if _, err := m.Snapshot(ctx, src, image); err != nil {
				t.Fatal(err)
			}
			if err := m.Create(ctx, Spec{Ref: dst, Hostname: "ordered", Template: "ordered-os", IPv4: dstIP}, image); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = m.Delete(ctx, dst) })
			assertHostFiles(t, hostDir)
			if got, _ := os.ReadFile(victim); string(got) != "the victim's hosts\n" {
				t.Errorf("another machine's /etc/hosts is %q, want it unchanged", got)
			}
			got := mustSSH(t, dstIP, "pw", "cat /etc/hosts /etc/hostname; grep ^NAME= /etc/os-release")
			if want := "127.0.0.1\tlocalhost\n127.0.1.1\tordered\nordered\nNAME=\"ordered-os\"\n"; got != want {
				t.Errorf("the new server's identity files: %q, want %q", got, want)
			}
		})
	}
}

// hostFileContents are the files of the host directory a machine's disk points at.
var hostFileContents = map[string]string{
	"hosts":                "host's hosts\n",
	"hostname":             "host's hostname\n",
	"os-release":           "host's os-release\n",
	"ssh_host_ed25519_key": "host's key\n",
}

// hostFiles makes a directory of the host holding hostFileContents.
func hostFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range hostFileContents {
		writeHostFile(t, filepath.Join(dir, name), content)
	}
	return dir
}

func writeHostFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// assertHostFiles fails unless dir holds exactly hostFileContents.
func assertHostFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(hostFileContents) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the host directory holds %s, want only %d files of its own", strings.Join(names, ", "), len(hostFileContents))
	}
	for name, want := range hostFileContents {
		if got, err := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("host file %s: %q (%v), want %q unchanged", name, got, err, want)
		}
	}
}

// snapshotHostKeys: a server ordered from a snapshot has an SSH host key of its own, while a
// restore in place keeps the machine's.
func snapshotHostKeys(t *testing.T) {
	m := newManager(t, "198.18.232.0/24")
	ctx := context.Background()
	ip1, ip2 := netip.MustParseAddr("198.18.232.10"), netip.MustParseAddr("198.18.232.11")
	if err := m.Create(ctx, Spec{Ref: "vm-1", Hostname: "one", Template: "t", IPv4: ip1, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	key := sshHostKey(t, ip1)
	if _, err := m.Snapshot(ctx, "vm-1", "img"); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, Spec{Ref: "vm-2", Hostname: "two", Template: "t", IPv4: ip2}, "img"); err != nil {
		t.Fatal(err)
	}
	if got := sshHostKey(t, ip2); got == key {
		t.Errorf("the server ordered from vm-1's snapshot has vm-1's host key %s, want a new one", key)
	}
	if err := m.Restore(ctx, "vm-1", "img"); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx, "vm-1"); err != nil {
		t.Fatal(err)
	}
	if got := sshHostKey(t, ip1); got != key {
		t.Errorf("vm-1 restored in place presents host key %s, want its own %s", got, key)
	}
}

// TestMountPointsCannotBeReplaced holds what machineinit relies on to join its mount targets
// by path: root inside a machine cannot move /proc, /dev, /tmp or /run away (to put a symlink
// in their place), since they are its mount points.
func TestMountPointsCannotBeReplaced(t *testing.T) {
	m := newManager(t, "198.18.233.0/24")
	ctx := context.Background()
	if err := m.Create(ctx, Spec{Ref: "vm-1", Hostname: "one", Template: "t", IPv4: netip.MustParseAddr("198.18.233.10"), Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"/proc", "/dev", "/tmp", "/run"} {
		script := fmt.Sprintf("if mv %[1]s /moved 2>/dev/null || rmdir %[1]s 2>/dev/null; then echo gone; exit 1; fi; [ -d %[1]s ] && [ ! -L %[1]s ]", dir)
		if out, code, err := m.Run(ctx, "vm-1", script, nil); err != nil || code != 0 {
			t.Errorf("%s was moved away from inside the machine (exit %d, %v): %s", dir, code, err, out)
		}
	}
}
