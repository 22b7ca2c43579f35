package machines

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// inRoot is a directory of the host that holds a machine's files (its disk's upper layer),
// opened once, under which the host reads and writes only through openat2(2): every path is
// resolved by the kernel inside the directory (RESOLVE_IN_ROOT: an absolute symlink or ".."
// stays in it; RESOLVE_NO_MAGICLINKS: no /proc/self/fd jump out), and a file is replaced by a
// rename in its directory, which never follows a symlink at its name. So a symlink the
// machine's root left in its disk (`ln -s /any/host/path /etc/hosts`, a path read from
// mountinfo) leads the host to a file of that disk, never to one of the host or of another
// machine's disk.
type inRoot struct {
	fd   int
	path string // for errors
}

// resolveInRoot are the openat2 resolve flags of every lookup under an inRoot.
const resolveInRoot = unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS

// openInRoot opens dir, a directory of the host's own (never a symlink), as an inRoot.
func openInRoot(dir string) (*inRoot, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return &inRoot{fd: fd, path: dir}, nil
}

func (r *inRoot) Close() error { return unix.Close(r.fd) }

// openat2 opens rel (relative to dirfd, which is the root of the lookup) with resolveInRoot and
// extra resolve flags; EINTR and EAGAIN (a rename elsewhere raced the lookup) are retried.
func openat2(dirfd int, rel string, flags int, mode uint32, resolve uint64) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(mode), Resolve: resolveInRoot | resolve}
	for {
		fd, err := unix.Openat2(dirfd, rel, &how)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		return fd, err
	}
}

// realDir returns an open directory at rel whose every component is a real directory of the
// root: a symlink, file or anything else on the way is removed and replaced by a directory
// (perm), so what the host writes there is what the machine sees at that path, whatever the
// disk held. The caller closes the descriptor.
func (r *inRoot) realDir(rel string, perm uint32) (int, error) {
	// Close-on-exec like every descriptor here: machines' inits are started meanwhile, and a
	// descriptor of a disk leaking into one would be a way out of it.
	cur, err := unix.FcntlInt(uintptr(r.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, name := range strings.Split(path.Clean("/" + rel)[1:], "/") {
		if name == "" {
			continue
		}
		next, err := childDir(cur, name, perm)
		unix.Close(cur)
		if err != nil {
			return -1, fmt.Errorf("%s: directory %s: %w", r.path, rel, err)
		}
		cur = next
	}
	return cur, nil
}

// childDir opens the directory name in dirfd, making it one when it is missing or is not a
// directory (a symlink is not followed: it is replaced).
func childDir(dirfd int, name string, perm uint32) (int, error) {
	const flags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW
	fd, err := openat2(dirfd, name, flags, 0, unix.RESOLVE_NO_SYMLINKS)
	switch {
	case err == nil:
		return fd, nil
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
		if err := unix.Unlinkat(dirfd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return -1, fmt.Errorf("replace %s: %w", name, err)
		}
	case !errors.Is(err, unix.ENOENT):
		return -1, err
	}
	if err := unix.Mkdirat(dirfd, name, perm); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, err
	}
	return openat2(dirfd, name, flags, 0, unix.RESOLVE_NO_SYMLINKS)
}

// replaceFile makes rel a regular file holding data (perm), with every directory on its way a
// real one (realDir). The file is written under a fresh name and renamed over rel, so whatever
// rel was (a symlink, a hard link to another file, a directory) is replaced, never written
// through.
func (r *inRoot) replaceFile(rel string, data []byte, perm os.FileMode) error {
	dir, name := path.Split(path.Clean("/" + rel))
	dirfd, err := r.realDir(dir, 0o755)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	tmp, err := writeTemp(dirfd, name, data, perm)
	if err != nil {
		return fmt.Errorf("%s: write %s: %w", r.path, rel, err)
	}
	err = unix.Renameat(dirfd, tmp, dirfd, name)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
		if err = removeAt(dirfd, name); err == nil {
			err = unix.Renameat(dirfd, tmp, dirfd, name)
		}
	}
	if err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0)
		return fmt.Errorf("%s: replace %s: %w", r.path, rel, err)
	}
	return nil
}

// writeTemp writes data to a new file (O_EXCL: never an existing name, nor a symlink) beside
// name in dirfd, synced, with mode perm whatever the umask, and returns its name.
func writeTemp(dirfd int, name string, data []byte, perm os.FileMode) (string, error) {
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	tmp := "." + name + "-" + hex.EncodeToString(suffix[:])
	fd, err := openat2(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, uint32(perm), unix.RESOLVE_NO_SYMLINKS)
	if err != nil {
		return "", err
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, err = f.Write(data)
	err = errors.Join(err, f.Chmod(perm), f.Sync(), f.Close())
	if err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0)
		return "", err
	}
	return tmp, nil
}

// removeAt removes name from dirfd, a directory with everything under it, following no
// symlink; a missing name is not an error.
func removeAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) {
		return err
	}
	fd, err := openat2(dirfd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0, unix.RESOLVE_NO_SYMLINKS)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	names, err := namesAt(fd)
	for _, child := range names {
		if err == nil {
			err = removeAt(fd, child)
		}
	}
	if err != nil {
		return err
	}
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}

// namesAt lists the directory dirfd (an O_PATH descriptor too).
func namesAt(dirfd int) ([]string, error) {
	fd, err := openat2(dirfd, ".", unix.O_RDONLY|unix.O_DIRECTORY, 0, 0)
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(fd), ".")
	defer d.Close()
	return d.Readdirnames(-1)
}
