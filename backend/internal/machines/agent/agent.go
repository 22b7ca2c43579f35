// Package agent is what runs inside a machine beside its PID 1 (package machineinit): the agent
// that serves SSH and the host's control channel. It is the host's own binary (resellerd, a go
// test binary, anything that imports package machines) re-executed through /proc/self/exe by
// the machine's init with machineinit.EnvRole set to agent; this package's init hook then takes
// the process over before main runs, so no separate binary has to be built, shipped or found.
//
// A machine is its init, the agent, and what its users start. The agent serves SSH on port 22
// and the control channel (see control.go). It runs in the machine's user namespace (root there,
// an unprivileged uid on the host) and confines itself before anything else
// (machineinit.ConfineAgent: capability sets and the seccomp filter, as runc sets them); every
// process a user starts descends from it and so inherits them. While nothing runs through it
// (no connection, no script), it keeps Go's collector off (activity.go).
package agent

import (
	"fmt"
	"os"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/machineinit"
)

// init takes over a process started as a machine's agent; any other process goes on.
func init() {
	if os.Getenv(machineinit.EnvRole) == machineinit.RoleAgent {
		os.Exit(runAgent())
	}
}

// fail reports err on stderr (the machine's console log on the host) and returns the exit code
// of a failed agent.
func fail(err error) int {
	fmt.Fprintln(os.Stderr, "reseller machine:", err)
	return 1
}
