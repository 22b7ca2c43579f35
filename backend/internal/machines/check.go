package machines

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"
)

// Check says what this host lacks for machines, each with how to get it; nil when nothing.
// resellerd exits 2 with it at start under --machines sandbox.
//
// Machines need root (not a user namespace alone: the bridge, the veths and the host-side
// filters are the host's), the `ip` command (iproute2), `iptables` and `iptables-restore`,
// overlayfs, for the default image (Options.Image "") a static busybox at /bin/busybox, and
// images (Image, ImageFor) that are root filesystems. For the machines' user namespace: user
// namespaces enabled, idmapped mounts (mount_setattr, Linux 5.12; overlayfs over idmapped layers
// needs 5.19), and no other user given the machines' uid or gid range in /etc/subuid or
// /etc/subgid. For disks of a plan's size: loop devices, `mount`, and e2fsprogs' `mkfs.ext4`,
// `resize2fs`, `e2fsck` and `dumpe2fs`.
func Check(o Options) error {
	return checkHost(o, thisHost())
}

// hostFacts are what Check looks at, gathered apart so tests can describe another host.
type hostFacts struct {
	euid     int
	lookPath func(string) (string, error)
	busybox  bool // an executable file at Busybox
	overlay  bool
	userns   bool   // user namespaces may be created
	idmap    bool   // the kernel has mount_setattr
	loop     bool   // /dev/loop-control
	subIDs   string // a subuid/subgid line giving the machines' range to another user; "" if none
}

func thisHost() hostFacts {
	fi, err := os.Stat(Busybox)
	return hostFacts{
		euid:     os.Geteuid(),
		lookPath: exec.LookPath,
		busybox:  err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0,
		overlay:  hasOverlay(),
		userns:   hasUserNS(),
		idmap:    hasIdmappedOverlay(),
		loop:     exists("/dev/loop-control"),
		subIDs:   subIDOverlap("/etc/subuid", machineIDs) + subIDOverlap("/etc/subgid", machineIDs),
	}
}

func checkHost(o Options, h hostFacts) error {
	var errs []error
	if h.euid != 0 {
		errs = append(errs, errors.New("machines: resellerd is not running as root; machines need root for their namespaces, bridge and host-side filters (run it as root, e.g. with sudo)"))
	}
	tools := []struct{ name, pkg string }{
		{"ip", "iproute2"}, {"iptables", "iptables"}, {"iptables-restore", "iptables"},
		{"mount", "mount"}, {"mkfs.ext4", "e2fsprogs"}, {"resize2fs", "e2fsprogs"}, {"e2fsck", "e2fsprogs"}, {"dumpe2fs", "e2fsprogs"},
	}
	for _, t := range tools {
		if _, err := h.lookPath(t.name); err != nil {
			errs = append(errs, fmt.Errorf("machines: no `%s` on PATH (apt-get install %s)", t.name, t.pkg))
		}
	}
	if o.Image == "" && !h.busybox {
		errs = append(errs, fmt.Errorf("machines: no busybox at %s for the default image (apt-get install busybox-static, or give --machines-image)", Busybox))
	}
	if o.Image != "" {
		if _, err := checkImage("--machines-image", o.Image); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := templateImages(o.ImageFor); err != nil {
		errs = append(errs, err)
	}
	if !h.overlay {
		errs = append(errs, errors.New("machines: the kernel has no overlayfs (modprobe overlay, or a kernel built with CONFIG_OVERLAY_FS)"))
	}
	return errors.Join(append(errs, checkIsolation(h)...)...)
}

// checkIsolation names what the machines' user namespace and disks lack on host h.
func checkIsolation(h hostFacts) []error {
	var errs []error
	if !h.userns {
		errs = append(errs, errors.New("machines: user namespaces are disabled (sysctl user.max_user_namespaces=15000, and kernel.unprivileged_userns_clone=1 where it exists); machine root is an unprivileged host uid inside one"))
	}
	if !h.idmap {
		errs = append(errs, errors.New("machines: the kernel has no idmapped mounts (mount_setattr: Linux 5.12, and 5.19 for overlayfs over them); machines' disks are mounted idmapped into their user namespace"))
	}
	if !h.loop {
		errs = append(errs, errors.New("machines: no /dev/loop-control (modprobe loop); each machine's disk is a filesystem on a loop device"))
	}
	if h.subIDs != "" {
		errs = append(errs, fmt.Errorf("machines: the machines' uids and gids %d-%d are given to another user in %s; move that user's range", machineIDs.Base, machineIDs.Base+machineIDs.Count-1, h.subIDs))
	}
	return errs
}

// hasUserNS says whether this process may create user namespaces.
func hasUserNS() bool {
	data, err := os.ReadFile("/proc/sys/user/max_user_namespaces")
	if err != nil || strings.TrimSpace(string(data)) == "0" {
		return false
	}
	clone, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone") // Debian's older kernels
	return err != nil || strings.TrimSpace(string(clone)) != "0" || os.Geteuid() == 0
}

// hasIdmappedOverlay says whether the kernel has mount_setattr (called on no descriptor, it
// fails with EBADF or EINVAL where it exists, ENOSYS where it does not) and is 5.19 or later,
// whose overlayfs takes idmapped layers.
func hasIdmappedOverlay() bool {
	_, _, errno := unix.Syscall6(unix.SYS_MOUNT_SETATTR, ^uintptr(0), 0, 0, 0, 0, 0)
	var u unix.Utsname
	if errno == unix.ENOSYS || unix.Uname(&u) != nil {
		return false
	}
	return releaseAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 19)
}

// releaseAtLeast says whether kernel release (uname -r, "6.18.44-...") is major.minor or later.
func releaseAtLeast(release string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(release, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// hasOverlay says whether the kernel knows overlayfs (or can load it on first mount).
func hasOverlay() bool {
	data, err := os.ReadFile("/proc/filesystems")
	if err == nil && strings.Contains(string(data), "\toverlay\n") {
		return true
	}
	_, err = os.Stat("/sys/module/overlay")
	return err == nil
}
