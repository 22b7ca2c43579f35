package machineinit

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/seccompfilter"
)

// requireRoot skips a test that needs root only where that is allowed: under CI it fails.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("this test needs root; CI is set, so it must run (run it as root)")
	}
	t.Skip("needs root (capset, an unprivileged seccomp filter); skipped as not root and CI is unset")
}

// probe is a system call made on the confined thread, with arguments whose answer without the
// filter is not EPERM (even without capabilities), so only the filter explains an EPERM.
type probe struct {
	name string
	call func() syscall.Errno
	want syscall.Errno
}

func raw(nr uintptr, args ...uintptr) func() syscall.Errno {
	return func() syscall.Errno {
		var a [6]uintptr
		copy(a[:], args)
		_, _, errno := syscall.RawSyscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
		return errno
	}
}

func cstr(s string) uintptr {
	p, _ := syscall.BytePtrFromString(s)
	return uintptr(unsafe.Pointer(p))
}

func probes() []probe {
	pid := uintptr(os.Getpid())
	fdcwd := unix.AT_FDCWD
	atFDCWD := uintptr(fdcwd)
	return []probe{
		{"getpid", raw(unix.SYS_GETPID), 0},
		{"personality query", raw(unix.SYS_PERSONALITY, 0xffffffff), 0},
		{"add_key", raw(unix.SYS_ADD_KEY, cstr("reseller-no-such-type"), cstr("probe"), 0, 0, uintptr(0xfffffffd)), unix.EPERM},
		{"keyctl", raw(unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, uintptr(0xfffffffd), 0), unix.EPERM},
		{"request_key", raw(unix.SYS_REQUEST_KEY, cstr("reseller-no-such-type"), cstr("probe"), 0, 0), unix.EPERM},
		{"unshare user", raw(unix.SYS_UNSHARE, unix.CLONE_NEWUSER), unix.EPERM},
		{"setns", raw(unix.SYS_SETNS, ^uintptr(0), 0), unix.EPERM},
		{"clone3", raw(unix.SYS_CLONE3, 0, 0), unix.ENOSYS},
		{"io_uring_setup", raw(unix.SYS_IO_URING_SETUP, 0, 0), unix.EPERM},
		{"perf_event_open", raw(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0), ^uintptr(0), 0), unix.EPERM},
		{"userfaultfd", raw(unix.SYS_USERFAULTFD, 0xffff), unix.EPERM},
		{"name_to_handle_at", raw(unix.SYS_NAME_TO_HANDLE_AT, atFDCWD, cstr("/"), 0, 0, 0), unix.EPERM},
		{"process_vm_readv", raw(unix.SYS_PROCESS_VM_READV, pid, 0, 0, 0, 0, 0), unix.EPERM},
		{"kcmp", raw(unix.SYS_KCMP, pid, pid, 0, 0, 0), unix.EPERM},
		{"personality ADDR_NO_RANDOMIZE", raw(unix.SYS_PERSONALITY, 0x0040000), unix.EPERM},
		{"finit_module", raw(unix.SYS_FINIT_MODULE, ^uintptr(0), 0, 0), unix.EPERM},
		{"open_by_handle_at", raw(unix.SYS_OPEN_BY_HANDLE_AT, ^uintptr(0), 0, 0), unix.EPERM},
	}
}

// TestConfine confines a thread as init confines the one that starts the agent, after giving
// it an inheritable and ambient CAP_SYS_ADMIN (as a resellerd started by `capsh --inh=...`
// has), and checks on that thread and in a program it starts: capabilities as runc sets them,
// and the seccomp filter refusing what it must (with arguments the kernel alone would not answer
// EPERM) while a shell still runs.
func TestConfine(t *testing.T) {
	requireRoot(t)
	prog, err := seccompfilter.Program()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the runtime discards the confined thread
		confinedThread(t, prog)
	}()
	<-done
}

func confinedThread(t *testing.T, prog []byte) {
	if err := unix.Prctl(unix.PR_SET_KEEPCAPS, 0, 0, 0, 0); err != nil {
		t.Error(err)
		return
	}
	if err := inheritSysAdmin(); err != nil {
		t.Errorf("give the thread an inheritable and ambient CAP_SYS_ADMIN: %v", err)
		return
	}
	if err := confine(prog); err != nil {
		t.Errorf("confine: %v", err)
		return
	}
	kept := fmt.Sprintf("%016x", uint64(keptMask()[0])|uint64(keptMask()[1])<<32)
	status, _ := os.ReadFile("/proc/thread-self/status")
	child, err := exec.Command("/bin/sh", "-c", "cat /proc/self/status").CombinedOutput()
	if err != nil {
		t.Errorf("a shell started by the confined thread: %v: %s", err, child)
	}
	for who, s := range map[string]string{"the confined thread": string(status), "its child": string(child)} {
		for field, want := range map[string]string{"CapInh": "0000000000000000", "CapAmb": "0000000000000000", "CapPrm": kept, "CapEff": kept, "CapBnd": kept, "Seccomp": "2", "NoNewPrivs": "0"} {
			if got := statusField(s, field); got != want {
				t.Errorf("%s: %s %s, want %s", who, field, got, want)
			}
		}
	}
	for _, p := range probes() {
		if got := p.call(); got != p.want {
			t.Errorf("%s: got errno %d (%v), want %d (%v)", p.name, got, got, p.want, p.want)
		}
	}
	userns := exec.Command("/bin/true")
	userns.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
	if err := userns.Run(); err == nil || !strings.Contains(err.Error(), "operation not permitted") {
		t.Errorf("a child in a new user namespace: %v, want operation not permitted", err)
	}
}

// inheritSysAdmin raises CAP_SYS_ADMIN in the calling thread's inheritable and ambient sets.
func inheritSysAdmin() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Inheritable |= 1 << unix.CAP_SYS_ADMIN
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return err
	}
	return unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_RAISE, unix.CAP_SYS_ADMIN, 0, 0)
}

// statusField is the value of field in a /proc/PID/status text.
func statusField(status, field string) string {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
