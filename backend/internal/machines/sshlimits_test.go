package machines

import (
	"context"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

// TestSSHRefusalIsLoggedOnTheHost: ten wrong passwords from the host's address refuse it, the
// right password too, and the refusal reaches the host's log once, naming the machine.
func TestSSHRefusalIsLoggedOnTheHost(t *testing.T) {
	requireRoot(t)
	if err := Check(Options{}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var log testbuf.Buffer
	m, err := New(ctx, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.234.0/24"), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	ip := netip.MustParseAddr("198.18.234.10")
	if err := m.Create(ctx, Spec{Ref: "vm-1", Hostname: "one", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 11 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = sshRun(ip, "wrong", "true")
		}()
	}
	wg.Wait()
	if out, err := sshRun(ip, "pw", "true"); err == nil {
		t.Fatalf("the right password logged in after 11 wrong ones from the same address (%q), want refused", out)
	}
	waitFor(t, "the host to log the refusal", func() bool { return strings.Contains(log.String(), "ssh address refused") })
	lines := 0
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.Contains(line, "ssh address refused") {
			lines++
			if !strings.Contains(line, "ref=vm-1") {
				t.Errorf("the refusal's log line does not name the machine: %s", line)
			}
		}
	}
	if lines != 1 {
		t.Errorf("the refusal was logged %d times on the host, want once:\n%s", lines, log.String())
	}
}
