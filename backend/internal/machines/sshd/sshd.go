// Package sshd is the SSH server a sandbox machine's agent serves on port 22: password login,
// shell, exec and PTY sessions, the file copies clients make, and local port forwarding
// (direct-tcpip: `ssh -L`, `ssh -J`; forward.go). Terraform's `file` and
// `remote-exec` provisioners copy with the legacy scp protocol (`scp -vt DIR`), and modern
// OpenSSH scp and Ansible use the sftp subsystem; both are served here in Go, so a machine
// needs neither an scp nor an sftp-server binary (busybox has neither).
//
// One source address gets at most 64 connections at once, and 10 failed passwords within a
// minute refuse it for a minute (limits.go).
//
// It is built on golang.org/x/crypto/ssh with PTYs from github.com/creack/pty, after the
// model of gliderlabs/ssh: one goroutine per connection, one per session.
package sshd

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// Config is what Serve needs. HostKey, CheckPassword and Shell are required.
type Config struct {
	// HostKey identifies the server. The caller persists it so that a machine keeps its key
	// across boots and clients' known_hosts stay valid.
	HostKey ssh.Signer
	// CheckPassword is the only way in: the "password" method, and "keyboard-interactive"
	// asking for the password (clients that only offer it); no public keys, no "none".
	// Comparing in constant time is its job; sshd delays every refusal, bounds the tries per
	// connection, and refuses for a minute an address that failed 10 times in a minute (it
	// also keeps an address to 64 connections at once: see limits.go).
	CheckPassword func(user, password string) bool
	// Shell runs sessions: `Shell` as a login shell for "shell", `Shell -c CMD` for "exec".
	Shell string
	// Env is the base environment of every command (PATH, ...); sshd adds USER, LOGNAME,
	// HOME (/root for root, /home/USER otherwise), SHELL, SSH_CONNECTION, the client's
	// accepted variables (LANG, LANGUAGE, LC_*, TZ, TERM, COLORTERM), and with a PTY its TERM
	// and SSH_TTY.
	Env []string
	// SysProcAttr, when set, is called for every command and its result applied (the agent
	// drops capabilities here); sshd sets Setsid, and Setctty with a PTY, on a copy. The
	// copies served in Go (scp, sftp) run in the caller's own process, with its privileges.
	SysProcAttr func() *syscall.SysProcAttr
	// Logger receives connection and session events (never passwords nor command lines,
	// which may carry secrets). Nil discards them.
	Logger *slog.Logger
}

const (
	// maxAuthTries bounds the authentication attempts of one connection (OpenSSH's default).
	maxAuthTries = 6
	// failedAuthDelay slows down password guessing; a refused attempt answers no sooner.
	failedAuthDelay = 300 * time.Millisecond
	// handshakeTimeout drops connections that do not finish the handshake and login in time
	// (OpenSSH's LoginGraceTime: long enough for a person typing the password).
	handshakeTimeout = 2 * time.Minute
	// acceptBackoffMax caps the wait before accepting again after a transient failure.
	acceptBackoffMax = time.Second
	// maxSessions bounds the sessions open at once on one connection (OpenSSH's MaxSessions).
	maxSessions = 10
	// serverVersion is the identification string sent to clients.
	serverVersion = "SSH-2.0-resellerd"
)

// Serve accepts SSH connections on ln until ctx ends or ln fails. On return ln is closed,
// every connection is closed, and the commands they ran have been ended and reaped. It returns
// nil when ctx ended, the accept error otherwise, or an error naming the missing Config field.
func Serve(ctx context.Context, ln net.Listener, cfg Config) error {
	s, err := newServer(cfg)
	if err != nil {
		_ = ln.Close()
		return err
	}
	return s.serve(ctx, ln)
}

// NewHostKey makes a new ed25519 host key, returning it as a signer and as PEM (OpenSSH
// private key format, unencrypted) for the caller to persist; ssh.ParsePrivateKey reads it back.
func NewHostKey() (ssh.Signer, []byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("sshd: generate host key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		return nil, nil, fmt.Errorf("sshd: encode host key: %w", err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, nil, fmt.Errorf("sshd: host key signer: %w", err)
	}
	return signer, pem.EncodeToMemory(block), nil
}

// server is one Serve call: its configuration and the connections it has open.
type server struct {
	cfg       Config
	log       *slog.Logger
	sshConfig *ssh.ServerConfig
	umask     uint32
	limits    *addrLimits

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

func newServer(cfg Config) (*server, error) {
	switch {
	case cfg.HostKey == nil:
		return nil, errors.New("sshd: Config.HostKey is required")
	case cfg.CheckPassword == nil:
		return nil, errors.New("sshd: Config.CheckPassword is required")
	case cfg.Shell == "":
		return nil, errors.New("sshd: Config.Shell is required")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{
		cfg:    cfg,
		log:    log,
		umask:  processUmask(),
		limits: newAddrLimits(time.Now),
		conns:  map[net.Conn]struct{}{},
	}
	s.sshConfig = &ssh.ServerConfig{
		Config:                      ssh.Config{Ciphers: offeredCiphers(aesHardware)},
		MaxAuthTries:                maxAuthTries,
		PasswordCallback:            s.checkPassword,
		KeyboardInteractiveCallback: s.askPassword,
		ServerVersion:               serverVersion,
	}
	s.sshConfig.AddHostKey(cfg.HostKey)
	return s, nil
}

// checkPassword asks the caller's CheckPassword and delays a refusal. An address refused for
// its failed passwords (addrLimits) has every attempt refused, the right password too.
func (s *server) checkPassword(meta ssh.ConnMetadata, password []byte) (*ssh.Permissions, error) {
	src := sourceOf(meta.RemoteAddr())
	if !s.limits.refused(src) && s.cfg.CheckPassword(meta.User(), string(password)) {
		return &ssh.Permissions{}, nil
	}
	s.log.Info("ssh login refused", "user", meta.User(), "remote", meta.RemoteAddr().String())
	if s.limits.failed(src) {
		s.log.Warn("ssh address refused after failed passwords", "remote", src,
			"failures", maxFailedPasswords, "within", failWindow, "for", refuseFor)
	}
	time.Sleep(failedAuthDelay)
	return nil, errors.New("password refused")
}

// askPassword is keyboard-interactive login: one prompt for the password, without echo.
func (s *server) askPassword(meta ssh.ConnMetadata, client ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
	answers, err := client(meta.User(), "", []string{"Password: "}, []bool{false})
	if err != nil {
		return nil, err
	}
	if len(answers) != 1 {
		return nil, errors.New("one answer expected")
	}
	return s.checkPassword(meta, []byte(answers[0]))
}

func (s *server) serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	var err error
	backoff := time.Duration(0)
	for {
		c, aerr := ln.Accept()
		if aerr != nil && ctx.Err() == nil && transientAcceptError(aerr) {
			backoff = min(max(2*backoff, 5*time.Millisecond), acceptBackoffMax)
			s.log.Warn("ssh accept failed; retrying", "err", aerr, "in", backoff)
			select {
			case <-time.After(backoff):
				continue
			case <-ctx.Done():
			}
		}
		if aerr != nil {
			if ctx.Err() == nil {
				err = fmt.Errorf("sshd: accept: %w", aerr)
			}
			break
		}
		backoff = 0
		src := sourceOf(c.RemoteAddr())
		if why := s.limits.open(src); why != "" {
			s.log.Debug("ssh connection closed at once", "remote", src, "reason", why)
			_ = c.Close()
			continue
		}
		if !s.track(c) {
			_ = c.Close()
			break
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.limits.close(src)
			defer s.untrack(c)
			s.serveConn(c)
		}()
	}
	_ = ln.Close()
	s.closeAll()
	s.wg.Wait()
	return err
}

// transientAcceptError says whether an accept failure may pass (out of descriptors or
// memory, a connection reset before it was accepted), so that serving goes on.
func transientAcceptError(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.EINTR} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// track records an open connection; false once the server is closing.
func (s *server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *server) untrack(c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}

// closeAll closes every open connection; their sessions then end their commands.
func (s *server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.conns {
		_ = c.Close()
	}
}

// serveConn runs one connection: the handshake and login, then its channels until it closes.
func (s *server) serveConn(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(handshakeTimeout))
	sc, chans, reqs, err := ssh.NewServerConn(c, s.sshConfig)
	if err != nil {
		_ = c.Close()
		s.log.Debug("ssh handshake failed", "remote", c.RemoteAddr().String(), "err", err)
		return
	}
	_ = c.SetDeadline(time.Time{})
	defer sc.Close()
	s.log.Info("ssh login", "user", sc.User(), "remote", sc.RemoteAddr().String())

	// Global requests (keepalives, tcpip-forward: no remote forwarding) are all answered false.
	go ssh.DiscardRequests(reqs)

	var sessions sync.WaitGroup
	defer sessions.Wait()
	// gone is closed when the connection ends (chans closes), before sessions are waited for:
	// a forward then closes its target, whose copy would otherwise wait on a silent peer.
	gone := make(chan struct{})
	defer close(gone)
	slots := make(chan struct{}, maxSessions) // a token per open session
	forwards := make(chan struct{}, maxForwards)
	for nc := range chans {
		switch nc.ChannelType() {
		case "session":
			select {
			case slots <- struct{}{}:
			default:
				_ = nc.Reject(ssh.ResourceShortage, "too many sessions")
				continue
			}
			ch, creqs, err := nc.Accept()
			if err != nil {
				<-slots
				continue
			}
			sessions.Add(1)
			go func() {
				defer sessions.Done()
				defer func() { <-slots }()
				newSession(s, sc, ch).serve(creqs)
			}()
		case "direct-tcpip":
			select {
			case forwards <- struct{}{}:
			default:
				_ = nc.Reject(ssh.ResourceShortage, "too many forwarded connections")
				continue
			}
			sessions.Add(1)
			go func() {
				defer sessions.Done()
				defer func() { <-forwards }()
				s.forward(nc, gone)
			}()
		case "direct-streamlocal@openssh.com":
			_ = nc.Reject(ssh.Prohibited, "unix socket forwarding is disabled")
		default:
			_ = nc.Reject(ssh.UnknownChannelType, "unsupported channel type")
		}
	}
}
