package machines

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestCopyTreeKeepsWhatCpKeeps: owners, modes, times, symlinks, hard links, whiteouts, FIFOs,
// an opaque directory's xattr and a sparse file's holes come through the copy.
func TestCopyTreeKeepsWhatCpKeeps(t *testing.T) {
	requireRoot(t)
	src := filepath.Join(t.TempDir(), "src")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "etc", "opaque"), 0o750))
	must(os.WriteFile(filepath.Join(src, "etc", "file"), []byte("content"), 0o640))
	sparse, err := os.Create(filepath.Join(src, "sparse"))
	must(err)
	_, err = sparse.WriteAt([]byte("end"), 1<<30)
	must(errors.Join(err, sparse.Close()))
	must(os.Chown(filepath.Join(src, "etc", "file"), 1000, 1001))
	must(os.Link(filepath.Join(src, "etc", "file"), filepath.Join(src, "hardlink")))
	must(os.Symlink("/etc/file", filepath.Join(src, "symlink")))
	must(unix.Mknod(filepath.Join(src, "etc", "whiteout"), unix.S_IFCHR, 0))
	must(unix.Mkfifo(filepath.Join(src, "fifo"), 0o600))
	must(unix.Setxattr(filepath.Join(src, "etc", "opaque"), "trusted.overlay.opaque", []byte("y"), 0))
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	must(os.Chtimes(filepath.Join(src, "etc", "file"), old, old))
	must(os.Chtimes(filepath.Join(src, "etc"), old, old))

	dst := filepath.Join(t.TempDir(), "dst")
	must(copyTree(context.Background(), src, dst))

	var st unix.Stat_t
	must(unix.Lstat(filepath.Join(dst, "etc", "file"), &st))
	if st.Uid != 1000 || st.Gid != 1001 || st.Mode&0o7777 != 0o640 || st.Mtim.Sec != old.Unix() {
		t.Errorf("etc/file: uid %d gid %d mode %o mtime %d, want 1000 1001 640 %d", st.Uid, st.Gid, st.Mode&0o7777, st.Mtim.Sec, old.Unix())
	}
	file := st.Ino
	must(unix.Lstat(filepath.Join(dst, "hardlink"), &st))
	if st.Ino != file {
		t.Error("hardlink is not a hard link to etc/file any more")
	}
	must(unix.Lstat(filepath.Join(dst, "etc"), &st))
	if st.Mode&0o7777 != 0o750 || st.Mtim.Sec != old.Unix() {
		t.Errorf("etc: mode %o mtime %d, want 750 %d", st.Mode&0o7777, st.Mtim.Sec, old.Unix())
	}
	if target, err := os.Readlink(filepath.Join(dst, "symlink")); err != nil || target != "/etc/file" {
		t.Errorf("symlink: %q, %v, want /etc/file", target, err)
	}
	must(unix.Lstat(filepath.Join(dst, "etc", "whiteout"), &st))
	if st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != 0 {
		t.Errorf("whiteout: mode %o rdev %d, want a 0:0 character device", st.Mode, st.Rdev)
	}
	must(unix.Lstat(filepath.Join(dst, "sparse"), &st))
	if st.Size != 1<<30+3 || st.Blocks*512 > 1<<20 {
		t.Errorf("sparse: %d bytes in %d blocks, want 1 GiB and 3 bytes in a few blocks", st.Size, st.Blocks)
	}
	if f, err := os.Open(filepath.Join(dst, "sparse")); err == nil {
		head, tail := make([]byte, 3), make([]byte, 3)
		_, err1 := f.ReadAt(head, 0)
		_, err2 := f.ReadAt(tail, 1<<30)
		if err := errors.Join(err1, err2, f.Close()); err != nil || string(head) != "\x00\x00\x00" || string(tail) != "end" {
			t.Errorf("sparse: starts %q and ends %q (%v), want zeros and end", head, tail, err)
		}
	}
	must(unix.Lstat(filepath.Join(dst, "fifo"), &st))
	if st.Mode&unix.S_IFMT != unix.S_IFIFO {
		t.Errorf("fifo: mode %o, want a FIFO", st.Mode)
	}
	buf := make([]byte, 8)
	if n, err := unix.Getxattr(filepath.Join(dst, "etc", "opaque"), "trusted.overlay.opaque", buf); err != nil || string(buf[:n]) != "y" {
		t.Errorf("etc/opaque's trusted.overlay.opaque: %q, %v, want y", buf[:n], err)
	}
}

// TestCopyTreeDoesNotFollowASwap: a directory the machine's root swaps for a symlink to a host
// directory between the copy's listing and its opening is not read through: the host's file
// stays out of the copy (`cp -a`, opening directories by path, copied it).
func TestCopyTreeDoesNotFollowASwap(t *testing.T) {
	requireRoot(t)
	host := t.TempDir()
	if err := os.WriteFile(filepath.Join(host, "shadow"), []byte("host secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "src")
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	swap := func(rel string) {
		if rel != "a" {
			return
		}
		if err := os.Rename(filepath.Join(src, "a"), filepath.Join(src, "a-was")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(host, filepath.Join(src, "a")); err != nil {
			t.Error(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "dst")
	c := &treeCopier{ctx: context.Background(), links: map[fileID]string{}, beforeOpen: swap}
	if err := c.copy(src, dst); err != nil {
		t.Fatal(err)
	}
	_ = filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "shadow" {
			t.Errorf("the host's file was copied to %s", p)
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(dst, "b")); err != nil {
		t.Errorf("the copy went no further than the swap: %v", err)
	}
}
