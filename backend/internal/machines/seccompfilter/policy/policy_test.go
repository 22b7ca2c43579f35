package policy

import (
	"encoding/binary"
	"reflect"
	"runtime"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// verdict is what the filter answers a call: allowed, or refused with an errno.
type verdict string

const (
	allow  verdict = "allow"
	eperm  verdict = "EPERM"
	enosys verdict = "ENOSYS"
)

// call is one system call as the filter sees it.
type call struct {
	name string
	args []uint64
}

// filterVM runs the assembled filter in x/net/bpf's virtual machine, so the policy is checked
// call by call without a kernel (package machineinit's TestConfine installs it).
type filterVM struct {
	vm   *bpf.VM
	info *arch.Info
}

func newFilterVM(t *testing.T, goarch string) filterVM {
	t.Helper()
	insts, err := Instructions(goarch)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		t.Fatal(err)
	}
	info, err := arch.GetInfo(goarch)
	if err != nil {
		t.Fatal(err)
	}
	return filterVM{vm: vm, info: info}
}

// run answers the call numbered nr of the architecture auditArch.
func (f filterVM) run(t *testing.T, auditArch uint32, nr uint32, args []uint64) verdict {
	t.Helper()
	ret, err := f.vm.Run(seccompData(auditArch, nr, args))
	if err != nil {
		t.Fatal(err)
	}
	switch uint32(ret) {
	case unix.SECCOMP_RET_ALLOW:
		return allow
	case unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM):
		return eperm
	case unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS):
		return enosys
	}
	t.Fatalf("filter returned %#x", ret)
	return ""
}

// seccompData lays out the kernel's struct seccomp_data (nr, arch, instruction pointer, six
// 64-bit arguments, little-endian as on Arches) for the VM, whose loads read each 32-bit word
// big-endian where the kernel reads it little-endian.
func seccompData(auditArch, nr uint32, args []uint64) []byte {
	buf := make([]byte, 64)
	binary.BigEndian.PutUint32(buf[0:], nr)
	binary.BigEndian.PutUint32(buf[4:], auditArch)
	for i, a := range args {
		binary.BigEndian.PutUint32(buf[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(buf[16+8*i+4:], uint32(a>>32))
	}
	return buf
}

// TestPolicy checks the filter's answer to calls the package doc names, with the arguments
// that decide Docker's conditional rules, on every architecture of Arches.
func TestPolicy(t *testing.T) {
	for _, goarch := range Arches() {
		t.Run(goarch, func(t *testing.T) { testPolicy(t, newFilterVM(t, goarch)) })
	}
}

func testPolicy(t *testing.T, f filterVM) {
	cases := []struct {
		call
		want verdict
	}{
		// What users' programs and the agent need.
		{call{"read", nil}, allow},
		{call{"openat", nil}, allow},
		{call{"execve", nil}, allow},
		{call{"mmap", nil}, allow},
		{call{"futex", nil}, allow},
		{call{"rseq", nil}, allow},
		{call{"capset", nil}, allow},
		{call{"prctl", nil}, allow},
		{call{"setsid", nil}, allow},
		{call{"ioctl", nil}, allow},
		{call{"memfd_create", nil}, allow},
		{call{"pidfd_open", nil}, allow},
		{call{"wait4", nil}, allow},
		{call{"chroot", nil}, allow},
		{call{"ptrace", nil}, allow},
		{call{"setuid", nil}, allow},
		{call{"faccessat2", nil}, allow},
		{call{"clone", []uint64{uint64(unix.SIGCHLD)}}, allow},
		{call{"clone", []uint64{unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD | unix.CLONE_SYSVSEM | unix.CLONE_SETTLS}}, allow},
		{call{"clone", []uint64{unix.CLONE_VFORK | unix.CLONE_VM | unix.CLONE_PIDFD | uint64(unix.SIGCHLD)}}, allow},
		{call{"personality", []uint64{0xffffffff}}, allow},
		{call{"personality", []uint64{0}}, allow},
		{call{"personality", []uint64{perLinux32}}, allow},
		{call{"personality", []uint64{perLinux32 | 1<<32}}, eperm},
		{call{"socket", []uint64{unix.AF_INET}}, allow},
		{call{"socket", []uint64{unix.AF_UNIX}}, allow},
		{call{"socket", []uint64{unix.AF_NETLINK}}, allow},

		// Namespaces.
		{call{"unshare", nil}, eperm},
		{call{"setns", nil}, eperm},
		{call{"clone", []uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}}, eperm},
		{call{"clone", []uint64{unix.CLONE_NEWNS}}, eperm},
		{call{"clone", []uint64{unix.CLONE_NEWNET | unix.CLONE_VM}}, eperm},
		{call{"clone", []uint64{unix.CLONE_NEWCGROUP}}, eperm},
		{call{"clone", []uint64{unix.CLONE_NEWPID | 1<<32}}, eperm},
		{call{"clone3", nil}, enosys},
		// The kernel keyring, not namespaced.
		{call{"keyctl", nil}, eperm},
		{call{"add_key", nil}, eperm},
		{call{"request_key", nil}, eperm},
		// Kernel attack surface and host-global state.
		{call{"io_uring_setup", nil}, eperm},
		{call{"io_uring_enter", nil}, eperm},
		{call{"io_uring_register", nil}, eperm},
		{call{"bpf", nil}, eperm},
		{call{"perf_event_open", nil}, eperm},
		{call{"userfaultfd", nil}, eperm},
		{call{"kexec_load", nil}, eperm},
		{call{"kexec_file_load", nil}, eperm},
		{call{"init_module", nil}, eperm},
		{call{"finit_module", nil}, eperm},
		{call{"delete_module", nil}, eperm},
		{call{"open_by_handle_at", nil}, eperm},
		{call{"name_to_handle_at", nil}, eperm},
		{call{"mount", nil}, eperm},
		{call{"umount2", nil}, eperm},
		{call{"pivot_root", nil}, eperm},
		{call{"fsopen", nil}, eperm},
		{call{"fsmount", nil}, eperm},
		{call{"fsconfig", nil}, eperm},
		{call{"fspick", nil}, eperm},
		{call{"move_mount", nil}, eperm},
		{call{"open_tree", nil}, eperm},
		{call{"mount_setattr", nil}, eperm},
		{call{"swapon", nil}, eperm},
		{call{"swapoff", nil}, eperm},
		{call{"reboot", nil}, eperm},
		{call{"acct", nil}, eperm},
		{call{"quotactl", nil}, eperm},
		{call{"lookup_dcookie", nil}, eperm},
		{call{"nfsservctl", nil}, eperm},
		{call{"syslog", nil}, eperm},
		{call{"uselib", nil}, eperm},
		{call{"vm86", nil}, eperm},
		{call{"iopl", nil}, eperm},
		{call{"ioperm", nil}, eperm},
		{call{"settimeofday", nil}, eperm},
		{call{"clock_settime", nil}, eperm},
		{call{"clock_adjtime", nil}, eperm},
		{call{"adjtimex", nil}, eperm},
		{call{"process_vm_readv", nil}, eperm},
		{call{"process_vm_writev", nil}, eperm},
		{call{"kcmp", nil}, eperm},
		{call{"pidfd_getfd", nil}, eperm},
		{call{"sethostname", nil}, eperm},
		{call{"modify_ldt", nil}, eperm},
		{call{"personality", []uint64{0x0040000}}, eperm},
		{call{"personality", []uint64{0x0400000}}, eperm},
		{call{"socket", []uint64{unix.AF_VSOCK}}, eperm},
		// Newer than the list: absent, so that callers fall back.
		{call{"listmount", nil}, enosys},
		{call{"statmount", nil}, enosys},
		{call{"mseal", nil}, enosys},
	}
	for _, c := range cases {
		nr, ok := f.info.SyscallNames[c.name]
		if !ok {
			continue // not a call of this architecture (vm86 is i386's, open is not arm64's)
		}
		if got := f.run(t, uint32(f.info.ID), uint32(nr), c.args); got != c.want {
			t.Errorf("%s%v: got %s, want %s", c.name, c.args, got, c.want)
		}
	}
}

// TestOtherABIsAreRefused checks that a call of another ABI cannot slip past the list: x86_64's
// x32 calls answer ENOSYS and every other architecture's (i386's int 0x80) EPERM, even for a
// number the native list allows.
func TestOtherABIsAreRefused(t *testing.T) {
	for _, goarch := range Arches() {
		t.Run(goarch, func(t *testing.T) { testOtherABIs(t, newFilterVM(t, goarch)) })
	}
}

func testOtherABIs(t *testing.T, f filterVM) {
	read := uint32(f.info.SyscallNames["read"])
	if got := f.run(t, uint32(f.info.ID), read, nil); got != allow {
		t.Fatalf("native read: got %s, want allow", got)
	}
	for _, other := range []*arch.Info{arch.I386, arch.X86_64, arch.AARCH64, arch.ARM} {
		if other.ID == f.info.ID {
			continue
		}
		for _, name := range []string{"read", "keyctl", "write"} {
			nr := uint32(other.SyscallNames[name])
			if got := f.run(t, uint32(other.ID), nr, nil); got != eperm {
				t.Errorf("%s's %s (%d): got %s, want EPERM", other.Name, name, nr, got)
			}
		}
	}
	if f.info.ID == arch.X86_64.ID {
		nr := uint32(arch.X32.SyscallNames["read"]) | uint32(arch.X32.SeccompMask)
		if got := f.run(t, uint32(f.info.ID), nr, nil); got != enosys {
			t.Errorf("x32's read (%#x): got %s, want ENOSYS", nr, got)
		}
	}
}

// TestProgramIsTheInstructionsInTheKernelsLayout checks Program's bytes against the
// instructions: 8 bytes each (code, jt, jf, k), within the kernel's limit.
func TestProgramIsTheInstructionsInTheKernelsLayout(t *testing.T) {
	for _, goarch := range Arches() {
		insts, err := Instructions(goarch)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := bpf.Assemble(insts)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := Program(goarch)
		if err != nil {
			t.Fatal(err)
		}
		if len(prog) != len(raw)*InstructionSize {
			t.Fatalf("%s: Program is %d bytes, want %d instructions of %d", goarch, len(prog), len(raw), InstructionSize)
		}
		for i, r := range raw {
			b := prog[i*InstructionSize:]
			if binary.LittleEndian.Uint16(b) != r.Op || b[2] != r.Jt || b[3] != r.Jf || binary.LittleEndian.Uint32(b[4:]) != r.K {
				t.Fatalf("%s: instruction %d: got % x, want %+v", goarch, i, b[:InstructionSize], r)
			}
		}
		t.Logf("%s: %d instructions", goarch, len(raw))
	}
}

// TestInstructionsAreTheLibrarys holds Instructions, which assembles for any architecture, to
// what go-seccomp-bpf's own Policy.Assemble makes of the same policy on the host's.
func TestInstructionsAreTheLibrarys(t *testing.T) {
	p, err := Policy(runtime.GOARCH)
	if err != nil {
		t.Skipf("no syscall table for %s: %v", runtime.GOARCH, err)
	}
	want, err := p.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Instructions(runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Instructions(%s) differ from the library's assembly:\ngot  %v\nwant %v", runtime.GOARCH, got, want)
	}
}
