package agent

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// runInit is the machine's PID 1: build the root, start the agent, reap until the agent exits.
func runInit() int {
	dropSignals(syscall.SIGUSR1, syscall.SIGUSR2)
	b, err := bootFromEnv()
	if err != nil {
		return fail(err)
	}
	if err := buildRoot(b); err != nil {
		return fail(err)
	}
	// Not dumpable: /proc/1 is then root's and needs CAP_SYS_PTRACE, which users lack.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// The agent is started before the pivot: after it the binary (and, when it is dynamically
	// linked, its loader and libc) are out of the machine's reach. pivot_root moves the agent's
	// root and working directory along with init's. The gate orders the two: the agent writes a
	// byte once its Go code runs (every library loaded), init then pivots and closes its end,
	// and the agent, reading until that end, goes on inside the machine's root.
	gate, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	ours, theirs := os.NewFile(uintptr(gate[0]), "gate"), os.NewFile(uintptr(gate[1]), "gate")
	agentPID, err := startAgent(b, theirs)
	theirs.Close()
	if err != nil {
		return fail(err)
	}
	if _, err := ours.Read(make([]byte, 1)); err != nil {
		return fail(fmt.Errorf("the agent did not start: %w", err))
	}
	if err := pivot(b.Root); err != nil {
		_ = unix.Kill(agentPID, unix.SIGKILL)
		return fail(err)
	}
	ours.Close()
	return reapUntil(agentPID)
}

// dropSignals makes the signals a machine's users may send init or the agent (busybox's
// poweroff and reboot signal PID 1; `kill -TERM -1` reaches the agent) do nothing: power is the
// datacenter's, over the control channel. They are caught and dropped, not ignored: an ignored
// signal stays ignored in every process started after, and users' shells would then not stop
// at Ctrl-C. SIGKILL from inside the machine cannot reach init (the kernel protects a PID
// namespace's init) but can reach the agent, which ends the machine like a crash.
func dropSignals(extra ...os.Signal) {
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, append([]os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT}, extra...)...)
	go func() {
		for range ch {
		}
	}()
}

// buildRoot mounts the machine's filesystems inside init's own mount namespace. Every mount is made private first, so nothing propagates back to the host.
func buildRoot(b Boot) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", b.Lower, b.Upper, b.Work)
	if err := unix.Mount("overlay", b.Root, "overlay", 0, opts); err != nil {
		return fmt.Errorf("mount the disk (overlay %s): %w", opts, err)
	}
	steps := []func(string) error{mountProc, mountDev, mountTmp}
	for _, step := range steps {
		if err := step(b.Root); err != nil {
			return err
		}
	}
	if err := unix.Sethostname([]byte(b.Hostname)); err != nil {
		return fmt.Errorf("set the hostname: %w", err)
	}
	return nil
}

func mountProc(root string) error {
	proc := filepath.Join(root, "proc")
	if err := mountAt("proc", proc, "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return err
	}
	// The host-global knobs under /proc: read-only (sysctls, the SysRq trigger that would reboot
	// the host, IRQs, buses) or masked (kernel memory, keys, timers), as container runtimes do.
	for _, p := range []string{"sys", "sysrq-trigger", "irq", "bus", "fs"} {
		if err := readOnly(filepath.Join(proc, p)); err != nil {
			return err
		}
	}
	for _, p := range []string{"kcore", "keys", "timer_list", "latency_stats", "sched_debug"} {
		target := filepath.Join(proc, p)
		if _, err := os.Stat(target); err != nil {
			continue
		}
		if err := unix.Mount("/dev/null", target, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("mask %s: %w", target, err)
		}
	}
	return nil
}

// readOnly bind-mounts path onto itself read-only; without CAP_SYS_ADMIN it cannot be undone.
func readOnly(path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
	if err := unix.Mount(path, path, "", flags, ""); err != nil {
		return fmt.Errorf("make %s read-only: %w", path, err)
	}
	return nil
}

// device is one node of the machine's /dev.
type device struct {
	name         string
	major, minor uint32
}

var devices = []device{
	{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0},
}

func mountDev(root string) error {
	dev := filepath.Join(root, "dev")
	if err := mountAt("tmpfs", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=755,size=1m"); err != nil {
		return err
	}
	for _, d := range devices {
		mode := uint32(unix.S_IFCHR | 0o666)
		if err := unix.Mknod(filepath.Join(dev, d.name), mode, int(unix.Mkdev(d.major, d.minor))); err != nil {
			return fmt.Errorf("mknod /dev/%s: %w", d.name, err)
		}
		_ = os.Chmod(filepath.Join(dev, d.name), 0o666) // mknod applies the umask
	}
	// tty group is 5 in the default image's /etc/group.
	if err := mountAt("devpts", filepath.Join(dev, "pts"), "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620,gid=5"); err != nil {
		return err
	}
	if err := mountAt("tmpfs", filepath.Join(dev, "shm"), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=16m"); err != nil {
		return err
	}
	links := map[string]string{"ptmx": "pts/ptmx", "fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return fmt.Errorf("/dev/%s: %w", name, err)
		}
	}
	return nil
}

func mountTmp(root string) error {
	if err := mountAt("tmpfs", filepath.Join(root, "tmp"), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=64m"); err != nil {
		return err
	}
	return mountAt("tmpfs", filepath.Join(root, "run"), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=755,size=16m")
}

// mountAt mounts source on target, creating target first (the disk may lack it).
func mountAt(source, target, fstype string, flags uintptr, data string) error {
	if err := os.MkdirAll(target, 0o755); err != nil {
		return fmt.Errorf("mkdir %s: %w", target, err)
	}
	if err := unix.Mount(source, target, fstype, flags, data); err != nil {
		return fmt.Errorf("mount %s on %s: %w", fstype, target, err)
	}
	return nil
}

// pivot makes root the root of init's mount namespace and detaches the host's tree, which then
// stays unreachable: pivot_root(".", ".") stacks the old root under the new one, and the
// detaching unmount removes it.
func pivot(root string) error {
	if err := unix.Chdir(root); err != nil {
		return fmt.Errorf("chdir %s: %w", root, err)
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root %s: %w", root, err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the host's root: %w", err)
	}
	return unix.Chdir("/")
}

// keptCaps is the bounding set of the agent and of everything users run: Docker's default set
// without CAP_MKNOD. Everything else (CAP_SYS_ADMIN, CAP_SYS_MODULE, CAP_SYS_RAWIO,
// CAP_SYS_PTRACE, CAP_SYS_BOOT, CAP_SYS_TIME, CAP_NET_ADMIN, CAP_DAC_READ_SEARCH, ...) is
// dropped.
var keptCaps = map[int]bool{
	unix.CAP_CHOWN: true, unix.CAP_DAC_OVERRIDE: true, unix.CAP_FSETID: true, unix.CAP_FOWNER: true,
	unix.CAP_NET_RAW: true, unix.CAP_SETGID: true, unix.CAP_SETUID: true, unix.CAP_SETFCAP: true,
	unix.CAP_SETPCAP: true, unix.CAP_NET_BIND_SERVICE: true, unix.CAP_SYS_CHROOT: true,
	unix.CAP_KILL: true, unix.CAP_AUDIT_WRITE: true,
}

// KeptCaps lists the capabilities kept in the bounding set of what users run.
func KeptCaps() []int {
	list := make([]int, 0, len(keptCaps))
	for c := range keptCaps {
		list = append(list, c)
	}
	return list
}

// lastCap is the highest capability this kernel knows.
func lastCap() int {
	data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return unix.CAP_LAST_CAP
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return unix.CAP_LAST_CAP
	}
	return n
}

// startAgent starts the agent from an OS thread whose bounding set lost every capability
// outside keptCaps; the bounding set is per thread and a child inherits its forking thread's.
// The thread is never unlocked, so the Go runtime discards it when the goroutine ends.
func startAgent(b Boot, gate *os.File) (int, error) {
	type started struct {
		pid int
		err error
	}
	ch := make(chan started, 1)
	go func() {
		runtime.LockOSThread()
		pid, err := startReduced(b, gate)
		ch <- started{pid, err}
	}()
	s := <-ch
	return s.pid, s.err
}

func startReduced(b Boot, gate *os.File) (int, error) {
	if err := DropBoundingSet(); err != nil {
		return 0, err
	}
	env, err := b.Env()
	if err != nil {
		return 0, err
	}
	env[0] = EnvRole + "=" + RoleAgent
	cmd := &exec.Cmd{
		Path:       "/proc/self/exe",
		Args:       []string{"reseller-agent"},
		Env:        append(env, "GOMAXPROCS=1", "GOGC=50"),
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

// DropBoundingSet removes every capability outside keptCaps from the calling thread's bounding
// set (lock the goroutine to its thread first).
func DropBoundingSet() error {
	for c := 0; c <= lastCap(); c++ {
		if keptCaps[c] {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	return nil
}

// reapUntil reaps every child and orphan of the machine until the agent (agentPID) exits, and
// returns the exit code init then exits with.
func reapUntil(agentPID int) int {
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGCHLD)
	for {
		for {
			var status unix.WaitStatus
			pid, err := unix.Wait4(-1, &status, unix.WNOHANG, nil)
			if err != nil && errors.Is(err, unix.ECHILD) {
				return 1
			}
			if pid <= 0 {
				break
			}
			if pid == agentPID {
				return status.ExitStatus()
			}
		}
		<-sigs
	}
}
