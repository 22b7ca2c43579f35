package machines

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// stallCase is a way a tenant, from inside their machine, makes the calls into it hang or the
// machine die under the API's feet.
type stallCase struct {
	name string
	// stall does it inside the machine ref through the Manager, returning when it is done.
	stall func(t *testing.T, m *Manager, ref string)
	// call is the call into the stalled machine that must fail within its deadline (nil:
	// none, the machine is gone at once).
	call func(ctx context.Context, m *Manager, ref string) error
	// revived is the reason the machine is booted again with (Options.Revived); "" for a
	// machine that stays up.
	revived string
}

// stallCases are the reproductions of issue 40's points 2 and 8: a script that never ends
// (sleep, a FIFO with no writer) fails at its caller's deadline; a stopped agent fails a
// password change within its deadline (it used to be written into the socket's buffer and
// reported done) and is booted again; an agent killed from inside is booted again (the machine
// used to stay dead while the API said online).
var stallCases = []stallCase{
	{name: "install script that sleeps", stall: func(*testing.T, *Manager, string) {},
		call: runStuck("sleep 100000")},
	{name: "script reading a FIFO nobody writes", stall: func(*testing.T, *Manager, string) {},
		call: runStuck("mkfifo /tmp/fifo && cat /tmp/fifo")},
	{name: "agent stopped (kill -STOP)", stall: stopAgent,
		call: func(ctx context.Context, m *Manager, ref string) error {
			return m.SetPassword(ctx, ref, "new-pw") // its own deadline: passwordTimeout
		}, revived: ReasonUnresponsive},
	{name: "agent killed (kill -9)", stall: func(t *testing.T, m *Manager, ref string) {
		if _, _, err := m.Run(context.Background(), ref, "kill -9 $PPID", nil); err == nil {
			t.Fatal("the run that killed its agent answered")
		}
	}, revived: ReasonExited},
}

// runStuck is a call running script with a deadline, as an app install runs with its bound.
func runStuck(script string) func(ctx context.Context, m *Manager, ref string) error {
	return func(ctx context.Context, m *Manager, ref string) error {
		ctx, cancel := context.WithTimeout(ctx, 4*time.Second)
		defer cancel()
		_, _, err := m.Run(ctx, ref, script, nil)
		return err
	}
}

// stopAgent stops the machine's agent from inside: the script's parent is the agent, which
// then never answers the run, so the run is cut by its own short deadline.
func stopAgent(t *testing.T, m *Manager, ref string) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, _, err := m.Run(ctx, ref, "kill -STOP $PPID", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the run that stopped its agent: %v, want its deadline exceeded", err)
	}
}

// stuckMachineDelaysOnlyItself: for each way of stalling a machine, the call into it
// fails at its deadline while another machine of the same Manager answers its calls, and a
// machine whose agent died or stopped answering is booted again (told to Options.Revived) and
// takes SSH logins again with its password.
func stuckMachineDelaysOnlyItself(t *testing.T) {
	requireRoot(t)
	revived := &revivals{}
	m := newManagerAt(t, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.141.0/24"), Logger: testLogger(t),
		Revived: revived.add})
	ctx := context.Background()
	other := netip.MustParseAddr("198.18.141.2")
	if err := m.Create(ctx, Spec{Ref: "vm-other", Hostname: "other", Template: "t", IPv4: other, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	for i, tc := range stallCases {
		t.Run(tc.name, func(t *testing.T) {
			ref, ip := "vm-stall"+string(rune('a'+i)), netip.AddrFrom4([4]byte{198, 18, 141, byte(10 + i)})
			if err := m.Create(ctx, Spec{Ref: ref, Hostname: "stall", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
				t.Fatal(err)
			}
			tc.stall(t, m, ref)
			stuck := make(chan error, 1)
			if tc.call != nil {
				go func() { stuck <- tc.call(ctx, m, ref) }()
			}
			// The other machine answers while the stalled one's call still hangs.
			if out, _, err := m.Run(ctx, "vm-other", "echo ok", nil); err != nil || out != "ok\n" {
				t.Fatalf("the other machine's run: %q, %v", out, err)
			}
			if err := m.SetPassword(ctx, "vm-other", "pw"); err != nil {
				t.Fatalf("the other machine's password: %v", err)
			}
			mustSSH(t, other, "pw", "true")
			if tc.call != nil {
				select {
				case err := <-stuck:
					t.Fatalf("the stalled machine's call ended (%v) before the other machine's calls did", err)
				default:
				}
				if err := <-stuck; !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("the stalled machine's call: %v, want its deadline exceeded", err)
				}
			}
			if tc.revived == "" {
				return
			}
			waitRevived(t, revived, ref, tc.revived)
			waitSSH(t, ip, "pw")
		})
	}
}

// revivals records Options.Revived's calls.
type revivals struct {
	mu   sync.Mutex
	seen []string // "ref reason error"
}

func (r *revivals) add(ref, reason string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := "<nil>"
	if err != nil {
		e = err.Error()
	}
	r.seen = append(r.seen, ref+" "+reason+" "+e)
}

func (r *revivals) has(want string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.seen {
		if s == want {
			return true
		}
	}
	return false
}

func (r *revivals) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.seen, "; ")
}

// waitRevived waits (up to bootWait; the promise is 10 s on an idle host) until ref was booted
// again for reason.
func waitRevived(t *testing.T, r *revivals, ref, reason string) {
	t.Helper()
	want := ref + " " + reason + " <nil>"
	for deadline := time.Now().Add(bootWait); !r.has(want); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("machine %s not booted again for %q within %s; revivals: %s", ref, reason, bootWait, r)
		}
	}
}

// waitSSH waits (up to bootWait) until ip takes an SSH login with password.
func waitSSH(t *testing.T, ip netip.Addr, password string) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(bootWait); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, err = sshRun(ip, password, "true"); err == nil {
			return
		}
	}
	t.Fatalf("ssh %s after its revival: %v", ip, err)
}

// TestARevivalThatFailsIsTriedAgain: a machine found down is told to Options.FoundDown before
// its boot (the sandbox then reads it offline); a boot that fails (its password hash is
// missing) is reported so, and the machine is booted again once it can be, without anyone
// asking: it is never left dead while the API says online.
func TestARevivalThatFailsIsTriedAgain(t *testing.T) {
	requireRoot(t)
	revived := &revivals{}
	m := newManagerAt(t, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.18.143.0/24"), Logger: testLogger(t),
		FoundDown: func(ref, reason string) { revived.add(ref, "found down: "+reason, nil) },
		Revived:   revived.add})
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.143.10")
	if err := m.Create(ctx, Spec{Ref: "vm-retry", Hostname: "retry", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	hash := filepath.Join(m.o.Dir, "machines", "vm-retry", "password")
	if err := os.Rename(hash, hash+".away"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Run(ctx, "vm-retry", "kill -9 $PPID", nil); err == nil {
		t.Fatal("the run that killed its agent answered")
	}
	for deadline := time.Now().Add(bootWait); !strings.Contains(revived.String(), "vm-retry exited machine vm-retry: password"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no failed revival reported within %s; revivals: %s", bootWait, revived)
		}
	}
	if !revived.has("vm-retry found down: exited <nil>") {
		t.Fatalf("the failed revival was not told to FoundDown first; told: %s", revived)
	}
	if err := os.Rename(hash+".away", hash); err != nil {
		t.Fatal(err)
	}
	waitRevived(t, revived, "vm-retry", ReasonExited)
	waitSSH(t, ip, "pw")
}
