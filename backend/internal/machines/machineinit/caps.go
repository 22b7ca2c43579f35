package machineinit

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
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

	// capLastCapFallback is CAP_CHECKPOINT_RESTORE, the last capability of Linux 5.9 and later,
	// used when /proc/sys/kernel/cap_last_cap cannot be read.
	capLastCapFallback = 40
)

// keptCaps is the bounding set of the agent and of everything users run: Docker's default set
// without CAP_MKNOD. Everything else (CAP_SYS_ADMIN, CAP_SYS_MODULE, CAP_SYS_RAWIO,
// CAP_SYS_PTRACE, CAP_SYS_BOOT, CAP_SYS_TIME, CAP_NET_ADMIN, CAP_DAC_READ_SEARCH, ...) is
// dropped.
var keptCaps = map[int]bool{
	capChown: true, capDACOverride: true, capFsetid: true, capFowner: true,
	capNetRaw: true, capSetgid: true, capSetuid: true, capSetfcap: true,
	capSetpcap: true, capNetBindService: true, capSysChroot: true,
	capKill: true, capAuditWrite: true,
}

// KeptCaps lists the capabilities kept in the bounding set of what users run.
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

// envReduced marks an agent that has reduced its bounding set (ReduceBoundingSet).
const envReduced = "RESELLER_MACHINE_REDUCED"

// ReduceBoundingSet makes the bounding set of the calling process, and so of everything it
// starts, keptCaps. The bounding set is per thread and a new user namespace gives a full one,
// and a Go process runs on several threads by the time its code runs: so the set is dropped on
// one locked thread, which then executes the binary again (the new image takes that thread's
// credentials). The process executed again finds envReduced set and goes on.
func ReduceBoundingSet() error {
	if os.Getenv(envReduced) == "1" {
		return os.Unsetenv(envReduced)
	}
	runtime.LockOSThread()
	if err := DropBoundingSet(); err != nil {
		return err
	}
	if err := syscall.Exec("/proc/self/exe", os.Args, append(os.Environ(), envReduced+"=1")); err != nil {
		return fmt.Errorf("execute the agent again: %w", err)
	}
	return nil
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
