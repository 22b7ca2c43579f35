package machineinit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// seccompModeFilter is SECCOMP_MODE_FILTER (linux/seccomp.h; package syscall does not name it).
const seccompModeFilter = 2

// sockFilterSize is the size of the kernel's struct sock_filter, one instruction of a filter.
const sockFilterSize = 8

// decodeFilter reads a seccomp filter from the bytes the host built (package seccompfilter:
// struct sock_filter instructions in the host's byte order).
func decodeFilter(prog []byte) ([]syscall.SockFilter, error) {
	if len(prog) == 0 {
		return nil, errors.New("seccomp filter: none in the boot")
	}
	if len(prog)%sockFilterSize != 0 || len(prog)/sockFilterSize > 0xffff {
		return nil, fmt.Errorf("seccomp filter: %d bytes is not a whole number of instructions", len(prog))
	}
	insts := make([]syscall.SockFilter, 0, len(prog)/sockFilterSize)
	for b := prog; len(b) > 0; b = b[sockFilterSize:] {
		insts = append(insts, syscall.SockFilter{
			Code: binary.NativeEndian.Uint16(b[0:2]),
			Jt:   b[2],
			Jf:   b[3],
			K:    binary.NativeEndian.Uint32(b[4:8]),
		})
	}
	return insts, nil
}

// installSeccomp installs the filter prog (see decodeFilter) on the calling thread, which must
// be locked to its goroutine: it and the processes it then starts are filtered, the rest of the
// process is not. It does not set no_new_privs, as runc does not unless asked: the thread must
// then have CAP_SYS_ADMIN, and an image's setuid programs (su, sudo) keep working for its
// non-root users.
func installSeccomp(prog []byte) error {
	insts, err := decodeFilter(prog)
	if err != nil {
		return err
	}
	fprog := syscall.SockFprog{Len: uint16(len(insts)), Filter: &insts[0]}
	// prctl(PR_SET_SECCOMP) is seccomp(SECCOMP_SET_MODE_FILTER) with no flags; package syscall
	// names it, not the seccomp syscall.
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_SECCOMP, seccompModeFilter, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(insts)
	if errno != 0 {
		return fmt.Errorf("install the seccomp filter: %w", errno)
	}
	return nil
}
