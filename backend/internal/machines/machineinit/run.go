package machineinit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
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
	if err := buildRoot(b); err != nil {
		return fail(err)
	}
	// Not dumpable: /proc/1 is then root's and needs CAP_SYS_PTRACE, which users lack.
	setNotDumpable()
	// The agent is started before the pivot: after it the binary (and, when it is dynamically
	// linked, its loader and libc) are out of the machine's reach. pivot_root moves the agent's
	// root and working directory along with init's. The gate orders the two: the agent writes a
	// byte once its Go code runs (every library loaded), init then pivots and closes its end,
	// and the agent, reading until that end, goes on inside the machine's root.
	gate, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	ours, theirs := os.NewFile(uintptr(gate[0]), "gate"), os.NewFile(uintptr(gate[1]), "gate")
	agentPID, err := startAgent(theirs, b.Seccomp)
	theirs.Close()
	if err != nil {
		return fail(err)
	}
	if _, err := ours.Read(make([]byte, 1)); err != nil {
		return fail(fmt.Errorf("the agent did not start: %w", err))
	}
	if err := pivot(b.Root); err != nil {
		_ = syscall.Kill(agentPID, syscall.SIGKILL)
		return fail(err)
	}
	ours.Close()
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

// startAgent starts the agent from an OS thread confined as what users run must be (confine);
// capability sets and seccomp filters are per thread and a child inherits its forking thread's.
// The thread is never unlocked, so the Go runtime discards it when the goroutine ends (and
// creates no thread from it: a locked thread's new threads come from the runtime's template
// thread, so init's other threads stay unconfined for the mounts and the pivot).
func startAgent(gate *os.File, filter []byte) (int, error) {
	type started struct {
		pid int
		err error
	}
	ch := make(chan started, 1)
	go func() {
		runtime.LockOSThread()
		pid, err := startReduced(gate, filter)
		ch <- started{pid, err}
	}()
	s := <-ch
	return s.pid, s.err
}

// confine gives the calling thread what the agent and everything users run keep: keptCaps in
// the bounding, permitted and effective sets, empty inheritable and ambient sets, and the
// seccomp filter. The filter goes on while the thread still has CAP_SYS_ADMIN, which is what
// lets it go on without no_new_privs (see installSeccomp); capset, which then drops
// CAP_SYS_ADMIN, is one of the calls it allows.
func confine(filter []byte) error {
	if err := DropBoundingSet(); err != nil {
		return err
	}
	if err := installSeccomp(filter); err != nil {
		return err
	}
	return setCapabilities()
}

// startReduced starts the agent from the calling (locked) thread. The thread first enters a new
// cgroup namespace, rooted at the machine's cgroups (init is in them by now: awaitHost), so the
// machine's processes see "/" there and no host path; it does so before confine, which takes
// away the CAP_SYS_ADMIN and the unshare that needs.
func startReduced(gate *os.File, filter []byte) (int, error) {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_UNSHARE, syscall.CLONE_NEWCGROUP, 0, 0); errno != 0 {
		return 0, fmt.Errorf("a cgroup namespace for the agent: %w", errno)
	}
	if err := confine(filter); err != nil {
		return 0, err
	}
	cmd := &exec.Cmd{
		Path:       "/proc/self/exe",
		Args:       []string{"reseller-agent"},
		Env:        []string{EnvRole + "=" + RoleAgent, "GOMAXPROCS=1", "GOGC=50"}, // the host's own settings for a machine's processes (boot.go)
		Dir:        "/",
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		ExtraFiles: []*os.File{os.NewFile(ControlFD, "control"), gate},
		// No Pdeathsig: it fires when the forking thread ends, and this one ends right away.
		// The agent needs none: when init is gone the kernel kills the whole PID namespace.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
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
