package agent

import (
	"context"
	"net"

	"golang.org/x/crypto/ssh"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/sshd"
)

// serveSSH serves SSH on ln with package sshd until ctx ends: root's password checked by check,
// sessions run by /bin/sh with UserEnv. What users run needs no confining here: it descends
// from the agent, whose capability sets and seccomp filter init has already set (see package
// machineinit's confine).
func serveSSH(ctx context.Context, ln net.Listener, key ssh.Signer, check func(user, password string) bool) error {
	return sshd.Serve(ctx, ln, sshd.Config{
		HostKey:       key,
		CheckPassword: check,
		Shell:         "/bin/sh",
		Env:           UserEnv,
	})
}

// newHostKey makes a host key and its PEM for the disk.
func newHostKey() (ssh.Signer, []byte, error) { return sshd.NewHostKey() }
