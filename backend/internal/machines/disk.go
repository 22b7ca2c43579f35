package machines

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A machine's disk is a filesystem of the plan's size: a sparse file, disk.img in the machine's
// directory, formatted ext4 and mounted (through a loop device) at disk/ on the host while the
// machine runs or the host works on it (a snapshot, a restore). The overlay's upper layer and
// work directory are disk/upper and disk/work, as on a disk without an image, so snapshots stay
// plain copies of disk/upper and a snapshot taken before disks had a size restores into one that
// has. Writes past its size fail inside with ENOSPC, `df /` shows its size, and its inodes are
// bounded with it (ext4's one per 16 KiB). The loop device is set to clear itself when the
// filesystem is unmounted, so a stopped, deleted or closed machine holds none.
//
// A machine whose Limits give no disk size (DiskGB and DiskMB 0), and one made before disks had
// a size, has its disk/ on Dir's filesystem, unbounded, as before.

// diskImage is the file of mc's disk filesystem.
func (mc *machine) diskImage() string { return filepath.Join(mc.dir, "disk.img") }

// diskMount is where mc's disk is mounted on the host, the directory holding upper/ and work/.
func (mc *machine) diskMount() string { return filepath.Join(mc.dir, "disk") }

// diskBytes is the size of a disk with limits l; 0 for a disk without a size of its own.
func (l Limits) diskBytes() int64 {
	if l.DiskMB > 0 {
		return int64(l.DiskMB) << 20
	}
	return int64(l.DiskGB) << 30
}

// hasImage says whether mc's disk is a filesystem of its own.
func (mc *machine) hasImage() bool {
	_, err := os.Stat(mc.diskImage())
	return err == nil
}

// freshDisk replaces mc's disk by an empty one of size bytes (0: a directory on Dir's
// filesystem), left mounted with empty upper/ and work/ directories. The machine is off.
func (m *Manager) freshDisk(ctx context.Context, mc *machine, size int64) error {
	if err := releaseDisk(mc); err != nil {
		return err
	}
	err := os.Remove(mc.diskImage())
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if err = errors.Join(err, os.RemoveAll(mc.diskMount())); err != nil {
		return fmt.Errorf("machine %s: remove its disk: %w", mc.ref, err)
	}
	if err := os.Mkdir(mc.diskMount(), 0o700); err != nil {
		return fmt.Errorf("machine %s: disk: %w", mc.ref, err)
	}
	if size > 0 {
		if err := makeImage(ctx, mc.diskImage(), size); err != nil {
			return fmt.Errorf("machine %s: disk: %w", mc.ref, err)
		}
		if err := mountDisk(ctx, mc, 0); err != nil {
			return err
		}
	}
	d := disk(mc.dir)
	if err := errors.Join(os.Mkdir(d.upper, 0o755), os.Mkdir(d.work, 0o700)); err != nil {
		return fmt.Errorf("machine %s: disk: %w", mc.ref, err)
	}
	return nil
}

// makeImage writes a sparse file of size bytes holding an empty ext4 filesystem: no blocks
// reserved for root (the whole size is the machine's), inode tables left for the kernel to
// treat as unused rather than written out (mkfs's lazy_itable_init, and noinit_itable at
// mount), so a 40 GB disk costs the host only what the machine writes.
func makeImage(ctx context.Context, path string, size int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	err = errors.Join(f.Truncate(size), f.Close())
	if err == nil {
		_, err = command(ctx, "", "mkfs.ext4", "-q", "-F", "-m", "0", "-i", "16384", "-L", "reseller-disk",
			"-E", "lazy_itable_init=1,lazy_journal_init=1,nodiscard", path)
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

// mountDisk mounts mc's disk image at disk/ through a loop device that clears itself at
// unmount, first growing its filesystem to size bytes where it is smaller (a grow that could
// not be made while it ran, see growDisk); a disk without an image, or one mounted already, is
// left as it is.
func mountDisk(ctx context.Context, mc *machine, size int64) error {
	if !mc.hasImage() || mounted(mc.diskMount()) {
		return nil
	}
	if err := waitDiskFree(ctx, mc.diskImage()); err != nil {
		return fmt.Errorf("machine %s: %w", mc.ref, err)
	}
	if err := growOffline(ctx, mc.diskImage(), size); err != nil {
		return fmt.Errorf("machine %s: grow its disk: %w", mc.ref, err)
	}
	if _, err := command(ctx, "", "mount", "-t", "ext4", "-o", "loop,noinit_itable", mc.diskImage(), mc.diskMount()); err != nil {
		return fmt.Errorf("machine %s: mount its disk: %w", mc.ref, err)
	}
	return nil
}

// releaseDisk unmounts mc's disk, which frees its loop device once no other mount namespace
// holds its filesystem (detachCopies, waitDiskFree); a disk not mounted is left.
func releaseDisk(mc *machine) error {
	dir := mc.diskMount()
	if !mounted(dir) {
		return nil
	}
	if err := unix.Unmount(dir, 0); err != nil {
		return fmt.Errorf("machine %s: unmount its disk: %w", mc.ref, err)
	}
	return detachCopies(dir)
}

// detachCopies removes dir, a disk's mount point just unmounted here, and makes it again.
// Removing a directory detaches what is mounted on it in every other mount namespace (Linux
// 3.18, "vfs: Lazily remove mounts on unlinked files and directories"), so the copies of the
// host's mounts that namespaces made while the disk was mounted let its filesystem go: a booting
// machine's, until its init pivots, and any a host process makes (mmdebstrap, `unshare -m`) for
// as long as it runs. Propagation carries the unmount only into copies still in the host's
// peer group, and none are where the host's mounts are private (a host without systemd, as
// CI's). A copy that a process still uses lives on until it lets go (waitDiskFree waits for that).
func detachCopies(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if err := os.Remove(dir); err != nil {
		return fmt.Errorf("the disk's mount point: %w", err)
	}
	if err := os.Mkdir(dir, fi.Mode().Perm()); err != nil {
		return fmt.Errorf("the disk's mount point: %w", err)
	}
	return os.Chmod(dir, fi.Mode().Perm()) // past the umask
}

// withDisk runs f with mc's disk mounted, and unmounts it afterwards unless the machine runs.
func withDisk(ctx context.Context, mc *machine, f func() error) error {
	if err := mountDisk(ctx, mc, 0); err != nil {
		return err
	}
	err := f()
	if !mc.run.alive() {
		err = errors.Join(err, releaseDisk(mc))
	}
	return err
}

// growDisk makes mc's disk size bytes when its filesystem is smaller: a running machine's at
// once where the kernel lets the host grow a mounted ext4 (it needs CAP_SYS_RESOURCE), else at
// its next boot (mountDisk); a stopped machine's now. A disk is never shrunk (nor a machine's
// files given up): a smaller size is kept for its next fresh disk. A disk without an image gets
// one at its next fresh disk (rebuild, restore).
func (m *Manager) growDisk(ctx context.Context, mc *machine, size int64) error {
	if !mc.hasImage() {
		return nil
	}
	if !mounted(mc.diskMount()) {
		if err := waitDiskFree(ctx, mc.diskImage()); err != nil {
			return fmt.Errorf("machine %s: %w", mc.ref, err)
		}
		return growOffline(ctx, mc.diskImage(), size)
	}
	now, err := fsBytes(ctx, mc.diskImage())
	if err != nil || now >= size {
		return err
	}
	if err := growOnline(ctx, mc, size); err != nil {
		m.log.Warn("machine disk grows at its next boot", "ref", mc.ref, "bytes", size, "error", err)
	}
	return nil
}

// growOnline grows the mounted filesystem of mc's disk to size bytes: the file grows, the loop
// device is told, and resize2fs grows the filesystem.
func growOnline(ctx context.Context, mc *machine, size int64) error {
	if err := os.Truncate(mc.diskImage(), size); err != nil {
		return err
	}
	dev, err := loopDevice(mc.diskMount())
	if err != nil {
		return err
	}
	if err := setCapacity(dev); err != nil {
		return err
	}
	_, err = command(ctx, "", "resize2fs", dev)
	return err
}

// growOffline grows the filesystem in the unmounted image to size bytes where it is smaller.
func growOffline(ctx context.Context, image string, size int64) error {
	now, err := fsBytes(ctx, image)
	if err != nil || now >= size {
		return err
	}
	if fi, err := os.Stat(image); err != nil {
		return err
	} else if fi.Size() < size {
		if err := os.Truncate(image, size); err != nil {
			return err
		}
	}
	if err := checkFS(ctx, image); err != nil { // resize2fs asks for a checked filesystem
		return err
	}
	_, err = command(ctx, "", "resize2fs", image)
	return err
}

// diskFreeTimeout bounds waitDiskFree: a machine's boot holds a copy of the host's mounts
// from its clone until its init has made its root, a second at most on a busy host.
const diskFreeTimeout = 30 * time.Second

// waitDiskFree waits, within diskFreeTimeout and ctx, until no loop device is backed by the
// unmounted disk image, so that its filesystem is no longer mounted anywhere. The host's
// unmount (releaseDisk) ends the filesystem only when no other mount namespace holds it, and
// every machine that boots meanwhile copies the host's mounts, the other machines' disks among
// them, until its init has pivoted into its own root and detached the rest (machineinit). A
// filesystem that lives on in such a copy is written back (its superblock, its journal) when the
// copy goes, so checking, growing or mounting the image before that is a second writer on a live
// filesystem: e2fsck finds a journal to recover, and resize2fs's new size is overwritten.
func waitDiskFree(ctx context.Context, image string) error {
	ctx, cancel := context.WithTimeout(ctx, diskFreeTimeout)
	defer cancel()
	for {
		dev, err := loopBackedBy(image)
		if err != nil || dev == "" {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("its disk %s is still in use through %s, mounted elsewhere: %w", image, dev, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// loopBackedBy names a loop device whose backing file is image ("" when none is), from
// /sys/block/loop*/loop/backing_file: the file's path as the host sees it.
func loopBackedBy(image string) (string, error) {
	abs, err := filepath.EvalSymlinks(image) // the path the kernel keeps has none
	if err != nil {
		return "", err
	}
	if abs, err = filepath.Abs(abs); err != nil {
		return "", err
	}
	files, err := filepath.Glob("/sys/block/loop*/loop/backing_file")
	if err != nil {
		return "", err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // cleared meanwhile
		}
		if strings.TrimSpace(string(b)) == abs { // a removed image's reads "PATH (deleted)": another file

			return filepath.Base(filepath.Dir(filepath.Dir(f))), nil
		}
	}
	return "", nil
}

// checkFS checks the filesystem in the unmounted image with e2fsck's preen (-f -p), which
// repairs on its own what is safe to: its exit status 1 says it did, as after a host that
// crashed with the disk mounted, and the filesystem is then sound (fsck(8); systemd-fsck too
// boots on it). 4 and above are errors it left.
func checkFS(ctx context.Context, image string) error {
	_, err := command(ctx, "", "e2fsck", "-f", "-p", image)
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil
	}
	return err
}

// fsBytes is the size of the ext4 filesystem in image, from its superblock (dumpe2fs -h).
func fsBytes(ctx context.Context, image string) (int64, error) {
	out, err := command(ctx, "", "dumpe2fs", "-h", image)
	if err != nil {
		return 0, err
	}
	var blocks, size int64
	for _, line := range strings.Split(string(out), "\n") {
		key, value, _ := strings.Cut(line, ":")
		switch key {
		case "Block count":
			blocks, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		case "Block size":
			size, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		}
		if err != nil {
			return 0, fmt.Errorf("dumpe2fs -h %s: %q: %w", image, line, err)
		}
	}
	if blocks == 0 || size == 0 {
		return 0, fmt.Errorf("dumpe2fs -h %s: no block count or size", image)
	}
	return blocks * size, nil
}

// loopDevice is the loop device mounted at dir (found from the device number dir's filesystem
// reports, through /sys).
func loopDevice(dir string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return "", err
	}
	link, err := os.Readlink("/sys/dev/block/" + strconv.Itoa(int(unix.Major(st.Dev))) + ":" + strconv.Itoa(int(unix.Minor(st.Dev))))
	if err != nil {
		return "", fmt.Errorf("the device of %s: %w", dir, err)
	}
	return "/dev/" + filepath.Base(link), nil
}

// setCapacity makes loop device dev take its file's new size (LOOP_SET_CAPACITY).
func setCapacity(dev string) error {
	fd, err := unix.Open(dev, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.IoctlSetInt(fd, unix.LOOP_SET_CAPACITY, 0); err != nil {
		return fmt.Errorf("%s: LOOP_SET_CAPACITY: %w", dev, err)
	}
	return nil
}

// mounted says whether dir is a mount point (its filesystem differs from its parent's).
func mounted(dir string) bool {
	var st, parent unix.Stat_t
	if unix.Stat(dir, &st) != nil || unix.Stat(filepath.Dir(dir), &parent) != nil {
		return false
	}
	return st.Dev != parent.Dev
}

// stagingDir is where a machine's next disk is made (resetDisk) before it takes the place of
// the machine's own.
func stagingDir(mc *machine) string { return filepath.Join(mc.dir, "disk.next") }

// discardStage removes a staged disk: unmounted, then its files.
func discardStage(stage *machine) error {
	if err := releaseDisk(stage); err != nil {
		return err
	}
	if err := os.RemoveAll(stage.dir); err != nil {
		return fmt.Errorf("machine %s: remove its staged disk: %w", stage.ref, err)
	}
	return nil
}

// swapDisk puts stage's disk in the place of mc's (both unmounted first; the old one is moved
// aside before the new one moves in, then removed), and removes stage.
func swapDisk(mc, stage *machine) error {
	if err := errors.Join(releaseDisk(stage), releaseDisk(mc)); err != nil {
		return err
	}
	old := filepath.Join(stage.dir, "old")
	moves := []struct{ from, to string }{
		{mc.diskImage(), old + ".img"}, {mc.diskMount(), old},
		{stage.diskImage(), mc.diskImage()}, {stage.diskMount(), mc.diskMount()},
	}
	for _, mv := range moves {
		if err := os.Rename(mv.from, mv.to); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("machine %s: put its new disk in place: %w", mc.ref, err)
		}
	}
	if err := os.RemoveAll(stage.dir); err != nil {
		return fmt.Errorf("machine %s: remove its old disk: %w", mc.ref, err)
	}
	return nil
}

// releaseDisks unmounts the disk of every machine directory of this host, and any disk staged
// for it (resetDisk): at New, those a crashed Manager left mounted (its machines died with
// it), a Create cut short before its spec was written among them; at Close, every one.
func (m *Manager) releaseDisks() error {
	entries, err := os.ReadDir(filepath.Join(m.o.Dir, "machines"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range entries {
		if e.IsDir() {
			mc := &machine{ref: e.Name(), dir: filepath.Join(m.o.Dir, "machines", e.Name())}
			errs = append(errs, releaseDisk(mc), releaseDisk(&machine{ref: mc.ref, dir: stagingDir(mc)}))
		}
	}
	return errors.Join(errs...)
}
