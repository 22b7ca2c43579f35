package sshd

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// dialFrom logs in to ts with password from the local address local (every 127.x.y.z is the
// loopback's, so a test has as many source addresses as it wants).
func (ts *testServer) dialFrom(t *testing.T, local, password string) (*ssh.Client, error) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
	conn, err := d.Dial("tcp", ts.addr)
	if err != nil {
		return nil, err
	}
	sc, chans, reqs, err := ssh.NewClientConn(conn, ts.addr, &ssh.ClientConfig{
		User:            testUser,
		Auth:            []ssh.AuthMethod{ssh.Password(password)},
		HostKeyCallback: ssh.FixedHostKey(ts.hostKey),
		Timeout:         5 * time.Second,
	})
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return ssh.NewClient(sc, chans, reqs), nil
}

// TestFailedPasswordsRefuseTheAddress: 11 wrong passwords from one address refuse its next
// login, the right password too, while another address still logs in.
func TestFailedPasswordsRefuseTheAddress(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	var wg sync.WaitGroup
	for range maxFailedPasswords + 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c, err := ts.dialFrom(t, "127.0.0.1", "wrong"); err == nil {
				_ = c.Close()
				t.Error("a wrong password logged in")
			}
		}()
	}
	wg.Wait()
	if c, err := ts.dialFrom(t, "127.0.0.1", testPassword); err == nil {
		_ = c.Close()
		t.Fatalf("the right password logged in from an address with %d failed passwords, want refused", maxFailedPasswords+1)
	}
	c, err := ts.dialFrom(t, "127.0.0.2", testPassword)
	if err != nil {
		t.Fatalf("login from another address: %v, want it to go on", err)
	}
	_ = c.Close()
}

// TestConnectionsPerAddressAreBounded: an address's 65th connection open at once is closed
// before the server says anything, while the first 64 and another address's are served.
func TestConnectionsPerAddressAreBounded(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	for i := range maxConnsPerAddr {
		if banner := rawBanner(t, "127.0.0.1", ts.addr); !strings.HasPrefix(banner, serverVersion) {
			t.Fatalf("connection %d got %q, want the server's version", i+1, banner)
		}
	}
	if banner := rawBanner(t, "127.0.0.1", ts.addr); banner != "" {
		t.Errorf("connection %d got %q, want it closed at once", maxConnsPerAddr+1, banner)
	}
	if banner := rawBanner(t, "127.0.0.2", ts.addr); !strings.HasPrefix(banner, serverVersion) {
		t.Errorf("another address got %q, want the server's version", banner)
	}
}

// rawBanner opens a TCP connection from local to addr, kept open until the test ends, and
// returns the first line the server sends ("" when it closes without one).
func rawBanner(t *testing.T, local, addr string) string {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", local, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetReadDeadline(time.Now().Add(eventWait))
	line, _ := bufio.NewReader(conn).ReadString('\n')
	return line
}

// TestAddrLimitsWindowAndRefusal walks one address through the limiter on a clock of the test's:
// failures spread over more than a minute refuse nothing, ten within one do, for one minute,
// which is reported once.
func TestAddrLimitsWindowAndRefusal(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newAddrLimits(func() time.Time { return now })
	const a = "198.18.0.9"
	for range maxFailedPasswords - 1 {
		if l.failed(a) {
			t.Fatal("refused before its tenth failure")
		}
	}
	now = now.Add(failWindow)
	if l.failed(a) || l.refused(a) {
		t.Fatal("failures a minute apart refused the address")
	}
	for i := range maxFailedPasswords - 1 {
		if started := l.failed(a); started != (i == maxFailedPasswords-2) {
			t.Fatalf("failure %d of the window: refusal started %v", i+2, started)
		}
	}
	if !l.refused(a) || l.open(a) == "" {
		t.Fatal("ten failures within a minute: the address is not refused")
	}
	if l.failed(a) {
		t.Error("a failure during the refusal reported the refusal again")
	}
	if l.refused("198.18.0.10") {
		t.Error("another address is refused")
	}
	now = now.Add(refuseFor)
	if l.refused(a) || l.open(a) != "" {
		t.Error("the address is still refused after a minute")
	}
}

// TestAddrLimitsSweep: the table forgets addresses with nothing left to count.
func TestAddrLimitsSweep(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newAddrLimits(func() time.Time { return now })
	for i := range sweepAbove + 1 {
		a := net.IPv4(10, 0, byte(i>>8), byte(i)).String()
		l.open(a)
		l.close(a)
	}
	now = now.Add(failWindow)
	l.open("10.1.0.1")
	if len(l.addrs) != 1 {
		t.Errorf("%d addresses tracked after the sweep, want 1", len(l.addrs))
	}
}
