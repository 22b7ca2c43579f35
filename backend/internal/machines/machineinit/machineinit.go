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
// init makes every mount private, mounts the overlay disk (lower: the image; upper and work: the
// machine's disk) inside its own mount namespace, so the mounts vanish with it, mounts /proc
// (with the host-global knobs read-only or masked), a /dev tmpfs with null, zero, full, random,
// urandom, tty and a devpts instance for PTYs, tmpfs on /tmp, /run (with /run/lock) and /dev/shm, sets the
// hostname, and pivot_roots into the disk. It starts the agent with a reduced capability
// bounding set (see keptCaps) and from then on only reaps: it is every orphan's parent, and when
// the agent exits it exits, which ends the machine (the kernel kills what is left of a PID
// namespace whose init is gone).
//
// No user namespace is used. The host runs as root, the image and the disks are owned by the
// host's root, and an overlay mounted inside a user namespace writes its whiteouts and opaque
// markers as user.* xattrs instead of trusted.* ones, so a disk would only be readable in the
// mode it was written in; a user namespace that kept ownership would have to map the machine's
// root to the host's, which isolates nothing. Instead the processes users run lose, from their
// bounding set, every capability outside Docker's default set and CAP_MKNOD too: no mount,
// module, raw I/O, device node, ptrace, reboot, clock or network administration; and the
// host-global parts of /proc are read-only or masked.
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

// GateFD is the agent's end of a socket pair with init, which orders the agent's start and
// init's pivot into the machine's root (see runInit).
const GateFD = 4

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
		return b, fmt.Errorf("machine init: %s: %w", EnvBoot, err)
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
