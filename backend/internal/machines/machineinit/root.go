package machineinit

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// layers is where, inside init's own mount namespace, the overlay's layers are mounted (a tmpfs
// over Boot.Root): the overlay is given paths relative to it, so the options the machine reads
// in its /proc/self/mountinfo name no host path.
const (
	layerLower = "lower" // the image, idmapped and read-only
	layerDisk  = "disk"  // the disk (upper/ and work/), idmapped
	layerRoot  = "root"  // the overlay: the machine's root
)

// privateMounts makes every mount of init's namespace private, so nothing it mounts propagates
// back to the host, and mounts a /proc of the machine's PID namespace over the host's: the
// agent's /proc/PID files (its uid_map, its user namespace) are found under its PID there.
func privateMounts() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount init's /proc: %w", err)
	}
	return nil
}

// buildRoot mounts the machine's filesystems inside init's own mount namespace and returns the
// directory that becomes its root. userns is the machine's user namespace (the agent's): the
// image and the disk are mounted idmapped into it, so its root owns them.
func buildRoot(b Boot, userns int) (string, error) {
	if err := mountAt("tmpfs", b.Root, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "mode=700,size=64k"); err != nil {
		return "", err
	}
	if err := idmapBind(b.Lower, filepath.Join(b.Root, layerLower), userns, true); err != nil {
		return "", fmt.Errorf("mount the image: %w", err)
	}
	if err := idmapBind(b.Disk, filepath.Join(b.Root, layerDisk), userns, false); err != nil {
		return "", fmt.Errorf("mount the disk: %w", err)
	}
	root := filepath.Join(b.Root, layerRoot)
	err := asMachineRoot(b.IDs, func() error {
		if err := mountOverlay(b.Root); err != nil {
			return err
		}
		for _, dir := range []string{"proc", "dev", "tmp", "run"} { // an image of one's own may lack them
			if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	steps := []func(string, IDMap) error{mountProc, mountDev, mountTmp}
	for _, step := range steps {
		if err := step(root, b.IDs); err != nil {
			return "", err
		}
	}
	if err := syscall.Sethostname([]byte(b.Hostname)); err != nil {
		return "", fmt.Errorf("set the hostname: %w", err)
	}
	return root, nil
}

// mountOverlay mounts the disk over the image at layers/root, naming the layers relative to
// layers (the working directory while the kernel resolves them).
func mountOverlay(layers string) error {
	if err := syscall.Chdir(layers); err != nil {
		return fmt.Errorf("chdir %s: %w", layers, err)
	}
	defer syscall.Chdir("/")
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s/upper,workdir=%s/work", layerLower, layerDisk, layerDisk)
	if err := mountAt("overlay", layerRoot, "overlay", 0, opts); err != nil {
		return fmt.Errorf("mount the disk: %w", err)
	}
	return nil
}

func mountProc(root string, _ IDMap) error {
	proc := filepath.Join(root, "proc")
	if err := mountAt("proc", proc, "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return err
	}
	// The host-global knobs under /proc: read-only (sysctls, the SysRq trigger that would reboot
	// the host, IRQs, buses) or masked (kernel memory, keys, timers), as container runtimes do.
	for _, p := range []string{"sys", "sysrq-trigger", "irq", "bus", "fs"} {
		if err := readOnly(filepath.Join(proc, p)); err != nil {
			return err
		}
	}
	for _, p := range []string{"kcore", "keys", "key-users", "timer_list", "latency_stats", "sched_debug"} {
		target := filepath.Join(proc, p)
		if _, err := os.Stat(target); err != nil {
			continue
		}
		if err := syscall.Mount("/dev/null", target, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("mask %s: %w", target, err)
		}
	}
	return nil
}

// readOnly bind-mounts path onto itself read-only; without CAP_SYS_ADMIN it cannot be undone.
func readOnly(path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if err := syscall.Mount(path, path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC)
	if err := syscall.Mount(path, path, "", flags, ""); err != nil {
		return fmt.Errorf("make %s read-only: %w", path, err)
	}
	return nil
}

// device is one node of the machine's /dev.
type device struct {
	name         string
	major, minor int
}

var devices = []device{
	{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0},
}

// mkdev is the kernel's device number of major:minor (glibc's makedev, for numbers under 256).
func mkdev(major, minor int) int { return major<<8 | minor }

// mountDev mounts the machine's /dev: a tmpfs with the few devices a machine needs, a devpts
// instance for PTYs and /dev/shm, all owned by the machine's root (ids.Base on the host) and its
// tty group, as the options are read in the host's user namespace.
func mountDev(root string, ids IDMap) error {
	dev := filepath.Join(root, "dev")
	if err := mountAt("tmpfs", dev, "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=755,size=1m"+owner(ids)); err != nil {
		return err
	}
	for _, d := range devices {
		p := filepath.Join(dev, d.name)
		if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, mkdev(d.major, d.minor)); err != nil {
			return fmt.Errorf("mknod /dev/%s: %w", d.name, err)
		}
		_ = os.Chmod(p, 0o666) // mknod applies the umask
		if err := os.Lchown(p, ids.host(0), ids.host(0)); err != nil {
			return fmt.Errorf("chown /dev/%s: %w", d.name, err)
		}
	}
	// tty group is 5 in the default image's /etc/group.
	pts := fmt.Sprintf("newinstance,ptmxmode=0666,mode=0620,gid=%d", ids.host(5))
	if err := mountAt("devpts", filepath.Join(dev, "pts"), "devpts", syscall.MS_NOSUID|syscall.MS_NOEXEC, pts); err != nil {
		return err
	}
	if err := mountAt("tmpfs", filepath.Join(dev, "shm"), "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777,size=16m"+owner(ids)); err != nil {
		return err
	}
	links := map[string]string{"ptmx": "pts/ptmx", "fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"}
	for name, target := range links {
		p := filepath.Join(dev, name)
		if err := os.Symlink(target, p); err != nil {
			return fmt.Errorf("/dev/%s: %w", name, err)
		}
		_ = os.Lchown(p, ids.host(0), ids.host(0))
	}
	return nil
}

// owner is the tmpfs options that make its root directory the machine's root's.
func owner(ids IDMap) string {
	return fmt.Sprintf(",uid=%d,gid=%d", ids.host(0), ids.host(0))
}

func mountTmp(root string, ids IDMap) error {
	if err := mountAt("tmpfs", filepath.Join(root, "tmp"), "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777,size=64m"+owner(ids)); err != nil {
		return err
	}
	if err := mountAt("tmpfs", filepath.Join(root, "run"), "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=755,size=16m"+owner(ids)); err != nil {
		return err
	}
	// Debian's /var/lock is a symlink to /run/lock, which systemd would make at boot: daemons
	// started without it (apache2ctl, mysqld_safe) lock there. The machine's root's, as /run is.
	lock := filepath.Join(root, "run", "lock")
	if err := os.Mkdir(lock, 0o755); err != nil {
		return fmt.Errorf("mkdir /run/lock: %w", err)
	}
	if err := os.Lchown(lock, ids.host(0), ids.host(0)); err != nil {
		return fmt.Errorf("chown /run/lock: %w", err)
	}
	return syscall.Chmod(lock, 0o1777) // mkdir applies the umask; os.Chmod would drop the sticky bit
}

// mountAt mounts source on target, creating target first (the disk may lack it). Targets are
// joined under the root by path, which is safe although the disk is the machine's: /proc, /dev,
// /tmp and /run are its mount points while it runs, so its root cannot have replaced them by
// symlinks (unlinking or renaming a mount point fails with EBUSY), and what lies under them is
// this init's own fresh filesystems.
func mountAt(source, target, fstype string, flags uintptr, data string) error {
	if err := os.MkdirAll(target, 0o755); err != nil {
		return fmt.Errorf("mkdir %s: %w", target, err)
	}
	if err := syscall.Mount(source, target, fstype, flags, data); err != nil {
		return fmt.Errorf("mount %s on %s: %w", fstype, target, err)
	}
	return nil
}

// pivot makes root the root of init's mount namespace and detaches the host's tree, which then
// stays unreachable: pivot_root(".", ".") stacks the old root under the new one, and the
// detaching unmount removes it.
func pivot(root string) error {
	if err := syscall.Chdir(root); err != nil {
		return fmt.Errorf("chdir %s: %w", root, err)
	}
	if err := syscall.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root %s: %w", root, err)
	}
	if err := syscall.Unmount(".", syscall.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the host's root: %w", err)
	}
	return syscall.Chdir("/")
}
