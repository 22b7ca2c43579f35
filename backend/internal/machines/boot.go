package machines

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/agent"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/machineinit"
)

// Bounds of the waits around a machine's power (each also ends with its ctx).
const (
	DefaultBootTimeout = time.Minute                         // PID 1 started to SSH listening (Options.BootTimeout)
	stopTimeout        = agent.ShutdownGrace + 2*time.Second // shutdown asked to PID 1 gone; then SIGKILL
	// killTimeout: SIGKILL to PID 1 reaped. The kernel reaps a namespace's PID 1 only once every
	// process in it has exited (their memory freed, their files closed), seconds on a host as
	// loaded as CI's two cores; a halt that gives up leaves the machine running (an error).
	killTimeout = 30 * time.Second
)

// running is a booted machine: its PID 1 (init) and the control channel to its agent.
type running struct {
	cmd   *exec.Cmd
	pid   int
	agent int // the agent's PID on the host (0: not known), init's first child (wire)
	ctl   *control
	done  chan struct{} // closed when PID 1 has exited and been waited for
}

func (r *running) alive() bool {
	if r == nil {
		return false
	}
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// control is the host's end of a machine's control channel (see package agent).
type control struct {
	conn  net.Conn
	encMu sync.Mutex
	enc   *json.Encoder
	ready chan struct{}
	// unanswered is signalled when a call ends at its deadline without the agent's answer:
	// the liveness watch then pings the agent (liveness.go).
	unanswered chan struct{}

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan agent.Message
	closed  chan struct{}
}

func newControl(conn net.Conn, m *Manager, ref string) *control {
	c := &control{conn: conn, enc: agent.NewEncoder(conn), ready: make(chan struct{}), unanswered: make(chan struct{}, 1),
		pending: map[int64]chan agent.Message{}, closed: make(chan struct{})}
	go c.read(m, ref)
	return c
}

func (c *control) send(msg agent.Message) error {
	c.encMu.Lock()
	defer c.encMu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.enc.Encode(msg)
}

// read dispatches the agent's messages until the channel closes (the machine is gone). A
// channel that cannot be read any more (a line over agent.MaxLine) is closed, which ends the
// machine as a crash does, rather than leaving it running with nothing answering its calls.
func (c *control) read(m *Manager, ref string) {
	defer close(c.closed)
	sc := bufio.NewScanner(c.conn)
	sc.Buffer(make([]byte, 64<<10), agent.MaxLine)
	defer func() {
		// net.ErrClosed is the host's own close (kill: a stop or a delete), not a break.
		if err := sc.Err(); err != nil && !errors.Is(err, net.ErrClosed) {
			m.log.Error("machine control channel broken; the machine stops", "ref", ref, "error", err)
			_ = c.conn.Close()
		}
	}()
	readyOnce := sync.Once{}
	for sc.Scan() {
		var msg agent.Message
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			m.log.Warn("machine control channel", "ref", ref, "error", err)
			continue
		}
		switch msg.Op {
		case agent.OpReady:
			readyOnce.Do(func() { close(c.ready) })
		case agent.OpResult:
			c.mu.Lock()
			ch := c.pending[msg.ID]
			delete(c.pending, msg.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- msg
			}
		case agent.OpLog:
			m.log.Info("machine agent", "ref", ref, "message", msg.Error)
		}
	}
}

// boot starts mc from its disk: PID 1 in new namespaces, its network, its password, then waits
// until SSH listens. On failure nothing of the attempt is left (process, link).
func (m *Manager) boot(ctx context.Context, mc *machine) error {
	r := mc.rec
	hash, err := os.ReadFile(mc.passwordPath())
	if err != nil {
		return fmt.Errorf("machine %s: password: %w", mc.ref, err)
	}
	if err := mountDisk(ctx, mc, r.Limits.diskBytes()); err != nil {
		return err
	}
	d := disk(mc.dir)
	for _, p := range []string{d.upper, d.work, d.root} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("machine %s: disk: %w", mc.ref, err)
		}
	}
	run, err := m.startInit(mc, machineinit.Boot{Hostname: r.Hostname, Lower: m.lower(r), Disk: mc.diskMount(), Root: d.root, IDs: machineIDs,
		Seccomp: m.seccomp})
	if err != nil {
		// No process took the disk or the cgroups: release them here, as kill would.
		_ = removeMachineCgroups(m.cgroups, mc.ref)
		if relErr := releaseDisk(mc); relErr != nil {
			m.log.Error("machine disk", "ref", mc.ref, "error", relErr)
		}
		return err
	}
	mc.run = run
	if err := m.wire(ctx, mc, string(hash)); err != nil {
		m.kill(ctx, mc)
		return fmt.Errorf("machine %s: boot: %w%s%s", mc.ref, err, exitState(run), consoleTail(mc.dir))
	}
	m.log.Info("machine booted", "ref", mc.ref, "ipv4", r.IPv4, "pid", run.pid)
	go m.supervise(mc, run)
	return nil
}

// wire gives a started machine its network and password and waits until SSH listens.
func (m *Manager) wire(ctx context.Context, mc *machine, hash string) error {
	run := mc.run
	if err := m.net.plug(ctx, run.pid, mc.ref, mc.rec.IPv4); err != nil {
		return err
	}
	if err := run.ctl.send(agent.Message{Op: agent.OpPassword, Hash: hash}); err != nil {
		return fmt.Errorf("control channel: %w", err)
	}
	timer := time.NewTimer(m.o.BootTimeout)
	defer timer.Stop()
	select {
	case <-run.ctl.ready:
		run.agent = firstChild(run.pid)
		return nil
	case <-run.done:
		return errors.New("the machine's init exited")
	case <-timer.C:
		return fmt.Errorf("SSH not listening after %s", m.o.BootTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startInit starts the machine's PID 1 (this binary re-executed, taken over by package
// machineinit).
func (m *Manager) startInit(mc *machine, b machineinit.Boot) (*running, error) {
	env, err := b.Env()
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("machine %s: control channel: %w", mc.ref, err)
	}
	hostEnd, childEnd := os.NewFile(uintptr(fds[0]), "control"), os.NewFile(uintptr(fds[1]), "control")
	defer childEnd.Close()
	console, err := os.OpenFile(filepath.Join(mc.dir, "console.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		hostEnd.Close()
		return nil, fmt.Errorf("machine %s: console log: %w", mc.ref, err)
	}
	defer console.Close()
	if err := m.makeMachineCgroups(mc); err != nil {
		hostEnd.Close()
		return nil, err
	}
	startRead, startWrite, err := os.Pipe() // machineinit.StartFD
	if err != nil {
		hostEnd.Close()
		return nil, fmt.Errorf("machine %s: start pipe: %w", mc.ref, err)
	}
	defer startRead.Close()
	defer startWrite.Close() // unless written: init then exits
	cmd := &exec.Cmd{
		Path:       "/proc/self/exe",
		Args:       []string{"init"},
		Env:        append(env, "GOMAXPROCS=1", "GOGC=50"),
		Dir:        "/",
		Stdout:     console,
		Stderr:     console,
		ExtraFiles: []*os.File{childEnd, startRead},
		SysProcAttr: &syscall.SysProcAttr{
			Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC,
			Pdeathsig:  syscall.SIGKILL, // machines die with resellerd
		},
	}
	if err := spawn(cmd); err != nil {
		hostEnd.Close()
		return nil, fmt.Errorf("machine %s: start its init: %w", mc.ref, err)
	}
	conn, err := net.FileConn(hostEnd)
	hostEnd.Close()
	run := &running{cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(run.done)
	}()
	if err != nil {
		err = fmt.Errorf("control channel: %w", err)
	} else if err = m.admit(mc, run.pid, startWrite); err != nil {
		conn.Close()
	}
	if err != nil {
		_ = cmd.Process.Kill()
		<-run.done
		return nil, fmt.Errorf("machine %s: %w", mc.ref, err)
	}
	run.ctl = newControl(conn, m, mc.ref)
	return run, nil
}

// admit places a started init (pid, waiting on machineinit.StartFD) in mc's cgroups, then lets
// it go on. CLONE_INTO_CGROUP would place it at clone time, but only on cgroup v2.
func (m *Manager) admit(mc *machine, pid int, start *os.File) error {
	if err := place(m.cgroups, mc.ref, pid); err != nil {
		return err
	}
	if _, err := start.Write([]byte{1}); err != nil {
		return fmt.Errorf("start its init: %w", err)
	}
	return nil
}

// spawnRequest asks the spawner thread to start a command.
type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

// spawner is an OS thread, locked for the life of the process, that starts every machine's
// PID 1. Pdeathsig (machines die with resellerd) fires when the *thread* that forked the child
// ends, not the process; Go ends a thread when a goroutine locked to it returns (inNetns does
// when it cannot go back to the host's namespace), so a machine started from an ordinary
// goroutine could be killed by an unrelated thread's end. This thread never ends.
var spawner = sync.OnceValue(func() chan<- spawnRequest {
	ch := make(chan spawnRequest)
	go func() {
		runtime.LockOSThread()
		for req := range ch {
			req.done <- req.cmd.Start()
		}
	}()
	return ch
})

func spawn(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	spawner() <- spawnRequest{cmd: cmd, done: done}
	return <-done
}

// halt powers mc off: the agent is asked to shut down (SIGTERM to every process, SIGKILL after
// its grace), PID 1 is killed if it outlives stopTimeout or ctx, then its veth is deleted. A
// stopped machine is left as it is.
func (m *Manager) halt(ctx context.Context, mc *machine) error {
	mc.down = false // stopped on purpose: not booted again (liveness.go)
	run := mc.run
	if run == nil {
		return nil
	}
	if run.alive() {
		_ = run.ctl.send(agent.Message{Op: agent.OpShutdown})
		timer := time.NewTimer(stopTimeout)
		select {
		case <-run.done:
		case <-timer.C:
			m.log.Info("machine did not stop in time; killing it", "ref", mc.ref)
		case <-ctx.Done():
		}
		timer.Stop()
	}
	m.kill(ctx, mc)
	if run.alive() {
		return fmt.Errorf("machine %s: PID %d still alive after SIGKILL", mc.ref, run.pid)
	}
	m.log.Info("machine stopped", "ref", mc.ref)
	return nil
}

// kill ends mc's PID 1 (the kernel then kills its whole PID namespace), waits for it within
// killTimeout, and removes its veth and control channel.
func (m *Manager) kill(ctx context.Context, mc *machine) {
	run := mc.run
	if run == nil {
		return
	}
	_ = run.cmd.Process.Signal(syscall.SIGKILL)
	timer := time.NewTimer(killTimeout)
	select {
	case <-run.done:
	case <-timer.C:
	}
	timer.Stop()
	_ = run.ctl.conn.Close()
	m.net.unplug(ctx, mc.ref)
	if !run.alive() {
		mc.run = nil
		if err := releaseDisk(mc); err != nil {
			m.log.Error("machine disk", "ref", mc.ref, "error", err)
		}
	}
}

// exitState says how a machine's PID 1 ended, if it has.
func exitState(run *running) string {
	if run.alive() || run.cmd.ProcessState == nil {
		return ""
	}
	return "; its init: " + run.cmd.ProcessState.String()
}

// consoleTail is the end of the machine's console log (what its init and agent wrote), for an
// error about its boot.
func consoleTail(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "console.log"))
	if err != nil || len(data) == 0 {
		return ""
	}
	if len(data) > 2048 {
		data = data[len(data)-2048:]
	}
	return "; console: " + string(data)
}

// diskPaths are the host paths of a machine's disk.
type diskPaths struct {
	upper, work, root string
}

func disk(dir string) diskPaths {
	return diskPaths{
		upper: filepath.Join(dir, "disk", "upper"),
		work:  filepath.Join(dir, "disk", "work"),
		root:  filepath.Join(dir, "root"),
	}
}
