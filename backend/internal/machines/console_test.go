package machines

import (
	"bytes"
	"context"
	"io"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// consoleWait bounds how long a console's shell takes to answer a line typed on it.
const consoleWait = 20 * time.Second

// TestConsoleIsARootShellOnAPTY opens the machine's console, a root shell on a PTY over the
// control channel (no network, no password), runs hostname on it and resizes it. Closing it
// hangs its shell up.
func TestConsoleIsARootShellOnAPTY(t *testing.T) {
	m := newManager(t, "198.18.236.0/24")
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.236.10")
	spec := Spec{Ref: "vm-console", Hostname: "console-1", Template: "debian-12", IPv4: ip, Username: "root", Password: "first-pass"}
	if err := m.Create(ctx, spec, ""); err != nil {
		t.Fatal(err)
	}

	term, err := m.Console(ctx, spec.Ref, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	out := &screen{}
	go func() { _, _ = io.Copy(out, term) }()
	if _, err := term.Write([]byte("echo \"[$(hostname)]\" $(id -u)\n")); err != nil {
		t.Fatal(err)
	}
	if !out.waitFor("[console-1] 0", consoleWait) {
		t.Fatalf("the console never showed the hostname and root's uid; it shows:\n%s", out.String())
	}
	if err := term.Resize(100, 30); err != nil {
		t.Fatalf("resize: %v", err)
	}
	if _, err := term.Write([]byte("stty size\n")); err != nil {
		t.Fatal(err)
	}
	if !out.waitFor("30 100", consoleWait) {
		t.Fatalf("stty size after a resize to 100x30; the console shows:\n%s", out.String())
	}
	if err := term.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := term.Write([]byte("true\n")); err == nil {
		t.Fatal("the console takes input after Close")
	}
}

// TestConsoleOfAStoppedMachineFails: a machine that is off has no console.
func TestConsoleOfAStoppedMachineFails(t *testing.T) {
	m := newManager(t, "198.18.236.0/24")
	ctx := context.Background()
	spec := Spec{Ref: "vm-off", Hostname: "off-1", Template: "debian-12", IPv4: netip.MustParseAddr("198.18.236.11"), Username: "root", Password: "first-pass"}
	if err := m.Create(ctx, spec, ""); err != nil {
		t.Fatal(err)
	}
	if err := m.Stop(ctx, spec.Ref); err != nil {
		t.Fatal(err)
	}
	if term, err := m.Console(ctx, spec.Ref, 80, 24); err == nil {
		_ = term.Close()
		t.Fatal("a stopped machine opened a console")
	}
}

// screen collects a terminal's output for waitFor.
type screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return len(p), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the output holds want, at most within.
func (s *screen) waitFor(want string, within time.Duration) bool {
	deadline := time.After(within)
	for {
		s.mu.Lock()
		if strings.Contains(s.buf.String(), want) {
			s.mu.Unlock()
			return true
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			return false
		}
	}
}
