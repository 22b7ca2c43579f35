// Package policy is the seccomp policy of everything users run in a machine, and its assembly
// into a BPF program by github.com/elastic/go-seccomp-bpf. Only package seccompfilter's
// generator (seccompfilter/gen) and tests import it: resellerd itself carries the assembled
// programs (see package seccompfilter for why).
//
// The policy has the semantics of Docker's default profile (moby's profiles/seccomp/default.json
// as of Docker 25 to 27, written from its published list, not generated from it): an allow
// list, everything else EPERM, the rules Docker gates on a capability decided by the
// capabilities machines keep (machineinit's keptCaps: only chroot's CAP_SYS_CHROOT is among
// them), clone without namespace flags, clone3 answering ENOSYS so that libc falls back to
// clone, and personality only with the values Docker allows. So keyctl, add_key, request_key
// (the kernel keyring is not namespaced), unshare, setns, io_uring_*, bpf, kexec_*, *_module,
// open_by_handle_at, perf_event_open, userfaultfd, mount and the new mount API, umount2,
// pivot_root, swapon/swapoff, reboot, acct, quotactl, lookup_dcookie, nfsservctl, syslog,
// uselib, vm86, iopl/ioperm, settimeofday, clock_settime, kcmp, pidfd_getfd, sethostname are
// refused.
//
// Where it deliberately differs from Docker:
//
//   - Stricter: adjtimex and clock_adjtime (Docker allows them, as without CAP_SYS_TIME they only
//     read), name_to_handle_at (Docker allows it; only open_by_handle_at, denied, could use its
//     handles), process_vm_readv/process_vm_writev (Docker allows them with ptrace on kernels from
//     4.8) and modify_ldt are denied; socket refuses AF_VSOCK (the host's hypervisor sockets).
//   - Only the native ABI: Docker also allows the 32-bit (x86) and x32 ABIs on x86_64; here x32
//     calls answer ENOSYS and every other architecture's calls EPERM, so the filter does not
//     have to mirror a second syscall table.
//   - A syscall newer than the newest this list allows (its number above theirs) answers ENOSYS,
//     not EPERM, as runc answers the syscalls its profile predates: libc and tools then fall
//     back to an older call, as on an older kernel.
//
// ptrace is allowed, as Docker allows it from kernel 4.8 (the kernel then checks it against
// the process's capabilities and dumpability: the agent and init are not dumpable).
package policy

import (
	"encoding/binary"
	"fmt"
	"sort"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Arches are the architectures package seccompfilter carries a program for: the Linux ones
// go-seccomp-bpf has syscall tables for and resellerd is released on.
func Arches() []string { return []string{"amd64", "arm64"} }

// InstructionSize is the size of one instruction of Program's result: the kernel's struct
// sock_filter.
const InstructionSize = 8

// errnoENOSYS is the action that makes a syscall look absent from the kernel.
const errnoENOSYS = seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)

// Policy is the policy for the architecture goarch (see the package doc). Groups are tried in
// order; the default action (EPERM) takes what none matches, and every call of another
// architecture.
func Policy(goarch string) (seccomp.Policy, error) {
	info, err := arch.GetInfo(goarch)
	if err != nil {
		return seccomp.Policy{}, fmt.Errorf("seccomp policy: %w", err)
	}
	allowed := present(info, dockerAllowed())
	return seccomp.Policy{
		DefaultAction: seccomp.ActionErrno, // EPERM
		Syscalls: []seccomp.SyscallGroup{
			{Names: allowed, NamesWithCondtions: conditionalRules(), Action: seccomp.ActionAllow},
			{Names: []string{"clone3"}, Action: errnoENOSYS},
			{Names: newerThan(info, append(allowed, "clone", "clone3", "personality", "socket")), Action: errnoENOSYS},
		},
	}, nil
}

// Program assembles the policy for goarch and returns it as the kernel reads it: struct
// sock_filter instructions, InstructionSize bytes each, little-endian (both Arches are).
func Program(goarch string) ([]byte, error) {
	insts, err := Instructions(goarch)
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("seccomp policy for %s: assemble: %w", goarch, err)
	}
	out := make([]byte, 0, len(raw)*InstructionSize)
	for _, r := range raw {
		out = binary.LittleEndian.AppendUint16(out, r.Op)
		out = append(out, r.Jt, r.Jf)
		out = binary.LittleEndian.AppendUint32(out, r.K)
	}
	return out, nil
}

// conditionalRules are Docker's rules that allow a syscall for some argument values only.
func conditionalRules() []seccomp.NameWithConditions {
	arg := func(name string, index uint32, op seccomp.Operation, value uint64) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: seccomp.ArgumentConditions{{Argument: index, Operation: op, Value: value}}}
	}
	var rules []seccomp.NameWithConditions
	for _, p := range []uint64{perLinux, perLinux32, perUname26, perLinux32Uname, personalityQuery} {
		rules = append(rules, arg("personality", 0, seccomp.Equal, p))
	}
	return append(rules,
		arg("clone", 0, seccomp.BitsNotSet, cloneNamespaces),
		arg("socket", 0, seccomp.NotEqual, afVsock),
	)
}

// present keeps the names info's architecture has, in order.
func present(info *arch.Info, names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := info.SyscallNames[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// newerThan lists info's syscalls whose number is above every one of known's: syscalls the
// list predates.
func newerThan(info *arch.Info, known []string) []string {
	newest := 0
	for _, n := range known {
		if nr, ok := info.SyscallNames[n]; ok && nr > newest {
			newest = nr
		}
	}
	var out []string
	for nr, n := range info.SyscallNumbers {
		if nr > newest {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
