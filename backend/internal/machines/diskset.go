package machines

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/mountinfo"
)

// A disk set is what a Dir holds of its machines: machines/ (every machine's disk, spec,
// password hash and console log) and snapshots/. `resellerd dev` copies a disk set beside a
// saved copy of its database (a checkpoint, the --state file) and puts it back, so the two
// stay of one moment: the rows say which machines exist, at which address, in which power
// state, and the disk set holds those machines. The rest of a Dir is the host's, not the
// service's, and stays: image/ (a read-only base, assembled once), the host id and
// manager.lock.
//
// Every function here works on stopped machines only: it refuses a Dir whose Manager runs (its
// manager.lock is held) and a disk set with anything mounted under it (a disk still in use).

// diskSetDirs are the directories of a disk set.
var diskSetDirs = []string{"machines", "snapshots"}

// CopyDiskSet copies the disk set of from into to, a directory that must not exist yet: disks
// sparsely (a reflink where the file system has them, else data regions only, holes left
// holes), everything else as `cp -a` would (copyTree). It is bounded by ctx.
func CopyDiskSet(ctx context.Context, from, to string) (err error) {
	release, err := holdIdle(from)
	if err != nil {
		return err
	}
	defer release()
	if err := refuseMounts(from); err != nil {
		return err
	}
	if err := os.Mkdir(to, 0o700); err != nil {
		return fmt.Errorf("machines: disk set: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(to)
		}
	}()
	for _, d := range diskSetDirs {
		src := filepath.Join(from, d)
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := copyTree(ctx, src, filepath.Join(to, d)); err != nil {
			return fmt.Errorf("machines: copy the disk set of %s: %w", from, err)
		}
	}
	return forgetDefaultImage(from, to)
}

// forgetDefaultImage makes the disks and snapshots of the disk set at to, copied from the Dir
// from, that were made on from's default image (from/image, assembled there) name no image,
// which is read as the default image of whichever Dir they are put in (Manager.lower, and a
// snapshot's image at fillDisk): the copy may boot under another Dir (dev's --state, whose
// machines' directory is a new temporary one each run). An image given by path (--machines-image)
// is kept as it is.
func forgetDefaultImage(from, to string) error {
	abs, err := filepath.Abs(from)
	if err != nil {
		return err
	}
	def := filepath.Join(abs, "image")
	specs, _ := filepath.Glob(filepath.Join(to, "machines", "*", "spec.json"))
	for _, path := range specs {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var r record
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("machines: %s: %w", path, err)
		}
		if r.Image != def {
			continue
		}
		r.Image = ""
		if data, err = json.MarshalIndent(r, "", "  "); err != nil {
			return err
		}
		if err := writeFileAtomic(path, data, 0o600); err != nil {
			return err
		}
	}
	images, _ := filepath.Glob(filepath.Join(to, "snapshots", "*", "image"))
	for _, path := range images {
		if data, err := os.ReadFile(path); err == nil && string(data) == def {
			if err := writeFileAtomic(path, nil, 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}

// MoveDiskSet moves the disk set of from into to (created when missing; any disk set there is
// replaced), by renames within one file system: from has none left.
func MoveDiskSet(from, to string) error {
	release, err := holdIdle(from)
	if err != nil {
		return err
	}
	defer release()
	if err := refuseMounts(from); err != nil {
		return err
	}
	if err := RemoveDiskSet(to); err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		return fmt.Errorf("machines: disk set: %w", err)
	}
	for _, d := range diskSetDirs {
		err := os.Rename(filepath.Join(from, d), filepath.Join(to, d))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("machines: move the disk set of %s: %w", from, err)
		}
	}
	return nil
}

// RemoveDiskSet removes the disk set of dir (and nothing else of it). It refuses a Dir whose
// Manager runs and a disk set with anything mounted under it, which removing would reach into.
func RemoveDiskSet(dir string) error {
	release, err := holdIdle(dir)
	if err != nil {
		return err
	}
	defer release()
	if err := refuseMounts(dir); err != nil {
		return err
	}
	for _, d := range diskSetDirs {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			return fmt.Errorf("machines: remove the disk set of %s: %w", dir, err)
		}
	}
	return nil
}

// DiskSetRefs lists the machines of the disk set of dir (those with a spec), sorted, as
// Manager.Refs lists a live Dir's.
func DiskSetRefs(dir string) []string {
	return (&Manager{o: Options{Dir: dir}}).Refs()
}

// holdIdle takes dir's manager.lock for the caller, when dir has one, so no Manager starts on
// dir meanwhile; it fails when a Manager holds it. A directory without the lock file (a saved
// copy) is not a Dir and needs none.
func holdIdle(dir string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, "manager.lock"), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("machines: disk set: %w", err)
	}
	if err := flockWithin(f, lockWait); err != nil {
		f.Close()
		return nil, fmt.Errorf("machines: the disk set of %s is in use by a running Manager (its manager.lock is held): %w", dir, err)
	}
	return func() { _ = f.Close() }, nil
}

// lockWait bounds how long a Dir's manager.lock is tried while something holds it. A Manager
// holds it for its whole life, so a lock held that long is a running Manager's. But the lock
// belongs to an open file, and a child that any goroutine of this process forks (a machine's
// boot, an ip or iptables command) holds a copy of every descriptor from its fork until its
// exec, where close-on-exec acts: the lock of a Manager just closed may stay held for that
// moment (`resellerd dev`'s reset met it on a loaded host).
const lockWait = time.Second

// flockWithin takes f's exclusive lock, trying again every 10 ms while another open file holds
// it, for up to wait.
func flockWithin(f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// refuseMounts fails when anything is mounted under the disk set of dir (a machine's disk),
// read from this process's mount table.
func refuseMounts(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("machines: disk set: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		point := mountinfo.Unescape(fields[4])
		for _, d := range diskSetDirs {
			under := filepath.Join(abs, d)
			if point == under || strings.HasPrefix(point, under+"/") {
				return fmt.Errorf("machines: %s is mounted under the disk set of %s: a machine there is not stopped", point, dir)
			}
		}
	}
	return sc.Err()
}
