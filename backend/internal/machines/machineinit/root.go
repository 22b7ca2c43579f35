package machineinit

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// buildRoot mounts the machine's filesystems inside init's own mount namespace. Every mount is
// made private first, so nothing propagates back to the host.
func buildRoot(b Boot) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", b.Lower, b.Upper, b.Work)
	if err := syscall.Mount("overlay", b.Root, "overlay", 0, opts); err != nil {
		return fmt.Errorf("mount the disk (overlay %s): %w", opts, err)
	}
	steps := []func(string) error{mountProc, mountDev, mountTmp}
	for _, step := range steps {
		if err := step(b.Root); err != nil {
			return err
		}
	}
	if err := syscall.Sethostname([]byte(b.Hostname)); err != nil {
		return fmt.Errorf("set the hostname: %w", err)
	}
	return nil
}

func mountProc(root string) error {
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
	for _, p := range []string{"kcore", "keys", "timer_list", "latency_stats", "sched_debug"} {
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

func mountDev(root string) error {
	dev := filepath.Join(root, "dev")
	if err := mountAt("tmpfs", dev, "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=755,size=1m"); err != nil {
		return err
	}
	for _, d := range devices {
		if err := syscall.Mknod(filepath.Join(dev, d.name), syscall.S_IFCHR|0o666, mkdev(d.major, d.minor)); err != nil {
			return fmt.Errorf("mknod /dev/%s: %w", d.name, err)
		}
		_ = os.Chmod(filepath.Join(dev, d.name), 0o666) // mknod applies the umask
	}
	// tty group is 5 in the default image's /etc/group.
	if err := mountAt("devpts", filepath.Join(dev, "pts"), "devpts", syscall.MS_NOSUID|syscall.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620,gid=5"); err != nil {
		return err
	}
	if err := mountAt("tmpfs", filepath.Join(dev, "shm"), "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777,size=16m"); err != nil {
		return err
	}
	links := map[string]string{"ptmx": "pts/ptmx", "fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return fmt.Errorf("/dev/%s: %w", name, err)
		}
	}
	return nil
}

func mountTmp(root string) error {
	if err := mountAt("tmpfs", filepath.Join(root, "tmp"), "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777,size=64m"); err != nil {
		return err
	}
	if err := mountAt("tmpfs", filepath.Join(root, "run"), "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=755,size=16m"); err != nil {
		return err
	}
	// Debian's /var/lock is a symlink to /run/lock, which systemd would make at boot: daemons
	// started without it (apache2ctl, mysqld_safe) lock there.
	lock := filepath.Join(root, "run", "lock")
	if err := os.Mkdir(lock, 0o755); err != nil {
		return fmt.Errorf("mkdir /run/lock: %w", err)
	}
	return syscall.Chmod(lock, 0o1777) // mkdir applies the umask; os.Chmod would drop the sticky bit
}

// mountAt mounts source on target, creating target first (the disk may lack it).
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
