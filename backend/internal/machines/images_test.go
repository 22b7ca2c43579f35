package machines

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// distroImage is a root filesystem standing in for a real distribution's: the busybox image
// with an os-release of its own (a relative symlink to /usr/lib/os-release, as Debian has it)
// and a file only it holds.
func distroImage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := assembleImage(dir, "distro\n"); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"usr/lib/os-release":  "PRETTY_NAME=\"Test Distro 1\"\nNAME=\"Test Distro\"\nID=testdistro\n",
		"etc/distro-only":     "yes\n",
		"etc/hostname":        "image-hostname\n",
		"etc/hosts":           "127.0.0.1 localhost image-hosts\n",
		"usr/lib/distro-only": "",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../usr/lib/os-release", filepath.Join(dir, "etc/os-release")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestImagePerTemplate: a template with an image of its own (Options.ImageFor) boots on it,
// with the image's os-release and the server's hostname and hosts; a rebuild to another
// template lands on that template's image (the busybox one, whose os-release names the
// template) and back; a snapshot keeps the image it was taken on; /run/lock is there at every
// boot (Debian's daemons lock under /var/lock, a symlink to it).
func TestImagePerTemplate(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	m, err := New(ctx, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.19.41.0/24"), Logger: testLogger(t),
		ImageFor: map[string]string{"Debian 12": distroImage(t)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	ip, pw := netip.MustParseAddr("198.19.41.2"), "distro-pass-1"
	if err := m.Create(ctx, Spec{Ref: "vm-img", Hostname: "web-1", Template: "Debian 12", IPv4: ip, Username: "root", Password: pw}, ""); err != nil {
		t.Fatal(err)
	}
	onDistro := func(when string) {
		t.Helper()
		out := mustSSH(t, ip, pw, "cat /etc/os-release; cat /etc/distro-only; hostname; cat /etc/hosts; stat -c %A /run/lock")
		for _, want := range []string{"ID=testdistro", "yes", "web-1", "127.0.1.1\tweb-1", "drwxrwxrwt"} {
			if !strings.Contains(out, want) {
				t.Fatalf("%s: the machine says %q, want %q in it", when, out, want)
			}
		}
	}
	onDistro("created on Debian 12")
	mustSSH(t, ip, pw, "echo kept > /root/note")
	if _, err := m.Snapshot(ctx, "vm-img", "snap-img"); err != nil {
		t.Fatal(err)
	}

	pw = "distro-pass-2"
	if err := m.Rebuild(ctx, "vm-img", "Ubuntu 24.04", pw); err != nil {
		t.Fatal(err)
	}
	out := mustSSH(t, ip, pw, "cat /etc/os-release; test -e /etc/distro-only && echo distro-file; stat -c %A /run/lock")
	if !strings.Contains(out, "ID=reseller-sandbox") || !strings.Contains(out, `NAME="Ubuntu 24.04"`) || strings.Contains(out, "distro-file") {
		t.Fatalf("rebuilt to Ubuntu 24.04 (the default image): the machine says %q, want the template's os-release and no distro file", out)
	}

	if err := m.Restore(ctx, "vm-img", "snap-img"); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx, "vm-img"); err != nil {
		t.Fatal(err)
	}
	pw = "distro-pass-1" // the snapshot's
	onDistro("restored from a snapshot taken on Debian 12")
	if got := mustSSH(t, ip, pw, "cat /root/note"); got != "kept\n" {
		t.Fatalf("restored: /root/note = %q, want the snapshot's", got)
	}

	pw = "distro-pass-3"
	if err := m.Rebuild(ctx, "vm-img", "Debian 12", pw); err != nil {
		t.Fatal(err)
	}
	onDistro("rebuilt to Debian 12")
	if err := m.Reboot(ctx, "vm-img"); err != nil {
		t.Fatal(err)
	}
	onDistro("rebooted")
}

// TestCheckNamesAMissingImage: an image that does not exist, or has no /bin/sh, is named by
// Check (resellerd exits 2 with it at start).
func TestCheckNamesAMissingImage(t *testing.T) {
	noShell := t.TempDir()
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{ImageFor: map[string]string{"Debian 12": "/nonexistent/img"}}, `--machines-image-for "Debian 12" /nonexistent/img is not a directory`},
		{Options{ImageFor: map[string]string{"Debian 12": noShell}}, noShell + " has no /bin/sh"},
		{Options{Image: "/nonexistent/img"}, "--machines-image /nonexistent/img is not a directory"},
	} {
		err := checkHost(tt.o, hostFacts{euid: 0, lookPath: func(string) (string, error) { return "/bin/x", nil }, busybox: true, overlay: true})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %v, want it to say %q", tt.o, err, tt.want)
		}
	}
}
