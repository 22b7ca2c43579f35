package machines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	"golang.org/x/sys/unix"
)

// copyTimeout bounds a disk copy whose ctx has no deadline of its own.
const copyTimeout = 10 * time.Minute

// copyTree copies the directory src to dst (which must not exist) as `cp -a` would: ownership,
// modes, times, hard links, symlinks as symlinks, device nodes (overlayfs's whiteouts are 0:0
// character devices), and xattrs (trusted.overlay.* marks opaque directories). It is bounded by
// ctx (by copyTimeout when ctx has no deadline).
//
// src may be a running machine's disk, changed by its root while it is copied, so every entry
// is opened from its parent's descriptor without following a symlink (openat2
// RESOLVE_NO_SYMLINKS): a directory swapped for a symlink to a host path between its listing
// and its opening is skipped, never read through. (`cp -a` opens directories by path, which
// follows such a symlink: the host's files would end in the snapshot.)
func copyTree(ctx context.Context, src, dst string) error {
	ctx, cancel := withDefault(ctx, copyTimeout)
	defer cancel()
	return (&treeCopier{ctx: ctx, links: map[fileID]string{}}).copy(src, dst)
}

// treeCopier is one copyTree.
type treeCopier struct {
	ctx   context.Context
	dst   int               // dst's descriptor
	links map[fileID]string // a hard-linked source file's first copy, relative to dst
	// beforeOpen, when set (tests), runs between an entry's listing and its opening: where a
	// change made by the machine's root while it is copied lands.
	beforeOpen func(rel string)
}

// fileID names a source file for hard links.
type fileID struct{ dev, ino uint64 }

func (c *treeCopier) copy(src, dst string) error {
	srcfd, err := unix.Open(src, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer unix.Close(srcfd)
	if err := os.Mkdir(dst, 0o700); err != nil {
		return fmt.Errorf("copy to %s: %w", dst, err)
	}
	if c.dst, err = unix.Open(dst, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
		return fmt.Errorf("copy to %s: %w", dst, err)
	}
	defer unix.Close(c.dst)
	var st unix.Stat_t
	if err := unix.Fstat(srcfd, &st); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := c.copyDir(srcfd, c.dst, "."); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	if err := copyAttrs(srcfd, c.dst, &st); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return setTimes(unix.AT_FDCWD, dst, &st)
}

// copyDir copies what the directory srcfd holds into dstfd; rel is its path, for errors.
func (c *treeCopier) copyDir(srcfd, dstfd int, rel string) error {
	names, err := namesAt(srcfd)
	if err != nil {
		return fmt.Errorf("list %s: %w", rel, err)
	}
	for _, name := range names {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		var st unix.Stat_t
		err := unix.Fstatat(srcfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.ENOENT) {
			continue // removed while copied
		}
		if err != nil {
			return fmt.Errorf("stat %s: %w", path.Join(rel, name), err)
		}
		if err := c.copyEntry(srcfd, dstfd, name, path.Join(rel, name), &st); err != nil {
			return err
		}
	}
	return nil
}

// copyEntry copies srcfd's entry name (st as listed) into dstfd.
func (c *treeCopier) copyEntry(srcfd, dstfd int, name, rel string, st *unix.Stat_t) error {
	id := fileID{uint64(st.Dev), st.Ino}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR && st.Nlink > 1 {
		if first, ok := c.links[id]; ok {
			return c.link(first, dstfd, name)
		}
		c.links[id] = rel
	}
	if c.beforeOpen != nil {
		c.beforeOpen(rel)
	}
	var err error
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		err = c.copySubdir(srcfd, dstfd, name, rel)
	case unix.S_IFREG:
		err = copyFileAt(srcfd, dstfd, name)
	case unix.S_IFLNK:
		err = copySymlinkAt(srcfd, dstfd, name, st)
	default: // devices (whiteouts among them), FIFOs, sockets
		err = copyNodeAt(dstfd, name, st)
	}
	if errors.Is(err, errChanged) {
		delete(c.links, id)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	return nil
}

// errChanged is an entry that was no longer what its listing said when opened: changed by the
// machine while copied, and skipped, as a copy of a live disk may miss what changes during it.
var errChanged = errors.New("changed while copied")

// openEntry opens srcfd's entry name without following a symlink anywhere; an entry that is
// gone or has turned into a symlink is errChanged.
func openEntry(srcfd int, name string, flags int) (int, error) {
	fd, err := openat2(srcfd, name, flags|unix.O_NOFOLLOW, 0, unix.RESOLVE_NO_SYMLINKS)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return -1, errChanged
	}
	return fd, err
}

func (c *treeCopier) copySubdir(srcfd, dstfd int, name, rel string) error {
	sub, err := openEntry(srcfd, name, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(sub)
	var st unix.Stat_t
	if err := unix.Fstat(sub, &st); err != nil {
		return err
	}
	if err := unix.Mkdirat(dstfd, name, 0o700); err != nil {
		return err
	}
	out, err := openat2(dstfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0, unix.RESOLVE_NO_SYMLINKS)
	if err != nil {
		return err
	}
	defer unix.Close(out)
	if err := c.copyDir(sub, out, rel); err != nil {
		return err
	}
	if err := copyAttrs(sub, out, &st); err != nil {
		return err
	}
	return setTimes(dstfd, name, &st)
}

func copyFileAt(srcfd, dstfd int, name string) error {
	in, err := openEntry(srcfd, name, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return err
	}
	inFile := os.NewFile(uintptr(in), name)
	defer inFile.Close()
	var st unix.Stat_t
	if err := unix.Fstat(in, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return errChanged
	}
	out, err := openat2(dstfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o600, unix.RESOLVE_NO_SYMLINKS)
	if err != nil {
		return err
	}
	outFile := os.NewFile(uintptr(out), name)
	defer outFile.Close()
	if err := cloneOrCopyData(inFile, outFile, st.Size); err != nil {
		return err
	}
	if err := copyAttrs(in, out, &st); err != nil {
		return err
	}
	return setTimes(dstfd, name, &st)
}

// cloneOrCopyData makes out a reflink of in (FICLONE) where the file system shares blocks
// between files (btrfs, XFS), which takes no room until either changes, and otherwise copies
// in's data regions (copyData).
func cloneOrCopyData(in, out *os.File, size int64) error {
	if unix.IoctlFileClone(int(out.Fd()), int(in.Fd())) == nil {
		return nil
	}
	return copyData(in, out, size)
}

// copyData copies in's data regions to out and leaves its holes holes (as `cp -a` does): a
// sparse file the machine made, of any apparent size, takes no more room in the copy.
func copyData(in, out *os.File, size int64) error {
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		start, err := in.Seek(off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // nothing but a hole to the end
		}
		if err != nil {
			return err
		}
		end, err := in.Seek(start, unix.SEEK_HOLE)
		if err != nil {
			return err
		}
		if _, err := io.CopyBuffer(io.NewOffsetWriter(out, start), io.NewSectionReader(in, start, end-start), buf); err != nil {
			return err
		}
		off = end
	}
	return out.Truncate(size)
}

func copySymlinkAt(srcfd, dstfd int, name string, st *unix.Stat_t) error {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(srcfd, name, buf)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EINVAL) {
		return errChanged
	}
	if err != nil {
		return err
	}
	if err := unix.Symlinkat(string(buf[:n]), dstfd, name); err != nil {
		return err
	}
	if err := unix.Fchownat(dstfd, name, int(st.Uid), int(st.Gid), unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	return setTimes(dstfd, name, st)
}

func copyNodeAt(dstfd int, name string, st *unix.Stat_t) error {
	if err := unix.Mknodat(dstfd, name, st.Mode, int(st.Rdev)); err != nil {
		return err
	}
	if err := unix.Fchownat(dstfd, name, int(st.Uid), int(st.Gid), unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if err := unix.Fchmodat(dstfd, name, st.Mode&0o7777, 0); err != nil {
		return err
	}
	return setTimes(dstfd, name, st)
}

// link makes name in dstfd a hard link to the copy at first (relative to dst), whose directory
// is resolved without following a symlink: dst holds the machine's symlinks too.
func (c *treeCopier) link(first string, dstfd int, name string) error {
	dir, err := openat2(c.dst, path.Dir(first), unix.O_PATH|unix.O_DIRECTORY, 0, unix.RESOLVE_NO_SYMLINKS)
	if err != nil {
		return fmt.Errorf("hard link to %s: %w", first, err)
	}
	defer unix.Close(dir)
	if err := unix.Linkat(dir, path.Base(first), dstfd, name, 0); err != nil {
		return fmt.Errorf("hard link to %s: %w", first, err)
	}
	return nil
}

// copyAttrs gives the open copy out the xattrs, owner and mode of the open source in (st).
func copyAttrs(in, out int, st *unix.Stat_t) error {
	if err := copyXattrs(in, out); err != nil {
		return err
	}
	if err := unix.Fchown(out, int(st.Uid), int(st.Gid)); err != nil {
		return err
	}
	return unix.Fchmod(out, st.Mode&0o7777) // after the owner: chown clears set-id bits
}

// copyXattrs copies every extended attribute of in to out.
func copyXattrs(in, out int) error {
	size, err := unix.Flistxattr(in, nil)
	if err != nil || size == 0 {
		if errors.Is(err, unix.ENOTSUP) {
			return nil
		}
		return err
	}
	list := make([]byte, size)
	if size, err = unix.Flistxattr(in, list); err != nil {
		return err
	}
	for _, name := range splitNul(list[:size]) {
		n, err := unix.Fgetxattr(in, name, nil)
		if err != nil {
			return fmt.Errorf("xattr %s: %w", name, err)
		}
		value := make([]byte, n)
		if n, err = unix.Fgetxattr(in, name, value); err != nil {
			return fmt.Errorf("xattr %s: %w", name, err)
		}
		if err := unix.Fsetxattr(out, name, value[:n], 0); err != nil {
			return fmt.Errorf("xattr %s: %w", name, err)
		}
	}
	return nil
}

// splitNul splits a list of NUL-terminated names.
func splitNul(b []byte) []string {
	var names []string
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		if i > 0 {
			names = append(names, string(b[:i]))
		}
		b = b[min(i+1, len(b)):]
	}
	return names
}

// setTimes gives dirfd's entry name st's access and modification times, not following a
// symlink (a symlink's own times are set).
func setTimes(dirfd int, name string, st *unix.Stat_t) error {
	ts := []unix.Timespec{st.Atim, st.Mtim}
	return unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW)
}
