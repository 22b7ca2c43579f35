// Package machinestest holds what tests of servers you can log into share, the backend's and the
// provider's acceptance tests alike (tests only): the
// rule that such a test runs as root and fails rather than skips under CI, and a real SSH
// client's login, as a user's script would make it. Package machines' own tests, which it
// cannot import (it imports machines), keep their copies.
package machinestest

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
)

// Require skips a test that needs root and the machine runtime (machines.Check) only where
// that is allowed: under CI (CI set) it fails instead, so machines are never silently untested
// there.
func Require(t testing.TB) {
	t.Helper()
	err := machines.Check(machines.Options{})
	if os.Geteuid() != 0 {
		err = errors.Join(err, errors.New("not root"))
	}
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("--machines sandbox tests must run under CI (run them as root): %v", err)
	}
	t.Skipf("--machines sandbox tests need root and the machine runtime: %v", err)
}

// loginTimeout bounds the TCP connection and the SSH handshake of one login.
const loginTimeout = 5 * time.Second

// SSH logs into host:port as user with password and runs cmd, returning its standard output
// and standard error together (one buffer, written under its lock by both streams).
func SSH(ctx context.Context, host string, port int, user, password, cmd string) (string, error) {
	cfg := &ssh.ClientConfig{
		User:            user,
		Auth:            []ssh.AuthMethod{ssh.Password(password)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), // a test machine's key is new every time
		Timeout:         loginTimeout,
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	conn, err := (&net.Dialer{Timeout: loginTimeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, cfg)
	if err != nil {
		_ = conn.Close()
		return "", err
	}
	client := ssh.NewClient(c, chans, reqs)
	defer client.Close()
	session, err := client.NewSession()
	if err != nil {
		return "", err
	}
	defer session.Close()
	out, err := session.CombinedOutput(cmd)
	return string(out), err
}
