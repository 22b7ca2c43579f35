// Package agent is what runs inside a machine: its PID 1 ("init") and the agent that serves SSH
// and the host's control channel. Both are the host's own binary (resellerd, a go test binary,
// anything that imports package machines) re-executed through /proc/self/exe with EnvRole set;
// this package's init hook then takes the process over before main runs, so no separate binary
// has to be built, shipped or found.
//
// A machine is two processes of that binary plus what its users start:
//
//   - init (PID 1 of the machine's PID namespace) is started by the host with new PID, mount,
//     UTS, IPC and network namespaces. It makes every mount private, mounts the overlay disk
//     (lower: the image; upper and work: the machine's disk) inside its own mount namespace, so
//     the mounts vanish with it, mounts /proc (with the host-global knobs read-only or masked),
//     a /dev tmpfs with null, zero, full, random, urandom, tty and a devpts instance for PTYs,
//     tmpfs on /tmp, /run and /dev/shm, sets the hostname, and pivot_roots into the disk. It then
//     starts the agent with a reduced capability bounding set and from then on only reaps
//     zombies: it is every orphan's parent, and when the agent exits it exits, which ends the
//     machine (the kernel kills what is left of a PID namespace whose init is gone).
//   - the agent serves SSH on port 22 and the control channel (see control.go). Every process a
//     user starts descends from it and so inherits its bounding set.
//
// No user namespace is used. The host runs as root, the image and the disks are owned by the
// host's root, and an overlay mounted inside a user namespace writes its whiteouts and opaque
// markers as user.* xattrs instead of trusted.* ones, so a disk would only be readable in the
// mode it was written in; a user namespace that kept ownership would have to map the machine's
// root to the host's, which isolates nothing. Instead the processes users run lose, from their
// bounding set, every capability outside Docker's default set and CAP_MKNOD too (see keptCaps):
// no mount, module, raw I/O, device node, ptrace, reboot, clock or network administration; and
// the host-global parts of /proc are read-only or masked.
package agent

import (
	"encoding/json"
	"fmt"
	"os"
)

// EnvRole selects the role a re-executed binary takes: RoleInit or RoleAgent. The agent never
// passes it to what users run.
const EnvRole = "RESELLER_MACHINE_ROLE"

// EnvBoot carries the Boot (JSON) from the host to init and from init to the agent.
const EnvBoot = "RESELLER_MACHINE_BOOT"

// The roles.
const (
	RoleInit  = "init"
	RoleAgent = "agent"
)

// Boot is what init needs to build the machine's root: host paths (they stay out of the
// machine's view once init has pivoted) and the hostname.
type Boot struct {
	Hostname string `json:"hostname"`
	Lower    string `json:"lower"` // the image, read-only
	Upper    string `json:"upper"` // the disk's upper layer
	Work     string `json:"work"`  // overlayfs's work directory, on the same filesystem as Upper
	Root     string `json:"root"`  // an empty directory the overlay is mounted on
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
		return b, fmt.Errorf("agent: %s: %w", EnvBoot, err)
	}
	return b, nil
}

// init takes over a process started as a machine's init or agent; any other process goes on.
func init() {
	switch os.Getenv(EnvRole) {
	case RoleInit:
		os.Exit(runInit())
	case RoleAgent:
		os.Exit(runAgent())
	}
}

// fail reports err on stderr (the machine's console log on the host) and returns the exit code
// of a failed role.
func fail(err error) int {
	fmt.Fprintln(os.Stderr, "reseller machine:", err)
	return 1
}
