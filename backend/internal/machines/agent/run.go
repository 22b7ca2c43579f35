package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/machineinit"
)

// HostKeyPath is where a machine keeps its SSH host key: on its disk, so the key is generated
// once per disk and survives power cycles (a rebuild, a fresh disk, makes a new one, and so
// does a server built from a snapshot: the host removes the copy's key).
const HostKeyPath = "/etc/ssh/ssh_host_ed25519_key"

// ShutdownGrace is how long the agent waits after SIGTERM before SIGKILL at OpShutdown.
const ShutdownGrace = 1500 * time.Millisecond

// UserEnv is the environment of what users run (SSH sessions and scripts), before a session's
// or script's own variables.
var UserEnv = []string{
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"HOME=/root", "USER=root", "LOGNAME=root", "SHELL=/bin/sh",
}

// agentState is the agent's shared state: the control channel's writer, the password hash SSH
// checks, and the scripts running.
type agentState struct {
	out   *json.Encoder
	outMu sync.Mutex
	hash  atomic.Pointer[string]
	runs  sync.Map // id -> context.CancelFunc
	ready chan struct{}
	once  sync.Once
	act   *activity // what runs through the agent: collecting is off while nothing does
}

func (a *agentState) send(m Message) {
	a.outMu.Lock()
	defer a.outMu.Unlock()
	_ = a.out.Encode(m)
}

// checkPassword is SSH's password callback: only root, only the current hash.
func (a *agentState) checkPassword(user, password string) bool {
	h := a.hash.Load()
	if user != "root" || h == nil {
		return false
	}
	return CheckPassword(*h, password)
}

// runAgent serves SSH and the control channel until told to shut down or the host goes away.
func runAgent() int {
	if err := machineinit.ConfineAgent(); err != nil {
		return fail(err)
	}
	// Tell init this process runs (its libraries loaded), then wait until init has pivoted
	// into the machine's root and closed the gate's other end.
	gate := os.NewFile(machineinit.GateFD, "gate")
	if _, err := gate.Write([]byte{1}); err != nil {
		return fail(fmt.Errorf("gate: %w", err))
	}
	_, _ = io.Copy(io.Discard, gate)
	_ = gate.Close()
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	machineinit.DropSignals()
	f := os.NewFile(machineinit.ControlFD, "control")
	fc, err := net.FileConn(f)
	if err != nil {
		return fail(fmt.Errorf("control channel: %w", err))
	}
	_ = f.Close()
	conn, ok := fc.(*net.UnixConn)
	if !ok {
		return fail(fmt.Errorf("control channel: a %T, not a unix socket", fc))
	}
	a := &agentState{out: NewEncoder(conn), ready: make(chan struct{}), act: newActivity()}
	key, err := loadHostKey(HostKeyPath)
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", ":22")
	if err != nil {
		return fail(fmt.Errorf("listen on port 22: %w", err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if err := serveSSH(ctx, a.act.counted(ln), key, a.checkPassword, a.logger()); err != nil && ctx.Err() == nil {
			a.send(Message{Op: OpLog, Error: "ssh: " + err.Error()})
		}
	}()
	consoles := newConsoleListener()
	go func() {
		if err := serveConsoles(ctx, a.act.counted(consoles), key, a.logger()); err != nil && ctx.Err() == nil {
			a.send(Message{Op: OpLog, Error: "console: " + err.Error()})
		}
	}()
	go func() {
		<-a.ready
		a.send(Message{Op: OpReady})
		a.act.end() // the boot's
	}()
	fds := &fdReader{conn: conn}
	a.readControl(fds, fds, consoles)
	// The host asked for shutdown, or went away (then Pdeathsig ends the machine anyway).
	cancel()
	shutdown()
	return 0
}

// readControl handles the host's messages read from r until OpShutdown or the channel's end.
// An OpConsole's connection is the next descriptor of fds, which came with its line.
func (a *agentState) readControl(r io.Reader, fds *fdReader, consoles *consoleListener) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			a.send(Message{Op: OpLog, Error: "control: " + err.Error()})
			continue
		}
		switch m.Op {
		case OpPassword:
			h := m.Hash
			a.hash.Store(&h)
			a.once.Do(func() { close(a.ready) })
			if m.ID != 0 {
				a.send(Message{Op: OpResult, ID: m.ID})
			}
		case OpPing:
			a.send(Message{Op: OpResult, ID: m.ID})
		case OpRun:
			go a.run(m)
		case OpCancel:
			if c, ok := a.runs.Load(m.ID); ok {
				c.(context.CancelFunc)()
			}
		case OpConsole:
			a.openConsole(fds, consoles)
		case OpShutdown:
			return
		}
	}
}

// run runs a script with /bin/sh and answers with its output and exit code. The output goes
// to a memfd, not a pipe, so a daemon the script leaves behind (a stand-in service) does not
// hold the answer back by keeping the pipe open.
func (a *agentState) run(m Message) {
	a.act.begin()
	defer a.act.end()
	ctx, cancel := context.WithCancel(context.Background())
	a.runs.Store(m.ID, cancel)
	defer func() {
		a.runs.Delete(m.ID)
		cancel()
	}()
	out, code, err := RunScript(ctx, m.Script, m.Env)
	res := Message{Op: OpResult, ID: m.ID, Output: out, Exit: code}
	if err != nil {
		res.Error = err.Error()
	}
	a.send(res)
}

// RunScript runs script with /bin/sh -c, env added to UserEnv, stdin empty, in a session of
// its own (cancelling ctx kills its process group). It returns the output's last MaxOutput
// bytes and the exit code (-1 and the error when it could not run).
func RunScript(ctx context.Context, script string, env map[string]string) (string, int, error) {
	fd, err := unix.MemfdCreate("output", unix.MFD_CLOEXEC)
	if err != nil {
		return "", -1, fmt.Errorf("output buffer: %w", err)
	}
	out := os.NewFile(uintptr(fd), "output")
	defer out.Close()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = append(append([]string{}, UserEnv...), sortedEnv(env)...)
	cmd.Dir = "/root"
	if _, err := os.Stat(cmd.Dir); err != nil {
		cmd.Dir = "/"
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", -1, err
	}
	stop := context.AfterFunc(ctx, func() { _ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL) })
	defer stop()
	err = cmd.Wait()
	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return "", -1, err
	}
	return tail(out), code, nil
}

func sortedEnv(env map[string]string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	list := make([]string, 0, len(keys))
	for _, k := range keys {
		list = append(list, k+"="+env[k])
	}
	return list
}

// tail reads the last MaxOutput bytes of f.
func tail(f *os.File) string {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return ""
	}
	start := max(size-MaxOutput, 0)
	buf := make([]byte, size-start)
	n, _ := f.ReadAt(buf, start)
	return string(buf[:n])
}

// loadHostKey reads the disk's host key, generating and saving it (mode 0600) on first boot.
func loadHostKey(path string) (ssh.Signer, error) {
	if data, err := os.ReadFile(path); err == nil {
		if s, err := ssh.ParsePrivateKey(data); err == nil {
			return s, nil
		}
	}
	signer, pemBytes, err := newHostKey()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	return signer, nil
}

// shutdown ends every process of the machine but init and the agent: SIGTERM, then SIGKILL to
// what is left after ShutdownGrace. kill(-1) reaches every process of the PID namespace but
// init and the caller.
func shutdown() {
	_ = unix.Kill(-1, unix.SIGTERM)
	deadline := time.Now().Add(ShutdownGrace)
	for time.Now().Before(deadline) && othersAlive() {
		time.Sleep(50 * time.Millisecond)
	}
	_ = unix.Kill(-1, unix.SIGKILL)
}

// othersAlive says whether a process other than init and the agent is left.
func othersAlive() bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == 1 || pid == self {
			continue
		}
		return true
	}
	return false
}
