// Command seccompprobe makes one system call inside a machine and says how the kernel answered:
// "ok" (exit 0), or the errno's name (exit 1). TestTenantCannotBreakOut/5_keyring_and_kernel_surface builds it statically
// and copies it into a machine. Each call's arguments are ones the kernel alone would accept
// from the machine's root (or refuse with another errno than EPERM), so EPERM means the seccomp
// filter.
//
//	seccompprobe add_key|keyctl|request_key|clone-newuser|clone3|io_uring_setup|bpf|
//	             perf_event_open|userfaultfd|name_to_handle_at|process_vm_readv|kcmp|
//	             personality|getpid
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: seccompprobe CALL")
		os.Exit(2)
	}
	call, ok := calls()[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "seccompprobe: no call %q\n", os.Args[1])
		os.Exit(2)
	}
	err := call()
	var errno syscall.Errno
	switch {
	case err == nil:
		fmt.Println("ok")
	case errors.As(err, &errno):
		fmt.Println(unix.ErrnoName(errno))
		os.Exit(1)
	default:
		fmt.Println(err)
		os.Exit(1)
	}
}

func calls() map[string]func() error {
	pid := uintptr(os.Getpid())
	return map[string]func() error{
		"getpid": func() error { return raw(unix.SYS_GETPID) },
		"add_key": func() error {
			_, err := unix.AddKey("user", "reseller-probe", []byte("secret"), unix.KEY_SPEC_SESSION_KEYRING)
			return err
		},
		"keyctl": func() error {
			_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_USER_KEYRING, 1, 0, 0)
			return err
		},
		"request_key": func() error {
			_, err := unix.RequestKey("user", "reseller-probe-absent", "", unix.KEY_SPEC_SESSION_KEYRING)
			if errors.Is(err, unix.ENOKEY) || errors.Is(err, unix.ENOENT) {
				return nil // the keyrings were searched
			}
			return err
		},
		"clone-newuser": func() error {
			cmd := exec.Command("/bin/true")
			cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
			return unwrap(cmd.Run())
		},
		"clone3": func() error {
			// A zero size: the kernel answers EINVAL, the filter ENOSYS.
			err := raw(unix.SYS_CLONE3, 0, 0)
			if errors.Is(err, unix.EINVAL) {
				return nil
			}
			return err
		},
		"io_uring_setup": func() error {
			var params [120]byte // struct io_uring_params
			fd, _, errno := syscall.RawSyscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
			return closeOr(int(fd), errno)
		},
		"bpf": func() error {
			// union bpf_attr for BPF_MAP_CREATE: an array of one 4-byte value.
			attr := struct{ mapType, keySize, valueSize, maxEntries uint32 }{2 /* BPF_MAP_TYPE_ARRAY */, 4, 4, 1}
			fd, _, errno := syscall.RawSyscall(unix.SYS_BPF, 0 /* BPF_MAP_CREATE */, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
			return closeOr(int(fd), errno)
		},
		"perf_event_open": func() error {
			attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_SOFTWARE, Config: unix.PERF_COUNT_SW_CPU_CLOCK,
				Bits: unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv}
			attr.Size = uint32(unsafe.Sizeof(attr))
			fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, 0)
			return closeOr(fd, err)
		},
		"userfaultfd": func() error {
			fd, _, errno := syscall.RawSyscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC|1 /* UFFD_USER_MODE_ONLY */, 0, 0)
			return closeOr(int(fd), errno)
		},
		"name_to_handle_at": func() error {
			// A handle buffer too small: the kernel answers EOVERFLOW (or EOPNOTSUPP), the filter EPERM.
			_, _, err := unix.NameToHandleAt(unix.AT_FDCWD, "/", 0)
			if errors.Is(err, unix.EOVERFLOW) || errors.Is(err, unix.EOPNOTSUPP) {
				return nil
			}
			return err
		},
		"process_vm_readv": func() error {
			var src, dst [8]byte
			local := []unix.Iovec{{Base: &dst[0], Len: 8}}
			remote := []unix.RemoteIovec{{Base: uintptr(unsafe.Pointer(&src[0])), Len: 8}}
			_, err := unix.ProcessVMReadv(int(pid), local, remote, 0)
			return err
		},
		"kcmp": func() error { return raw(unix.SYS_KCMP, pid, pid, 0 /* KCMP_FILE */, 0, 0) },
		"personality": func() error {
			return raw(unix.SYS_PERSONALITY, 0x0040000 /* ADDR_NO_RANDOMIZE */)
		},
	}
}

// raw makes a system call and returns its errno, nil for none.
func raw(nr uintptr, args ...uintptr) error {
	var a [6]uintptr
	copy(a[:], args)
	_, _, errno := syscall.RawSyscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	if errno != 0 {
		return errno
	}
	return nil
}

// closeOr closes fd when the call that made it succeeded.
func closeOr(fd int, err error) error {
	if errno, ok := err.(syscall.Errno); ok && errno == 0 {
		err = nil
	}
	if err == nil {
		_ = unix.Close(fd)
	}
	return err
}

// unwrap returns the errno under exec's error.
func unwrap(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}
