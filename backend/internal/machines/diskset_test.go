package machines

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestCopyDiskSetIsSparse: a disk set's copy keeps a sparse disk sparse (its holes take no
// room in the copy) with the same bytes, names no default image of the Dir it came from, and
// leaves the rest of the Dir (its image, its host id) out.
func TestCopyDiskSetIsSparse(t *testing.T) {
	dir := t.TempDir()
	vm := filepath.Join(dir, "machines", "vm-1")
	if err := os.MkdirAll(vm, 0o700); err != nil {
		t.Fatal(err)
	}
	const size = 1 << 30
	img := filepath.Join(vm, "disk.img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("disk"), 1024)
	if _, err := f.WriteAt(data, size/2); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(f.Truncate(size), f.Close()); err != nil {
		t.Fatal(err)
	}
	spec := `{"ref": "vm-1", "image": "` + filepath.Join(dir, "image") + `"}`
	for path, content := range map[string]string{filepath.Join(vm, "spec.json"): spec, filepath.Join(dir, "host-id"): "host-x",
		filepath.Join(dir, "image", "bin", "sh"): "", filepath.Join(dir, "snapshots", "snap-1", "image"): filepath.Join(dir, "image")} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	to := filepath.Join(t.TempDir(), "saved")
	if err := CopyDiskSet(context.Background(), dir, to); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(filepath.Join(to, "machines", "vm-1", "disk.img"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != size || st.Blocks*512 > 1<<20 {
		t.Fatalf("the copy is %d bytes taking %d on disk; want %d taking little more than its data", st.Size, st.Blocks*512, size)
	}
	got := make([]byte, len(data))
	cp, err := os.Open(filepath.Join(to, "machines", "vm-1", "disk.img"))
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if _, err := cp.ReadAt(got, size/2); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the copy's data differs (%v)", err)
	}
	if refs := DiskSetRefs(to); len(refs) != 1 || refs[0] != "vm-1" {
		t.Fatalf("the copy's machines: %v", refs)
	}
	if b, _ := os.ReadFile(filepath.Join(to, "machines", "vm-1", "spec.json")); strings.Contains(string(b), filepath.Join(dir, "image")) {
		t.Fatalf("the copy's spec still names the Dir's default image: %s", b)
	}
	if b, err := os.ReadFile(filepath.Join(to, "snapshots", "snap-1", "image")); err != nil || len(b) != 0 {
		t.Fatalf("the copy's snapshot names image %q (%v); want none", b, err)
	}
	for _, name := range []string{"image", "host-id"} {
		if _, err := os.Stat(filepath.Join(to, name)); err == nil {
			t.Fatalf("the copy holds the Dir's %s", name)
		}
	}
}

// lockedDiskSet makes a Dir with one machine's disk directory and takes its lock, as a running
// Manager holds it.
func lockedDiskSet(t *testing.T) (dir string, lock *os.File) {
	t.Helper()
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "machines", "vm-1"), 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, lock
}

// TestDiskSetRefusesARunningManager: a disk set whose Dir's Manager runs (its lock held) is
// neither copied, moved nor removed.
func TestDiskSetRefusesARunningManager(t *testing.T) {
	dir, lock := lockedDiskSet(t)
	defer lock.Close()
	for name, err := range map[string]error{
		"copy":   CopyDiskSet(context.Background(), dir, filepath.Join(t.TempDir(), "c")),
		"move":   MoveDiskSet(dir, filepath.Join(t.TempDir(), "m")),
		"remove": RemoveDiskSet(dir),
	} {
		if err == nil || !strings.Contains(err.Error(), "in use by a running Manager") {
			t.Errorf("%s: %v; want it refused", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "machines", "vm-1")); err != nil {
		t.Fatalf("the machine is gone: %v", err)
	}
}

// TestDiskSetWaitsForALockCopyToGo: a Dir's lock held for a moment by another open file (as a
// child forked by another goroutine holds the descriptor of a Manager just closed, until its
// exec) does not refuse the disk set: it is tried again until that copy is closed. A lock
// still held after lockWait refuses it (TestDiskSetRefusesARunningManager).
func TestDiskSetWaitsForALockCopyToGo(t *testing.T) {
	dir, lock := lockedDiskSet(t)
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(lockWait / 10)
		_ = lock.Close()
	}()
	if err := RemoveDiskSet(dir); err != nil {
		t.Fatalf("remove while the lock was held for a moment: %v", err)
	}
	<-released
	if _, err := os.Stat(filepath.Join(dir, "machines", "vm-1")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the machine is still there: %v", err)
	}
}
