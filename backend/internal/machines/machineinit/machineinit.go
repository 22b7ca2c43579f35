// Package machineinit is a machine's PID 1 ("init"): resellerd's own binary re-executed by the
// host with EnvRole=init in new PID, mount, UTS, IPC and network namespaces. Its init hook takes
// the process over before main runs.
//
// It imports nothing outside the standard library, on purpose. Go initializes packages in
// import-path order as soon as their dependencies are, so a package with only standard-library
// dependencies takes the process over before the heavy packages of resellerd initialize (the
// JSON Schema metaschemas that kin-openapi brings compile 1.7 MB at init). init lives for the
// machine's whole life, once per machine: what it does not allocate, no idle machine pays for.
// (The agent, package agent, needs x/crypto/ssh and so starts after them.)
//
// Root in a machine is not root on the host. init itself stays the host's root (in the host's
// user namespace: it mounts), but the agent, and so everything users run, lives in a user
// namespace of its own whose ids 0-65535 are the host's Boot.IDs (1000000-1065535): a process of
// the machine is, seen from the host, an unprivileged uid, and its capabilities are its user
// namespace's, which owns none of the machine's other namespaces (PID, mount, UTS, IPC and
// network are the host's): it cannot mount, set the hostname, configure the network or open raw
// sockets whatever it holds. The network namespace lets it bind port 22 and open ICMP echo
// sockets without them (netSysctls).
//
// The disks stay as they were without a user namespace (snapshots and disks written before
// read the same): their files are owned by root-based ids and the overlay's whiteouts and opaque
// markers are trusted.* xattrs, which an overlay mounted inside a user namespace would write as
// user.* ones instead. So the overlay is mounted by init, the host's root, over idmapped mounts
// of the image and of the disk (open_tree, mount_setattr with MOUNT_ATTR_IDMAP into the agent's
// user namespace, move_mount): a file the disk says is uid n is the machine's uid n, and a file
// the machine's root creates is uid 0 on the disk. The overlay creates and copies up with its
// mounter's credentials, which an idmapped layer must map: init mounts it from a thread whose
// fsuid is the machine's root and which keeps its capabilities (asMachineRoot).
//
// The order: init first waits (StartFD) until the host has placed it in the machine's cgroups,
// then makes every mount private and mounts a /proc of its PID namespace; starts the
// agent in the new user namespace and a new cgroup namespace rooted at the machine's cgroups
// (the agent confines itself first: a new user namespace starts with a full bounding set, see
// ConfineAgent); mounts a tmpfs over
// Boot.Root holding the idmapped image and disk and the overlay over them, named relative to it
// so that the overlay's options in the machine's /proc/self/mountinfo name no host path; mounts
// /proc (the host-global knobs read-only or masked), a /dev tmpfs with null, zero, full, random,
// urandom, tty and a devpts instance for PTYs, tmpfs on /tmp, /run (with /run/lock) and /dev/shm
// (all the machine's root's, /dev/pts its tty group's); sets the hostname and pivot_roots into the
// overlay, which detaches the layers' mounts with the host's tree (the overlay keeps its own).
// From then on it only reaps, with Go's collector off (idlegc.go: an idle machine wakes for
// nothing of ours): it is every orphan's parent, and when the agent exits it exits,
// which ends the machine (the kernel kills what is left of a PID namespace whose init is gone).
//
// What users run holds only Docker's default capabilities without CAP_MKNOD, in every set (none
// inheritable or ambient, so none comes back at an exec, whatever resellerd inherited): no
// mount, module, raw I/O, device node, ptrace, reboot, clock or network administration, even
// inside its user namespace; a seccomp filter with the semantics of Docker's default profile
// (Boot.Seccomp, built by package seccompfilter) refuses what the kernel offers without a
// capability and does not namespace (the keyring, user namespaces, io_uring, bpf, perf events,
// userfaultfd, ...); and the host-global parts of /proc are read-only or masked.
package machineinit

import (
	"encoding/json"
	"fmt"
	"os"
)

// EnvRole selects the role a re-executed binary takes: RoleInit (this package) or RoleAgent
// (package agent). The agent never passes it to what users run.
const EnvRole = "RESELLER_MACHINE_ROLE"

// EnvBoot carries the Boot (JSON) from the host to init.
const EnvBoot = "RESELLER_MACHINE_BOOT"

// The roles.
const (
	RoleInit  = "init"
	RoleAgent = "agent"
)

// ControlFD is the descriptor the control channel (see package agent) has in the machine's
// PID 1 and in its agent.
const ControlFD = 3

// StartFD is, in a machine's PID 1, the read end of a pipe from the host: init starts and
// allocates nothing until the host has placed it in the machine's cgroups and written a byte
// there (end of file instead: the host gave up, and init exits). In the agent, fd 4 is GateFD.
const StartFD = 4

// GateFD is the agent's end of a socket pair with init, which orders the agent's start and
// init's pivot into the machine's root (see runInit).
const GateFD = 4

// Boot is what init needs to build the machine's root: host paths (they stay out of the
// machine's view once init has pivoted) and the hostname.
type Boot struct {
	Hostname string `json:"hostname"`
	Lower    string `json:"lower"` // the image, read-only
	Disk     string `json:"disk"`  // the disk: its upper/ layer and overlayfs's work/ directory
	Root     string `json:"root"`  // an empty directory init mounts the layers and the overlay under
	IDs      IDMap  `json:"ids"`   // the machine's user namespace
	// Seccomp is the seccomp filter of the agent and everything users run, built by the host
	// (package seccompfilter) as this package may import only the standard library: struct
	// sock_filter instructions in the host's byte order. init refuses to start without one.
	Seccomp []byte `json:"seccomp"`
}

// Env is the environment that starts a machine's init with b.
func (b Boot) Env() ([]string, error) {
	data, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	return []string{EnvRole + "=" + RoleInit, EnvBoot + "=" + string(data)}, nil
}

func bootFromEnv() (Boot, error) {
	var b Boot
	if err := json.Unmarshal([]byte(os.Getenv(EnvBoot)), &b); err != nil {
		return b, fmt.Errorf("machine init: %s: %w", EnvBoot, err)
	}
	if len(b.Seccomp) == 0 {
		return b, fmt.Errorf("machine init: %s: no seccomp filter", EnvBoot)
	}
	return b, nil
}

// init takes over a process started as a machine's init; any other process goes on.
func init() {
	if os.Getenv(EnvRole) == RoleInit {
		os.Exit(runInit())
	}
}

// fail reports err on stderr (the machine's console log on the host) and returns the exit code
// of a failed init.
func fail(err error) int {
	fmt.Fprintln(os.Stderr, "reseller machine:", err)
	return 1
}
