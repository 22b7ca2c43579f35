package sshd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

const (
	// ptyDrainGrace is how long output is still read from a PTY once its command has exited:
	// what the command wrote is already buffered, and a background process that keeps the
	// terminal open must not hold the session (OpenSSH then hangs the terminal up too).
	ptyDrainGrace = 100 * time.Millisecond
	// hangupGrace is how long a command hung up (its client went away) has to exit after
	// SIGHUP before its process group is killed.
	hangupGrace = 2 * time.Second
)

// exitResult is how a command ended: an exit code, or the signal that killed it.
type exitResult struct {
	code   int
	signal string
	core   bool
}

// job is a command running in a process for a session.
type job struct {
	cmd  *exec.Cmd
	ptmx *os.File // the PTY's master side; nil without a PTY

	// outputs are the parent's read ends (stdout and stderr pipes, or the PTY's master) that
	// the copiers drain into the channel; copying ends when they reach EOF or are closed.
	outputs []*os.File
	copying sync.WaitGroup

	// stdin is the parent's end of the stdin pipe (nil with a PTY). wait closes it: a process
	// left in the background holding stdin without reading it would otherwise keep its copier
	// blocked, and the pipe open, after the session.
	stdin *os.File

	exited chan struct{} // closed once the process has exited and been reaped
}

// startProcess starts the session's shell: as a login shell for "shell", with -c for "exec".
func (ss *session) startProcess(kind, command string) (*job, error) {
	shell := ss.srv.cfg.Shell
	var cmd *exec.Cmd
	if kind == "shell" {
		cmd = exec.Command(shell)
		cmd.Args[0] = "-" + filepath.Base(shell) // a leading "-" makes it a login shell
	} else {
		cmd = exec.Command(shell, "-c", command)
		cmd.Args[0] = filepath.Base(shell)
	}
	cmd.Dir = ss.workDir()
	cmd.SysProcAttr = ss.procAttr()
	if ss.pty != nil {
		return startWithPTY(cmd, ss)
	}
	return startWithPipes(cmd, ss)
}

// procAttr is the configured SysProcAttr with a new session for the command, so that its
// whole process group can be signalled, and a controlling terminal with a PTY.
func (ss *session) procAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{}
	if f := ss.srv.cfg.SysProcAttr; f != nil {
		if a := f(); a != nil {
			copied := *a // the fields set below must not reach a value the caller shares
			attr = &copied
		}
	}
	attr.Setsid, attr.Setpgid, attr.Foreground = true, false, false
	attr.Setctty, attr.Ctty = ss.pty != nil, 0
	return attr
}

// startWithPipes runs cmd with three pipes: stdin fed from the channel (closed at the
// client's EOF), stdout and stderr kept apart.
func startWithPipes(cmd *exec.Cmd, ss *session) (*job, error) {
	cmd.Env = ss.environ("")
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeFiles(stdinR, stdinW)
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeFiles(stdinR, stdinW, stdoutR, stdoutW)
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	err = cmd.Start()
	closeFiles(stdinR, stdoutW, stderrW) // the child's ends
	if err != nil {
		closeFiles(stdinW, stdoutR, stderrR)
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	j := &job{cmd: cmd, outputs: []*os.File{stdoutR, stderrR}, stdin: stdinW, exited: make(chan struct{})}
	go func() {
		_, _ = copyStream(stdinW, ss.ch)
		_ = stdinW.Close()
	}()
	j.copy(ss.ch, stdoutR)
	j.copy(ss.ch.Stderr(), stderrR)
	return j, nil
}

// startWithPTY runs cmd on a new PTY sized and set up as the client asked; stdout and stderr
// both go to the terminal, as with OpenSSH.
func startWithPTY(cmd *exec.Cmd, ss *session) (*job, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	defer tty.Close()
	if err := applyModes(tty, ss.pty.Modes); err != nil {
		_ = master.Close()
		return nil, err
	}
	ptmx, err := pollable(master)
	if err != nil {
		return nil, err
	}
	j := &job{cmd: cmd, ptmx: ptmx, outputs: []*os.File{ptmx}, exited: make(chan struct{})}
	if err := j.resize(ss.pty.Cols, ss.pty.Rows, ss.pty.Width, ss.pty.Height); err != nil {
		_ = ptmx.Close()
		return nil, err
	}
	cmd.Env = ss.environ(tty.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		_ = ptmx.Close()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	// A terminal has no half-close: the client's EOF is not passed on (OpenSSH does the same).
	go func() { _, _ = io.Copy(ptmx, ss.ch) }()
	j.copy(ss.ch, ptmx)
	return j, nil
}

// pollable returns a non-blocking duplicate of f and closes f, so that reads can be given a
// deadline or be ended by Close (creack/pty hands out the master in blocking mode).
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("dup pty: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("pty non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// copy drains r into w in the background until r ends, fails or is closed, through a pooled
// buffer (copybuf.go).
func (j *job) copy(w io.Writer, r io.Reader) {
	j.copying.Add(1)
	go func() {
		defer j.copying.Done()
		_, _ = copyStream(w, r)
	}()
}

// wait waits for the process to exit and its output to be passed on, and says how it ended.
func (j *job) wait() exitResult {
	err := j.cmd.Wait()
	close(j.exited)
	if j.ptmx != nil {
		_ = j.ptmx.SetReadDeadline(time.Now().Add(ptyDrainGrace))
	}
	j.copying.Wait()
	closeFiles(j.outputs...)
	if j.stdin != nil {
		_ = j.stdin.Close()
	}
	return exitResultOf(j.cmd.ProcessState, err)
}

// exitResultOf reads the exit code or the killing signal from the process's wait status.
func exitResultOf(state *os.ProcessState, err error) exitResult {
	if state == nil {
		return exitResult{code: 255}
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return exitResult{signal: signalName(ws.Signal()), core: ws.CoreDump()}
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return exitResult{code: 255}
	}
	return exitResult{code: state.ExitCode()}
}

// signal passes a client's "signal" request on to the command's process.
func (j *job) signal(sig syscall.Signal) error {
	return j.cmd.Process.Signal(sig) // safe after exit: os.Process knows when it is done
}

// hangup ends a command whose client went away: its output pipes closed, so that a
// background process holding them keeps nothing waiting, and, if it still runs, SIGHUP to
// its process group, SIGKILL after hangupGrace.
func (j *job) hangup() {
	closeFiles(j.outputs...)
	select {
	case <-j.exited:
		return
	default:
	}
	pgid := j.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGHUP)
	timer := time.AfterFunc(hangupGrace, func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	go func() {
		<-j.exited
		timer.Stop()
	}()
}

// resize sets the PTY's window size (columns, rows, and pixels).
func (j *job) resize(cols, rows, width, height uint32) error {
	if j.ptmx == nil {
		return errors.New("no pty")
	}
	ws := &unix.Winsize{Col: clamp16(cols), Row: clamp16(rows), Xpixel: clamp16(width), Ypixel: clamp16(height)}
	return control(j.ptmx, func(fd int) error { return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) })
}

// control runs fn on f's descriptor without (*os.File).Fd, which would make f blocking again.
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

func clamp16(v uint32) uint16 {
	if v > 0xffff {
		return 0xffff
	}
	return uint16(v)
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
