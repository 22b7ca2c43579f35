package agent

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/sshd"
)

// serveSSH serves SSH on ln with package sshd until ctx ends: root's password checked by check,
// sessions run by /bin/sh with UserEnv. What users run needs no confining here: it descends
// from the agent, whose capability sets and seccomp filter init has already set (see package
// machineinit's confine).
func serveSSH(ctx context.Context, ln net.Listener, key ssh.Signer, check func(user, password string) bool, log *slog.Logger) error {
	return sshd.Serve(ctx, ln, sshd.Config{
		HostKey:       key,
		CheckPassword: check,
		Shell:         "/bin/sh",
		Env:           UserEnv,
		Logger:        log,
	})
}

// logger is sshd's logger in the agent: its warnings (an address refused after failed
// passwords, a session that could not start) go to the host's log as OpLog lines, at most
// opLogPerMinute a minute; the rest, one line per login, stays out of it.
func (a *agentState) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(&opLogWriter{a: a, now: time.Now}, &slog.HandlerOptions{
		Level: slog.LevelWarn,
		ReplaceAttr: func(_ []string, attr slog.Attr) slog.Attr {
			if attr.Key == slog.TimeKey { // the host's log dates the line
				return slog.Attr{}
			}
			return attr
		},
	}))
}

// opLogPerMinute bounds the lines the agent sends to the host's log: what a machine's users do
// (sessions failing to start, over and over) must not flood it.
const opLogPerMinute = 20

// opLogWriter sends each line written to it to the host as an OpLog, within opLogPerMinute;
// the lines over it are dropped.
type opLogWriter struct {
	a   *agentState
	now func() time.Time

	mu          sync.Mutex
	windowStart time.Time
	sent        int
}

func (w *opLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	now := w.now()
	if now.Sub(w.windowStart) >= time.Minute {
		w.windowStart, w.sent = now, 0
	}
	w.sent++
	over := w.sent > opLogPerMinute
	w.mu.Unlock()
	if !over {
		w.a.send(Message{Op: OpLog, Error: strings.TrimSpace(string(p))})
	}
	return len(p), nil
}

// newHostKey makes a host key and its PEM for the disk.
func newHostKey() (ssh.Signer, []byte, error) { return sshd.NewHostKey() }
