package machineinit

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// The capabilities kept (linux/capability.h; package syscall does not name them).
const (
	capChown          = 0
	capDACOverride    = 1
	capFowner         = 3
	capFsetid         = 4
	capKill           = 5
	capSetgid         = 6
	capSetuid         = 7
	capSetpcap        = 8
	capNetBindService = 10
	capNetRaw         = 13
	capSysChroot      = 18
	capAuditWrite     = 29
	capSetfcap        = 31

	// The capability sets' ABI (linux/capability.h): _LINUX_CAPABILITY_VERSION_3, two 32-bit
	// words per set.
	capVersion3 = 0x20080522
	capWords    = 2

	// prctl's ambient set operations (linux/prctl.h).
	prCapAmbient         = 47
	prCapAmbientClearAll = 4

	// capLastCapFallback is CAP_CHECKPOINT_RESTORE, the last capability of Linux 5.9 and later,
	// used when /proc/sys/kernel/cap_last_cap cannot be read.
	capLastCapFallback = 40
)

// keptCaps are the capabilities of the agent and of everything users run, in every set but the
// inheritable and ambient ones, which are empty: Docker's default set without CAP_MKNOD.
// Everything else (CAP_SYS_ADMIN, CAP_SYS_MODULE, CAP_SYS_RAWIO, CAP_SYS_PTRACE, CAP_SYS_BOOT,
// CAP_SYS_TIME, CAP_NET_ADMIN, CAP_DAC_READ_SEARCH, ...) is dropped.
var keptCaps = map[int]bool{
	capChown: true, capDACOverride: true, capFsetid: true, capFowner: true,
	capNetRaw: true, capSetgid: true, capSetuid: true, capSetfcap: true,
	capSetpcap: true, capNetBindService: true, capSysChroot: true,
	capKill: true, capAuditWrite: true,
}

// KeptCaps lists the capabilities kept in the bounding, permitted and effective sets of what
// users run.
func KeptCaps() []int {
	list := make([]int, 0, len(keptCaps))
	for c := range keptCaps {
		list = append(list, c)
	}
	return list
}

// lastCap is the highest capability this kernel knows.
func lastCap() int {
	data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return capLastCapFallback
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return capLastCapFallback
	}
	return n
}

// envReduced marks an agent that has confined itself (ConfineAgent).
const envReduced = "RESELLER_MACHINE_REDUCED"

// EnvSeccomp carries the seccomp filter of the agent and everything users run from init to the
// agent: base64 of struct sock_filter instructions in the host's byte order (Boot.Seccomp).
const EnvSeccomp = "RESELLER_MACHINE_SECCOMP"

// ConfineAgent confines the calling process, the agent, and so everything it starts, as runc
// confines a container's process: keptCaps in the bounding, permitted and effective sets, empty
// inheritable and ambient sets, and the seccomp filter of EnvSeccomp. Capability sets and
// filters are per thread, a new user namespace starts with a full bounding set, and a Go
// process runs on several threads by the time its code runs: so one locked thread is confined
// (confine), then executes the binary again; the new image takes that thread's filter, and its
// capabilities are then its bounding set (root with empty inheritable and ambient sets). The
// process executed again finds envReduced set and goes on, without either variable.
func ConfineAgent() error {
	if os.Getenv(envReduced) == "1" {
		return os.Unsetenv(envReduced)
	}
	filter, err := base64.StdEncoding.DecodeString(os.Getenv(EnvSeccomp))
	if err != nil {
		return fmt.Errorf("seccomp filter: %s: %w", EnvSeccomp, err)
	}
	runtime.LockOSThread()
	if err := confine(filter); err != nil {
		return err
	}
	env := []string{envReduced + "=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvSeccomp+"=") {
			env = append(env, kv)
		}
	}
	if err := syscall.Exec("/proc/self/exe", os.Args, env); err != nil {
		return fmt.Errorf("execute the agent again: %w", err)
	}
	return nil
}

// confine gives the calling thread what the agent and everything users run keep: keptCaps in
// the bounding, permitted and effective sets, empty inheritable and ambient sets, and the
// seccomp filter. The filter goes on while the thread still has CAP_SYS_ADMIN (in its user
// namespace), which is what lets it go on without no_new_privs (see installSeccomp); capset,
// which then drops CAP_SYS_ADMIN, is one of the calls it allows.
func confine(filter []byte) error {
	if err := DropBoundingSet(); err != nil {
		return err
	}
	if err := installSeccomp(filter); err != nil {
		return err
	}
	return setCapabilities()
}

// DropBoundingSet removes every capability outside keptCaps from the calling thread's bounding
// set (lock the goroutine to its thread first).
func DropBoundingSet() error {
	for c := 0; c <= lastCap(); c++ {
		if keptCaps[c] {
			continue
		}
		_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_CAPBSET_DROP, uintptr(c), 0)
		if errno != 0 && !errors.Is(errno, syscall.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, errno)
		}
	}
	return nil
}

// keptMask is keptCaps as capset's 32-bit words.
func keptMask() [capWords]uint32 {
	var m [capWords]uint32
	for c := range keptCaps {
		m[c/32] |= 1 << (c % 32)
	}
	return m
}

// capHeader and capData are capset's struct __user_cap_header_struct and
// __user_cap_data_struct.
type capHeader struct {
	version uint32
	pid     int32
}

type capData struct {
	effective, permitted, inheritable uint32
}

// setCapabilities sets the calling thread's permitted and effective sets to keptCaps and empties
// its inheritable and ambient sets (lock the goroutine to its thread first), as runc sets a
// container's. The bounding set alone is not enough: a root process's exec gains its
// inheritable set, so a resellerd started with an inheritable CAP_SYS_ADMIN would hand it to
// every machine's root; and an ambient set would survive the exec.
func setCapabilities() error {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0)
	if errno != 0 && !errors.Is(errno, syscall.EINVAL) { // EINVAL: a kernel before 4.3, without ambient sets
		return fmt.Errorf("clear the ambient capabilities: %w", errno)
	}
	hdr := capHeader{version: capVersion3}
	var data [capWords]capData
	for i, m := range keptMask() {
		data[i] = capData{effective: m, permitted: m}
	}
	_, _, errno = syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	if errno != 0 {
		return fmt.Errorf("set the capabilities (capset): %w", errno)
	}
	return nil
}
