package sshd

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/crypto/ssh"
)

// Payloads of the session requests (RFC 4254 section 6), decoded with ssh.Unmarshal.
type (
	ptyRequest struct {
		Term                      string
		Cols, Rows, Width, Height uint32
		Modes                     string
	}
	windowChangeRequest struct {
		Cols, Rows, Width, Height uint32
	}
	envRequest struct {
		Name, Value string
	}
	execRequest struct {
		Command string
	}
	subsystemRequest struct {
		Name string
	}
	signalRequest struct {
		Signal string
	}
	exitStatusMsg struct {
		Status uint32
	}
	exitSignalMsg struct {
		Signal     string
		CoreDumped bool
		Message    string
		Lang       string
	}
)

// maxEnv bounds the variables one session may set.
const maxEnv = 64

// session is one "session" channel: its settings until a command starts, then the command.
type session struct {
	srv  *server
	conn *ssh.ServerConn
	ch   ssh.Channel

	env []string    // the client's accepted "env" requests, NAME=value
	pty *ptyRequest // nil without a PTY

	mu      sync.Mutex
	started bool
	job     *job          // the running command; nil before, and for sessions served in Go
	done    chan struct{} // closed once the session's command has ended and been reported
}

func newSession(s *server, conn *ssh.ServerConn, ch ssh.Channel) *session {
	return &session{srv: s, conn: conn, ch: ch, done: make(chan struct{})}
}

// serve answers the channel's requests until the channel closes; a command still running then
// is hung up, and serve returns once it has ended.
func (ss *session) serve(reqs <-chan *ssh.Request) {
	for req := range reqs {
		ok, then := ss.handle(req)
		if req.WantReply {
			_ = req.Reply(ok, nil)
		}
		if then != nil {
			then()
		}
	}
	ss.mu.Lock()
	started, j := ss.started, ss.job
	ss.mu.Unlock()
	if j != nil {
		j.hangup()
	}
	_ = ss.ch.Close()
	if started {
		<-ss.done
	}
}

// handle carries out one request; then, when not nil, runs after the reply is sent.
func (ss *session) handle(req *ssh.Request) (ok bool, then func()) {
	switch req.Type {
	case "env":
		return ss.setEnv(req.Payload), nil
	case "pty-req":
		return ss.setPTY(req.Payload), nil
	case "window-change":
		return ss.windowChange(req.Payload), nil
	case "signal":
		return ss.signal(req.Payload), nil
	case "shell":
		return ss.start("shell", "")
	case "exec":
		var m execRequest
		if ssh.Unmarshal(req.Payload, &m) != nil {
			return false, nil
		}
		return ss.start("exec", m.Command)
	case "subsystem":
		var m subsystemRequest
		if ssh.Unmarshal(req.Payload, &m) != nil || m.Name != "sftp" {
			return false, nil
		}
		return ss.start("sftp", "")
	default:
		// x11-req, auth-agent-req@openssh.com, keepalives and anything unknown.
		return false, nil
	}
}

// acceptedEnv says whether a client may set a variable: the locale, time zone and terminal,
// as OpenSSH's usual AcceptEnv does; never PATH, LD_* or anything that changes what runs.
// A PTY's TERM comes after these and wins.
func acceptedEnv(name string) bool {
	switch name {
	case "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM":
		return true
	}
	return strings.HasPrefix(name, "LC_") && !strings.ContainsAny(name, "= ")
}

func (ss *session) setEnv(payload []byte) bool {
	var m envRequest
	if ssh.Unmarshal(payload, &m) != nil || !acceptedEnv(m.Name) || strings.ContainsRune(m.Value, 0) {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.started || len(ss.env) >= maxEnv {
		return false
	}
	ss.env = append(ss.env, m.Name+"="+m.Value)
	return true
}

func (ss *session) setPTY(payload []byte) bool {
	var m ptyRequest
	if ssh.Unmarshal(payload, &m) != nil {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.started || ss.pty != nil {
		return false
	}
	ss.pty = &m
	return true
}

func (ss *session) windowChange(payload []byte) bool {
	var m windowChangeRequest
	if ssh.Unmarshal(payload, &m) != nil {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.pty == nil {
		return false
	}
	ss.pty.Cols, ss.pty.Rows, ss.pty.Width, ss.pty.Height = m.Cols, m.Rows, m.Width, m.Height
	if ss.job != nil {
		return ss.job.resize(m.Cols, m.Rows, m.Width, m.Height) == nil
	}
	return true
}

func (ss *session) signal(payload []byte) bool {
	var m signalRequest
	if ssh.Unmarshal(payload, &m) != nil {
		return false
	}
	sig, ok := signalByName[m.Signal]
	ss.mu.Lock()
	j := ss.job
	ss.mu.Unlock()
	if !ok || j == nil {
		return false
	}
	return j.signal(sig) == nil
}

// start begins the session's one command: kind is "shell", "exec" (with command) or "sftp".
// A command sshd serves in Go (scp, sftp) runs after the reply; a process is started before
// it, so that a shell that cannot start is refused.
func (ss *session) start(kind, command string) (bool, func()) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.started {
		return false, nil
	}
	log := ss.srv.log.With("user", ss.conn.User(), "remote", ss.conn.RemoteAddr().String(), "kind", kind, "pty", ss.pty != nil)
	if builtin := ss.builtin(kind, command); builtin != nil {
		ss.started = true
		log.Info("ssh session")
		return true, func() {
			go func() { ss.finish(log, exitResult{code: builtin(ss.ch, ss.ch, ss.ch.Stderr())}) }()
		}
	}
	j, err := ss.startProcess(kind, command)
	if err != nil {
		log.Warn("ssh session failed to start", "err", err)
		return false, nil
	}
	ss.started, ss.job = true, j
	log.Info("ssh session")
	return true, func() {
		go func() { ss.finish(log, j.wait()) }()
	}
}

// builtinFunc is a command served in Go with the channel as its standard streams; it returns
// the exit status. It ends when its input does: the channel closing ends it.
type builtinFunc func(stdin io.Reader, stdout, stderr io.Writer) int

// builtin returns the Go implementation of a command, or nil to run it in the shell.
func (ss *session) builtin(kind, command string) builtinFunc {
	switch kind {
	case "sftp":
		return ss.serveSFTP
	case "exec":
		if req, ok := parseSCPCommand(command); ok {
			return func(stdin io.Reader, stdout, stderr io.Writer) int {
				return runSCP(req, ss.home(), ss.srv.umask, stdin, stdout, stderr)
			}
		}
	}
	return nil
}

// finish reports how the command ended and closes the channel, as OpenSSH does: EOF, then
// exit-status or exit-signal, then close.
func (ss *session) finish(log *slog.Logger, res exitResult) {
	defer close(ss.done)
	_ = ss.ch.CloseWrite()
	if res.signal != "" {
		_, _ = ss.ch.SendRequest("exit-signal", false, ssh.Marshal(exitSignalMsg{Signal: res.signal, CoreDumped: res.core}))
		log.Info("ssh session ended", "signal", res.signal)
	} else {
		_, _ = ss.ch.SendRequest("exit-status", false, ssh.Marshal(exitStatusMsg{Status: uint32(res.code)}))
		log.Info("ssh session ended", "status", res.code)
	}
	_ = ss.ch.Close()
}

// home is the user's home directory: /root for root, /home/USER for anyone else, and / for
// a name that is no file name (CheckPassword may accept any).
func (ss *session) home() string {
	switch u := ss.conn.User(); {
	case u == "root":
		return "/root"
	case u == "" || u == "." || u == ".." || strings.ContainsRune(u, '/'):
		return "/"
	default:
		return "/home/" + u
	}
}

// environ is the command's environment: the configured base, then the login's own
// variables, then the client's accepted ones; with a PTY, TERM and SSH_TTY last.
func (ss *session) environ(ttyName string) []string {
	user := ss.conn.User()
	env := append([]string{}, ss.srv.cfg.Env...)
	env = append(env,
		"USER="+user,
		"LOGNAME="+user,
		"HOME="+ss.home(),
		"SHELL="+ss.srv.cfg.Shell,
		"SSH_CONNECTION="+sshConnection(ss.conn),
	)
	env = append(env, ss.env...)
	if ss.pty != nil {
		term := ss.pty.Term
		if term == "" {
			term = "vt100"
		}
		env = append(env, "TERM="+term, "SSH_TTY="+ttyName)
	}
	return env
}

// sshConnection is OpenSSH's SSH_CONNECTION: client address and port, server address and port.
func sshConnection(conn *ssh.ServerConn) string {
	split := func(a net.Addr) string {
		host, port, err := net.SplitHostPort(a.String())
		if err != nil {
			return a.String()
		}
		return host + " " + port
	}
	return split(conn.RemoteAddr()) + " " + split(conn.LocalAddr())
}

// workDir is where commands start: the home directory when it exists, else /.
func (ss *session) workDir() string {
	if fi, err := os.Stat(ss.home()); err == nil && fi.IsDir() {
		return ss.home()
	}
	return "/"
}

// signalByName maps the RFC 4254 signal names (without "SIG") to signals, both ways.
var signalByName = map[string]syscall.Signal{
	"ABRT": syscall.SIGABRT, "ALRM": syscall.SIGALRM, "FPE": syscall.SIGFPE, "HUP": syscall.SIGHUP,
	"ILL": syscall.SIGILL, "INT": syscall.SIGINT, "KILL": syscall.SIGKILL, "PIPE": syscall.SIGPIPE,
	"QUIT": syscall.SIGQUIT, "SEGV": syscall.SIGSEGV, "TERM": syscall.SIGTERM, "USR1": syscall.SIGUSR1,
	"USR2": syscall.SIGUSR2,
}

// signalName is the RFC 4254 name of sig, or its number for one the RFC does not name.
func signalName(sig syscall.Signal) string {
	for name, s := range signalByName {
		if s == sig {
			return name
		}
	}
	return fmt.Sprintf("%d", int(sig))
}
