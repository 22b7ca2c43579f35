package agent

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/sshd"
)

// The machine's console is SSH served by package sshd on connections the host hands the agent
// over the control channel (OpConsole with a socketpair's end as SCM_RIGHTS), never on a
// network: it works when the machine's network, firewall or port 22 is broken, as a
// provider's VNC console does. Only the host holds the other end of such a connection, so
// holding it is the authentication: root logs in with any password (the customer proved the
// console's own password to resellerd before the host opened one). Sessions are sshd's: a
// shell on a PTY, window changes, hang-up when the host closes the connection.

// serveConsoles serves SSH on the connections consoles (a consoleListener, counted) yields
// until ctx ends.
func serveConsoles(ctx context.Context, consoles net.Listener, key ssh.Signer, log *slog.Logger) error {
	return sshd.Serve(ctx, consoles, sshd.Config{
		HostKey:       key,
		CheckPassword: func(user, _ string) bool { return user == "root" },
		Shell:         "/bin/sh",
		Env:           UserEnv,
		Logger:        log,
	})
}

// openConsole takes the connection that came with an OpConsole line and queues it for
// serveConsoles; a line without one is reported to the host's log.
func (a *agentState) openConsole(fds *fdReader, consoles *consoleListener) {
	fd, ok := fds.next()
	if !ok {
		a.send(Message{Op: OpLog, Error: "console: the request carried no connection"})
		return
	}
	f := os.NewFile(uintptr(fd), "console")
	c, err := net.FileConn(f)
	_ = f.Close()
	if err != nil {
		a.send(Message{Op: OpLog, Error: "console: " + err.Error()})
		return
	}
	if !consoles.push(consoleConn{Conn: c}) {
		_ = c.Close()
	}
}

// maxPassedFDs bounds the descriptors one read of the control channel takes: the host passes
// one per OpConsole line, and the kernel ends a read at a message that carries descriptors.
const maxPassedFDs = 4

// fdReader reads the control channel with recvmsg, keeping the descriptors passed with the
// lines, in order, for the OpConsole lines they came with (a plain read would close them).
type fdReader struct {
	conn *net.UnixConn

	mu  sync.Mutex
	fds []int
}

func (r *fdReader) Read(p []byte) (int, error) {
	oob := make([]byte, unix.CmsgSpace(maxPassedFDs*4))
	n, oobn, _, _, err := r.conn.ReadMsgUnix(p, oob)
	if oobn > 0 {
		r.keep(oob[:oobn])
	}
	if n == 0 && oobn == 0 && err == nil && len(p) > 0 {
		return 0, io.EOF // recvmsg's end of stream, which Read would have called EOF
	}
	return n, err
}

// keep queues the descriptors of the control messages in oob.
func (r *fdReader) keep(oob []byte) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range msgs {
		if fds, err := unix.ParseUnixRights(&m); err == nil {
			for _, fd := range fds {
				unix.CloseOnExec(fd) // nothing a user starts may inherit it
				r.fds = append(r.fds, fd)
			}
		}
	}
}

// next is the oldest descriptor not taken yet.
func (r *fdReader) next() (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.fds) == 0 {
		return -1, false
	}
	fd := r.fds[0]
	r.fds = r.fds[1:]
	return fd, true
}

// consoleAddr names both ends of a console connection, which a socketpair leaves unnamed: sshd's
// per-address limits and logs need an address.
type consoleAddr struct{}

func (consoleAddr) Network() string { return "console" }
func (consoleAddr) String() string  { return "console" }

// consoleConn is a console connection with consoleAddr for its addresses.
type consoleConn struct{ net.Conn }

func (consoleConn) LocalAddr() net.Addr  { return consoleAddr{} }
func (consoleConn) RemoteAddr() net.Addr { return consoleAddr{} }

// consoleListener is a net.Listener whose connections are the ones the host passed.
type consoleListener struct {
	conns  chan net.Conn
	once   sync.Once
	closed chan struct{}
}

// consoleBacklog bounds the passed connections waiting for sshd's Accept.
const consoleBacklog = 8

func newConsoleListener() *consoleListener {
	return &consoleListener{conns: make(chan net.Conn, consoleBacklog), closed: make(chan struct{})}
}

// push queues c for Accept; false when the listener is closed or its backlog full.
func (l *consoleListener) push(c net.Conn) bool {
	select {
	case <-l.closed:
		return false
	default:
	}
	select {
	case l.conns <- c:
		return true
	default:
		return false
	}
}

func (l *consoleListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *consoleListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *consoleListener) Addr() net.Addr { return consoleAddr{} }
