package machineinit

import (
	"os/exec"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestOnlyStandardLibrary keeps this package's dependencies in the standard library: with one
// outside it, Go would initialize it later, after resellerd's heavy packages, and every idle
// machine's PID 1 would carry their memory (see the package's doc).
func TestOnlyStandardLibrary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	self := "github.com/reseller/terraform-provider-reseller/backend/internal/machines/machineinit"
	for _, dep := range strings.Fields(string(out)) {
		if dep != self {
			t.Errorf("machineinit depends on %s, outside the standard library", dep)
		}
	}
}

// TestKeptCapsAreDockersDefaultWithoutMknod checks the capability numbers written out here
// against x/sys/unix's names.
func TestKeptCapsAreDockersDefaultWithoutMknod(t *testing.T) {
	want := map[int]bool{
		unix.CAP_CHOWN: true, unix.CAP_DAC_OVERRIDE: true, unix.CAP_FSETID: true, unix.CAP_FOWNER: true,
		unix.CAP_NET_RAW: true, unix.CAP_SETGID: true, unix.CAP_SETUID: true, unix.CAP_SETFCAP: true,
		unix.CAP_SETPCAP: true, unix.CAP_NET_BIND_SERVICE: true, unix.CAP_SYS_CHROOT: true,
		unix.CAP_KILL: true, unix.CAP_AUDIT_WRITE: true,
	}
	got := KeptCaps()
	if len(got) != len(want) {
		t.Fatalf("kept %d capabilities, want %d", len(got), len(want))
	}
	for _, c := range got {
		if !want[c] {
			t.Errorf("capability %d kept, not in Docker's default set without CAP_MKNOD", c)
		}
	}
	if capLastCapFallback != unix.CAP_CHECKPOINT_RESTORE {
		t.Errorf("fallback last capability %d, want CAP_CHECKPOINT_RESTORE (%d)", capLastCapFallback, unix.CAP_CHECKPOINT_RESTORE)
	}
}

// TestMountAPINumbers checks the numbers machineinit writes out for the new mount API, prctl
// and AT_EMPTY_PATH against x/sys/unix's.
func TestMountAPINumbers(t *testing.T) {
	cases := []struct {
		name      string
		got, want uintptr
	}{
		{"SYS_OPEN_TREE", sysOpenTree, unix.SYS_OPEN_TREE},
		{"SYS_MOVE_MOUNT", sysMoveMount, unix.SYS_MOVE_MOUNT},
		{"SYS_MOUNT_SETATTR", sysMountSetattr, unix.SYS_MOUNT_SETATTR},
		{"OPEN_TREE_CLONE", openTreeClone, unix.OPEN_TREE_CLONE},
		{"MOVE_MOUNT_F_EMPTY_PATH", moveMountFEmptyPath, unix.MOVE_MOUNT_F_EMPTY_PATH},
		{"MOUNT_ATTR_RDONLY", mountAttrRdonly, unix.MOUNT_ATTR_RDONLY},
		{"MOUNT_ATTR_IDMAP", mountAttrIdmap, unix.MOUNT_ATTR_IDMAP},
		{"AT_EMPTY_PATH", atEmptyPath, unix.AT_EMPTY_PATH},
		{"PR_SET_SECUREBITS", prSetSecurebits, unix.PR_SET_SECUREBITS},
		{"sizeof(struct mount_attr)", unsafe.Sizeof(mountAttr{}), unsafe.Sizeof(unix.MountAttr{})},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
	if fdcwd := unix.AT_FDCWD; uintptr(fdcwd) != atFDCWD {
		t.Errorf("atFDCWD = %#x, want AT_FDCWD (%d)", atFDCWD, unix.AT_FDCWD)
	}
}

func TestMkdev(t *testing.T) {
	for _, d := range devices {
		if got, want := mkdev(d.major, d.minor), int(unix.Mkdev(uint32(d.major), uint32(d.minor))); got != want {
			t.Errorf("/dev/%s: mkdev(%d, %d) = %d, want %d", d.name, d.major, d.minor, got, want)
		}
	}
}
