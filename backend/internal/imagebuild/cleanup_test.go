package imagebuild

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRemoveBuildDetachesMountsFirst: a build directory with a host directory bind-mounted in
// it (as a killed mmdebstrap leaves /dev) is removed without touching the host directory.
func TestRemoveBuildDetachesMountsFirst(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("needs root (a bind mount); CI is set, so it must run")
		}
		t.Skip("needs root (a bind mount)")
	}
	host := t.TempDir()
	if err := os.WriteFile(filepath.Join(host, "node"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := filepath.Join(t.TempDir(), ".img.build-1")
	target := filepath.Join(build, "dev")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(host, target, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Unmount(target, unix.MNT_DETACH) })
	if got := mountsUnder(build); len(got) != 1 || got[0] != target {
		t.Fatalf("mountsUnder = %v, want [%s]", got, target)
	}
	if err := removeBuild(build); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(build); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", build, err)
	}
	if data, err := os.ReadFile(filepath.Join(host, "node")); err != nil || string(data) != "keep" {
		t.Errorf("the bind-mounted host directory lost its file: %q (%v)", data, err)
	}
}
