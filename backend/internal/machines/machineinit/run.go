package machineinit

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// runInit is the machine's PID 1: build the root, start the agent, reap until the agent exits.
func runInit() int {
	if err := awaitHost(); err != nil {
		return fail(err)
	}
	DropSignals(syscall.SIGUSR1, syscall.SIGUSR2)
	b, err := bootFromEnv()
	if err != nil {
		return fail(err)
	}
	if err := privateMounts(); err != nil {
		return fail(err)
	}
	if err := setNetSysctls(); err != nil {
		return fail(err)
	}
	// Not dumpable: /proc/1 is then root's and needs CAP_SYS_PTRACE, which users lack.
	setNotDumpable()
	// The agent is started first, in the machine's new user namespace, whose mapping the image
	// and disk are then mounted idmapped into; and before the pivot: after it the binary (and,
	// when it is dynamically linked, its loader and libc) are out of the machine's reach.
	// pivot_root moves the agent's root and working directory along with init's. The gate orders
	// the two: the agent writes a byte once its Go code runs (every library loaded), init then
	// builds the root, pivots and closes its end, and the agent, reading until that end, goes on
	// inside the machine's root.
	gate, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	ours, theirs := os.NewFile(uintptr(gate[0]), "gate"), os.NewFile(uintptr(gate[1]), "gate")
	agentPID, err := startAgent(theirs, b.IDs, b.Seccomp)
	theirs.Close()
	if err != nil {
		return fail(err)
	}
	if _, err := ours.Read(make([]byte, 1)); err != nil {
		return fail(fmt.Errorf("the agent did not start: %w", err))
	}
	if err := enterRoot(b, agentPID); err != nil {
		_ = syscall.Kill(agentPID, syscall.SIGKILL)
		return fail(err)
	}
	ours.Close()
	// From here init only reaps and allocates nothing: no collection is needed, and the
	// runtime's forced one every two minutes would wake every idle machine (idlegc.go).
	Idle()
	return reapUntil(agentPID)
}

// awaitHost waits on StartFD until the host has placed init in the machine's cgroups, so that
// every process of the machine, and what init itself allocates from then on, is counted there.
func awaitHost() error {
	f := os.NewFile(StartFD, "start")
	defer f.Close()
	if _, err := f.Read(make([]byte, 1)); err != nil {
		return fmt.Errorf("the host did not let the machine start: %w", err)
	}
	return nil
}

// enterRoot builds the machine's root with the agent's user namespace and pivots into it.
func enterRoot(b Boot, agentPID int) error {
	userns, err := openUserNS(agentPID)
	if err != nil {
		return err
	}
	defer syscall.Close(userns)
	root, err := buildRoot(b, userns)
	if err != nil {
		return err
	}
	return pivot(root)
}

// setNotDumpable makes the calling process not dumpable: its /proc entries are then root's and
// reading them needs CAP_SYS_PTRACE.
func setNotDumpable() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0)
}

// DropSignals makes the signals a machine's users may send init or the agent (busybox's
// poweroff and reboot signal PID 1; `kill -TERM -1` reaches the agent) do nothing: power is the
// datacenter's, over the control channel. They are caught and dropped, not ignored: an ignored
// signal stays ignored in every process started after, and users' shells would then not stop
// at Ctrl-C. SIGKILL from inside the machine cannot reach init (the kernel protects a PID
// namespace's init) but can reach the agent, which ends the machine like a crash.
func DropSignals(extra ...os.Signal) {
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, append([]os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT}, extra...)...)
	go func() {
		for range ch {
		}
	}()
}

// startAgent starts the agent in the machine's own user namespace, whose root is ids.Base on
// the host, and in a cgroup namespace of its own rooted at the machine's cgroups (init is in
// them by now: awaitHost), so the machine's processes see "/" there and no host path: every
// process of the machine but init runs as an unprivileged host uid, with the namespace's
// capabilities (which own none of the machine's other namespaces: they are the host's). A new
// user namespace starts with a full bounding set, so the agent confines itself first
// (ConfineAgent), with the seccomp filter handed to it in EnvSeccomp.
func startAgent(gate *os.File, ids IDMap, filter []byte) (int, error) {
	if len(filter) == 0 {
		return 0, errors.New("seccomp filter: none in the boot")
	}
	cmd := &exec.Cmd{
		Path: "/proc/self/exe",
		Args: []string{"reseller-agent"},
		// The host's own settings for a machine's processes (boot.go), and the filter.
		Env: []string{EnvRole + "=" + RoleAgent, "GOMAXPROCS=1", "GOGC=50",
			EnvSeccomp + "=" + base64.StdEncoding.EncodeToString(filter)},
		Dir:        "/",
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		ExtraFiles: []*os.File{os.NewFile(ControlFD, "control"), gate},
		// No Pdeathsig: when init is gone the kernel kills the whole PID namespace.
		SysProcAttr: &syscall.SysProcAttr{
			Setsid:                     true,
			Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWCGROUP,
			UidMappings:                ids.sysProcIDMap(),
			GidMappings:                ids.sysProcIDMap(),
			GidMappingsEnableSetgroups: true,
			// Its ids become the namespace's root once the mappings are written; until then
			// they are the host's root's, which the namespace does not map.
			Credential: &syscall.Credential{Uid: 0, Gid: 0},
		},
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start the agent: %w", err)
	}
	return cmd.Process.Pid, nil
}

// reapUntil reaps every child and orphan of the machine until the agent (agentPID) exits, and
// returns the exit code init then exits with. A blocking wait4 needs no SIGCHLD handler.
func reapUntil(agentPID int) int {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil:
			return 1
		case pid == agentPID:
			return status.ExitStatus()
		}
	}
}
