package machines

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestInRootReplaceFile: replaceFile writes inside the root whatever the root holds at the path
// (a symlink out, a symlinked directory on the way, a directory), and the host's file is left.
func TestInRootReplaceFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root, host string) error
	}{
		{"a symlink to a host file", func(t *testing.T, root, host string) error {
			return os.Symlink(filepath.Join(host, "hosts"), filepath.Join(root, "etc", "hosts"))
		}},
		{"a relative symlink climbing out", func(t *testing.T, root, host string) error {
			return os.Symlink("../../../../../../../.."+filepath.Join(host, "hosts"), filepath.Join(root, "etc", "hosts"))
		}},
		{"the directory a symlink to a host directory", func(t *testing.T, root, host string) error {
			if err := os.RemoveAll(filepath.Join(root, "etc")); err != nil {
				return err
			}
			return os.Symlink(host, filepath.Join(root, "etc"))
		}},
		{"a directory", func(t *testing.T, root, host string) error {
			return os.MkdirAll(filepath.Join(root, "etc", "hosts", "sub"), 0o755)
		}},
		{"a hard link to another file of the root", func(t *testing.T, root, host string) error {
			if err := os.WriteFile(filepath.Join(root, "other"), []byte("other\n"), 0o644); err != nil {
				return err
			}
			return os.Link(filepath.Join(root, "other"), filepath.Join(root, "etc", "hosts"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, host := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(host, "hosts"), []byte("host's\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(root, "etc"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.setup(t, root, host); err != nil {
				t.Fatal(err)
			}
			r, err := openInRoot(root)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.replaceFile("etc/hosts", []byte("machine's\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(host, "hosts")); string(got) != "host's\n" {
				t.Errorf("the host's file holds %q, want it unchanged", got)
			}
			if got, _ := os.ReadFile(filepath.Join(root, "other")); len(got) > 0 && string(got) != "other\n" {
				t.Errorf("the file hard-linked to the target holds %q, want it unchanged", got)
			}
			fi, err := os.Lstat(filepath.Join(root, "etc", "hosts"))
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
				t.Fatalf("etc/hosts: %v, %v, want a regular file of mode 0644", fi, err)
			}
			if got, _ := os.ReadFile(filepath.Join(root, "etc", "hosts")); string(got) != "machine's\n" {
				t.Errorf("etc/hosts holds %q, want the machine's", got)
			}
		})
	}
}

// TestInRootDescriptorsCloseOnExec: a descriptor of a disk must not leak into a machine's init
// started meanwhile.
func TestInRootDescriptorsCloseOnExec(t *testing.T) {
	t.Parallel()
	r, err := openInRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fds := map[string]int{"the root": r.fd}
	for _, rel := range []string{"/", "etc/ssh"} {
		fd, err := r.realDir(rel, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		fds["realDir "+rel] = fd
	}
	for name, fd := range fds {
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC == 0 {
			t.Errorf("%s's descriptor: flags %#x, %v, want FD_CLOEXEC", name, flags, err)
		}
	}
}
