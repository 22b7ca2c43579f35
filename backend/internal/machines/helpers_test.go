package machines

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
	"golang.org/x/crypto/ssh"
)

// eventWait bounds a test's wait for something to happen. It only keeps a broken test from
// hanging: a loaded CI host is many times slower than an idle one, and the tests assert no
// speed.
const eventWait = time.Minute

// bootWait bounds a wait that takes a machine's boot.
const bootWait = 2 * time.Minute

// requireRoot skips a test that needs root only where that is allowed: not root and not CI.
// Under CI (CI set) a test without root fails, so machines are never silently untested there.
func requireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("machines tests need root; CI is set, so they must run (run them as root)")
	}
	t.Skip("machines tests need root (they create namespaces, a bridge and iptables rules); skipped as not root and CI is unset")
}

// newManager starts a Manager on cidr in a temporary directory, closed at the test's end.
func newManager(t testing.TB, cidr string) *Manager {
	t.Helper()
	requireRoot(t)
	if err := Check(Options{}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, err := New(ctx, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix(cidr), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// sshRun logs into addr:22 as root with password and runs cmd, returning its output.
func sshRun(addr netip.Addr, password, cmd string) (string, error) {
	cfg := &ssh.ClientConfig{
		User:            "root",
		Auth:            []ssh.AuthMethod{ssh.Password(password)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(),
		Timeout:         3 * time.Second,
	}
	c, err := ssh.Dial("tcp", net.JoinHostPort(addr.String(), "22"), cfg)
	if err != nil {
		return "", err
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var out testbuf.Buffer
	s.Stdout, s.Stderr = &out, &out
	err = s.Run(cmd)
	return out.String(), err
}

// mustSSH is sshRun that fails the test on an error.
func mustSSH(t testing.TB, addr netip.Addr, password, cmd string) string {
	t.Helper()
	out, err := sshRun(addr, password, cmd)
	if err != nil {
		t.Fatalf("ssh %s %q: %v (output %q)", addr, cmd, err, out)
	}
	return out
}

// isAuthError says whether err is SSH refusing the credentials (as opposed to no answer).
func isAuthError(err error) bool {
	var se *ssh.ServerAuthError
	if errors.As(err, &se) {
		return true
	}
	return err != nil && bytes.Contains([]byte(err.Error()), []byte("unable to authenticate"))
}
