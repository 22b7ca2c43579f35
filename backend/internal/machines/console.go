package machines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/agent"
)

// consoleOpenTimeout bounds opening a console: handing the agent its connection, the SSH
// handshake on it, and starting the shell.
const consoleOpenTimeout = 10 * time.Second

// consoleTerm is the terminal type a console's shell is told: what xterm.js emulates.
const consoleTerm = "xterm-256color"

// Terminal is a root shell on a PTY inside a machine, reached over its control channel (see
// package agent's console.go), not its network: it works when the machine's network or SSH is
// broken. Read is what the shell writes to its terminal, Write what is typed. Close hangs the
// shell up.
type Terminal struct {
	client  *ssh.Client
	session *ssh.Session
	stdin   io.WriteCloser
	stdout  io.Reader
}

// Console opens a root shell on a PTY of cols by rows in the running machine ref.
func (m *Manager) Console(ctx context.Context, ref string, cols, rows int) (*Terminal, error) {
	mc, err := m.existing(ref)
	if err != nil {
		return nil, err
	}
	run := mc.run
	mc.mu.Unlock() // a console open for minutes must not hold the machine's other calls back
	if !run.alive() {
		return nil, fmt.Errorf("machine %s is not running", ref)
	}
	ctx, cancel := context.WithTimeout(ctx, consoleOpenTimeout)
	defer cancel()
	conn, err := run.ctl.console()
	if err != nil {
		return nil, fmt.Errorf("machine %s: console: %w", ref, err)
	}
	t, err := startTerminal(ctx, conn, cols, rows)
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("machine %s: console: %w", ref, err)
	}
	return t, nil
}

// console hands the agent one end of a new socketpair with an OpConsole line and returns the
// other end, on which the agent serves SSH.
func (c *control) console() (net.Conn, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	hostEnd, agentEnd := os.NewFile(uintptr(fds[0]), "console"), os.NewFile(uintptr(fds[1]), "console")
	defer agentEnd.Close() // the agent has its own copy once the line is sent
	if err := c.sendFD(agent.Message{Op: agent.OpConsole}, int(agentEnd.Fd())); err != nil {
		hostEnd.Close()
		return nil, err
	}
	conn, err := net.FileConn(hostEnd)
	hostEnd.Close()
	return conn, err
}

// sendFD sends msg with fd attached (SCM_RIGHTS), as one write, so that the descriptor arrives
// with its own line.
func (c *control) sendFD(msg agent.Message, fd int) error {
	uc, ok := c.conn.(*net.UnixConn)
	if !ok {
		return errors.New("the control channel cannot pass descriptors")
	}
	line, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	c.encMu.Lock()
	defer c.encMu.Unlock()
	_ = uc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	n, _, err := uc.WriteMsgUnix(line, unix.UnixRights(fd), nil)
	if err == nil && n < len(line) { // the rest of the line, without the descriptor again
		_, err = uc.Write(line[n:])
	}
	return err
}

// startTerminal logs in on conn (any password: holding the connection is the authentication)
// and starts a login shell on a PTY, within ctx.
func startTerminal(ctx context.Context, conn net.Conn, cols, rows int) (*Terminal, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	sc, chans, reqs, err := ssh.NewClientConn(conn, "console", &ssh.ClientConfig{
		User: "root",
		Auth: []ssh.AuthMethod{ssh.Password("console")},
		// The connection is a socketpair to this machine's agent, which nobody else holds:
		// there is no network peer whose key could be checked.
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), //nolint:gosec // see above
	})
	if err != nil {
		return nil, err
	}
	client := ssh.NewClient(sc, chans, reqs)
	t, err := startShell(client, cols, rows)
	if err != nil {
		_ = client.Close()
		return nil, err
	}
	if !stop() || ctx.Err() != nil {
		_ = t.Close()
		return nil, ctx.Err()
	}
	_ = conn.SetDeadline(time.Time{})
	return t, nil
}

// startShell opens a session on client with a PTY and a login shell in it.
func startShell(client *ssh.Client, cols, rows int) (*Terminal, error) {
	session, err := client.NewSession()
	if err != nil {
		return nil, err
	}
	stdin, err := session.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := session.StdoutPipe()
	if err != nil {
		return nil, err
	}
	modes := ssh.TerminalModes{ssh.ECHO: 1, ssh.TTY_OP_ISPEED: 38400, ssh.TTY_OP_OSPEED: 38400}
	if err := session.RequestPty(consoleTerm, rows, cols, modes); err != nil {
		return nil, fmt.Errorf("pty: %w", err)
	}
	if err := session.Shell(); err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	return &Terminal{client: client, session: session, stdin: stdin, stdout: stdout}, nil
}

// Read reads what the shell wrote to its terminal; io.EOF once it has exited.
func (t *Terminal) Read(p []byte) (int, error) { return t.stdout.Read(p) }

// Write types p on the terminal.
func (t *Terminal) Write(p []byte) (int, error) { return t.stdin.Write(p) }

// Resize tells the shell its terminal is now cols by rows.
func (t *Terminal) Resize(cols, rows int) error { return t.session.WindowChange(rows, cols) }

// Close hangs the shell up and closes the connection to the agent.
func (t *Terminal) Close() error {
	_ = t.session.Close()
	return t.client.Close()
}
