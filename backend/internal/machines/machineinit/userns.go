package machineinit

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// IDMap is the machine's user namespace mapping: uids and gids 0 to Count-1 inside are Base to
// Base+Count-1 on the host, so root inside is an unprivileged host uid.
type IDMap struct {
	Base  int `json:"base"`
	Count int `json:"count"`
}

// host is the host's id of id inside the machine.
func (m IDMap) host(id int) int { return m.Base + id }

// sysProcIDMap is the mapping as package syscall writes it for a child in a new user namespace.
func (m IDMap) sysProcIDMap() []syscall.SysProcIDMap {
	return []syscall.SysProcIDMap{{ContainerID: 0, HostID: m.Base, Size: m.Count}}
}

// The new mount API (Linux 5.2, mount_setattr 5.12). Package syscall predates it, so the numbers
// are written out here (the same on every architecture but alpha); TestMountAPINumbers checks
// them against x/sys/unix.
const (
	sysOpenTree     = 428
	sysMoveMount    = 429
	sysMountSetattr = 442

	atEmptyPath         = 0x1000
	openTreeClone       = 0x1
	moveMountFEmptyPath = 0x4
	mountAttrRdonly     = 0x1
	mountAttrIdmap      = 0x100000
)

// mountAttr is struct mount_attr (linux/mount.h), version 0.
type mountAttr struct {
	attrSet     uint64
	attrClr     uint64
	propagation uint64
	usernsFD    uint64
}

// idmapBind makes an idmapped bind mount of src at target: a file that src's filesystem says
// is owned by uid n is, through target, owned by the host's uid of n inside userns (whose
// descriptor is usernsFD). The overlay mounted over such binds by the host's root sees the
// machine's ids, while what is on disk keeps root-based ids: disks and snapshots written before
// user namespaces read the same, and the overlay still writes trusted.* xattrs.
func idmapBind(src, target string, usernsFD int, readOnly bool) error {
	tree, err := openTree(src)
	if err != nil {
		return fmt.Errorf("open_tree %s: %w", src, err)
	}
	defer syscall.Close(tree)
	attr := mountAttr{attrSet: mountAttrIdmap, usernsFD: uint64(usernsFD)}
	if readOnly {
		attr.attrSet |= mountAttrRdonly
	}
	if _, _, errno := syscall.Syscall6(sysMountSetattr, uintptr(tree), uintptr(unsafe.Pointer(&empty[0])),
		atEmptyPath, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0); errno != 0 {
		return fmt.Errorf("idmap %s (mount_setattr MOUNT_ATTR_IDMAP): %w", src, errno)
	}
	if err := os.MkdirAll(target, 0o700); err != nil {
		return err
	}
	dst, err := syscall.BytePtrFromString(target)
	if err != nil {
		return err
	}
	if _, _, errno := syscall.Syscall6(sysMoveMount, uintptr(tree), uintptr(unsafe.Pointer(&empty[0])),
		uintptr(atFDCWD), uintptr(unsafe.Pointer(dst)), moveMountFEmptyPath, 0); errno != 0 {
		return fmt.Errorf("move_mount %s to %s: %w", src, target, errno)
	}
	return nil
}

// empty is the empty path the *at calls take with AT_EMPTY_PATH.
var empty = [1]byte{0}

// atFDCWD is AT_FDCWD (-100) as the unsigned word a raw system call takes.
const atFDCWD = ^uintptr(99)

// openTree clones the mount at path, detached (OPEN_TREE_CLONE), and returns its descriptor.
func openTree(path string) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	fd, _, errno := syscall.Syscall(sysOpenTree, uintptr(atFDCWD), uintptr(unsafe.Pointer(p)), openTreeClone|syscall.O_CLOEXEC)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// asMachineRoot runs f on an OS thread of its own, discarded afterwards, whose filesystem uid and
// gid are the machine's root's on the host (ids.Base) and which keeps its capabilities
// (SECBIT_NO_SETUID_FIXUP). Through an idmapped mount the host's root, mapped to nothing, may
// create nothing: the overlay creates its work directory, and copies up, with its mounter's
// credentials, which must therefore be these; init's own mkdirs on the overlay too.
func asMachineRoot(ids IDMap, f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSecurebits, secbitNoSetuidFixup, 0); errno != 0 {
			done <- fmt.Errorf("prctl PR_SET_SECUREBITS: %w", errno)
			return
		}
		_ = syscall.Setfsgid(ids.host(0))
		_ = syscall.Setfsuid(ids.host(0))
		done <- f()
	}()
	return <-done
}

// prctl's PR_SET_SECUREBITS and SECBIT_NO_SETUID_FIXUP (linux/securebits.h), which package
// syscall does not name.
const (
	prSetSecurebits     = 28
	secbitNoSetuidFixup = 0x4
)

// openUserNS opens the user namespace of process pid.
func openUserNS(pid int) (int, error) {
	fd, err := syscall.Open(fmt.Sprintf("/proc/%d/ns/user", pid), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("the agent's user namespace: %w", err)
	}
	return fd, nil
}

// netSysctls are set in the machine's network namespace before anything else runs there. The
// namespace belongs to the host's user namespace, so root inside the machine holds none of its
// capabilities there: without them it may bind port 22 and below, and open ICMP echo sockets
// (ping), but never raw ones.
var netSysctls = map[string]string{
	"/proc/sys/net/ipv4/ip_unprivileged_port_start": "0",
	"/proc/sys/net/ipv4/ping_group_range":           "0 2147483647",
}

// setNetSysctls writes netSysctls through the host's /proc, which shows the sysctls of the
// reader's network namespace: the machine's.
func setNetSysctls() error {
	for path, value := range netSysctls {
		if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
			return fmt.Errorf("sysctl %s: %w", path, err)
		}
	}
	return nil
}
