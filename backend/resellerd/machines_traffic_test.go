package resellerd

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/apicall"
	"github.com/reseller/terraform-provider-reseller/backend/internal/devapi"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// halfTransfer is what one transfer sends the machine and what it sends back: 1.2 GB through
// its interface in all (with TCP's own bytes a little more), so `used` reads 1 after one and 2
// after two.
const halfTransfer = 600_000_000

// zeros is an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// echoPort is where the machine echoes what the host sends it, for transfer.
const echoPort = "9000"

// transfer moves about 1.2 GB through the machine at addr: halfTransfer bytes into it and the
// same back out, echoed by busybox's nc (started over SSH, which stays open meanwhile) on a
// TCP connection the host opens, as a client downloading and uploading would; all within
// transferWait. Plain TCP, so the test waits on the interface, not on SSH's ciphers.
func transfer(t *testing.T, addr, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), transferWait)
	defer cancel()
	client := sshClient(t, ctx, addr, password)
	defer client.Close()
	session, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if err := session.Start("exec nc -l -p " + echoPort + " -e cat"); err != nil {
		t.Fatal(err)
	}
	var conn net.Conn
	for conn == nil {
		if conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(addr, echoPort)); err != nil {
			if ctx.Err() != nil {
				t.Fatalf("the machine's echo at %s:%s: %v", addr, echoPort, err)
			}
			time.Sleep(50 * time.Millisecond) // nc is not listening yet
		}
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() }) // bounds the whole transfer
	defer stop()
	sent := make(chan error, 1)
	go func() {
		_, err := io.Copy(conn, io.LimitReader(zeros{}, halfTransfer))
		sent <- err
	}()
	got, err := io.CopyN(io.Discard, conn, halfTransfer)
	if err != nil || got != halfTransfer {
		t.Fatalf("the machine echoed %d bytes (%v), want %d", got, err, halfTransfer)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	_ = session.Wait() // nc ends with the connection
}

// transferSSH moves about 1.2 GB through the machine at addr as the scp did: over SSH,
// halfTransfer bytes into `cat > /dev/null` and halfTransfer out of `head -c` of /dev/zero,
// within transferWait. SSH's ciphers make it several times slower than transfer.
func transferSSH(t *testing.T, addr, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), transferWait)
	defer cancel()
	client := sshClient(t, ctx, addr, password)
	defer client.Close()
	stop := context.AfterFunc(ctx, func() { _ = client.Close() })
	defer stop()
	session, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	session.Stdin = io.LimitReader(zeros{}, halfTransfer)
	out := &countingWriter{}
	session.Stdout = out
	if err := session.Run(fmt.Sprintf("cat > /dev/null && head -c %d /dev/zero", halfTransfer)); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("not done within %v (%d bytes back so far): %w", transferWait, out.n, err)
		}
		t.Fatalf("transfer over SSH to %s: %v", addr, err)
	}
	if out.n != halfTransfer {
		t.Fatalf("the machine sent %d bytes back over SSH, want %d", out.n, halfTransfer)
	}
}

// countingWriter counts what is written to it, and keeps none of it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// sshClient logs into addr as root with password, within ctx.
func sshClient(t *testing.T, ctx context.Context, addr, password string) *ssh.Client {
	t.Helper()
	cfg := &ssh.ClientConfig{User: "root", Auth: []ssh.AuthMethod{ssh.Password(password)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second}
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(addr, "22"))
	if err != nil {
		t.Fatal(err)
	}
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ssh.NewClient(c, chans, reqs)
}

// openRestartable is a backend on cfg behind a real HTTP server that the test closes itself (a
// restart), or the cleanup when it has not.
func openRestartable(t *testing.T, cfg Config) (e *env, closeIt func()) {
	t.Helper()
	srv, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("resellerd.New: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	closed := false
	closeIt = func() {
		if closed {
			return
		}
		closed = true
		hs.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	t.Cleanup(closeIt)
	return &env{srv: srv, http: hs}, closeIt
}

// traffic reads GET /instances/{id}/traffic, live with refresh.
func (l life) traffic(t *testing.T, id int64, refresh bool) api.TrafficView {
	t.Helper()
	path := fmt.Sprintf("/instances/%d/traffic", id)
	if refresh {
		path += "?refresh=true"
	}
	var v api.TrafficView
	r := l.e.do(t, request{Path: path, Key: l.key})
	r.WantStatus(t, http.StatusOK, "")
	r.Data(t, &v)
	return v
}

// wantTraffic fails t unless the traffic read has used, overage and included.
func wantTraffic(t *testing.T, what string, got api.TrafficView, used, overage, included int) {
	t.Helper()
	if got.Used != used || got.Overage != overage || got.Included != included {
		t.Fatalf("%s: traffic %+v; want used %d, overage %d, included %d", what, got, used, overage, included)
	}
}

// trafficLines are the ledger lines of the account's traffic overage.
func trafficLines(t *testing.T, e *env, accountID int64) []store.LedgerEntry {
	t.Helper()
	all, err := e.srv.store.LedgerEntries(context.Background(), accountID)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.LedgerEntry
	for _, l := range all {
		if l.Kind == store.LedgerTraffic {
			out = append(out, l)
		}
	}
	return out
}

// TestMachineTrafficCounted walks one server's traffic under --machines sandbox: what crosses
// its interface is `used` (whole GB), it survives a restart of resellerd and a reboot (each
// boots the machine on a new interface) and a change_ip, an operator's allowance of 1 GB
// without overage locks it once passed
// (power_off 409 instance_locked, the lock in `account show` and the audit trail), overage
// allowed is billed a ledger line per GB, and a new cycle unlocks it. The steps depend on
// each other.
func TestMachineTrafficCounted(t *testing.T) {
	t.Parallel()
	requireMachines(t)
	ctx := context.Background()
	outer := t                     // the restarted backend lives until the test ends, not its step
	clock := &devapi.OffsetClock{} // dev's: POST /_dev/clock moves it
	cfg := sandboxConfig(pg.TestDB(t), t.TempDir(), "198.19.46.0/24")
	cfg.Clock = clock
	e, closeFirst := openRestartable(t, cfg)
	devClock := devClockOf(t, func() *Server { return e.srv }, clock)
	a, err := e.srv.CreateAccount(ctx, NewAccount{BalanceMicros: 100_000_000, ServerLimit: 10, OrderLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	l := life{e: e, key: a.APIKey}
	ops := Operator{Name: "ops", Command: "instance set", Reason: "test cap"}
	var id int64
	var addr, password, firstCycle string
	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"1.2 GB through the machine reads 1 GB used", func(t *testing.T) {
			in := l.deploy(t, `{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": "traffic-1"}`)
			id = in.ID
			addr, password = login(t, in)
			wantTraffic(t, "before any transfer", l.traffic(t, id, true), 0, 0, 1000)
			transferSSH(t, addr, password)
			got := l.traffic(t, id, true)
			wantTraffic(t, "after 1.2 GB", got, 1, 0, 1000)
			firstCycle = *got.CycleStartDate
		}},
		{"a restart of resellerd keeps it", func(t *testing.T) {
			closeFirst()
			e, _ = openRestartable(outer, cfg)
			l.e = e
			wantTraffic(t, "after the restart, stored", l.traffic(t, id, false), 1, 0, 1000)
			bootedSSH(t, addr, password, "true") // booted again, on a new interface
			wantTraffic(t, "after the restart, live", l.traffic(t, id, true), 1, 0, 1000)
		}},
		{"an allowance of 1 GB without overage, passed, locks it", func(t *testing.T) {
			off, one := false, 1
			got, err := e.srv.SetInstanceTrafficBy(ctx, ops, id, TrafficChange{IncludedGB: &one, AllowOverage: &off})
			if err != nil || got.IncludedGB != 1 || got.AllowOverage || got.UsedGB != 1 {
				t.Fatalf("instance set = %+v, %v; want 1 GB included, no overage, 1 used", got, err)
			}
			transfer(t, addr, password)
			// Not locked yet, as nothing has read the machine since: the reboot's host reads it
			// before its interface goes, then the worker (act runs it) reads the new one.
			l.act(t, id, `{"action": "reboot"}`)
			wantTraffic(t, "after 2.4 GB and a reboot, read by the worker", l.traffic(t, id, false), 2, 1, 1)
			r := e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/actions", id), Key: l.key,
				Body: `{"action": "power_off"}`})
			r.WantStatus(t, http.StatusConflict, "instance_locked")
			if in := l.instance(t, id); !in.Locked || in.LockReason == nil || *in.LockReason != store.LockTraffic {
				t.Fatalf("instance locked %v, reason %v; want locked for traffic", in.Locked, in.LockReason)
			}
			shown, err := e.srv.Account(ctx, a.ID)
			if err != nil || len(shown.Locks) != 1 || shown.Locks[0].InstanceID != id || shown.Locks[0].Reason != store.LockTraffic {
				t.Fatalf("account show locks = %+v, %v; want instance %d locked for traffic", shown.Locks, err, id)
			}
			wantAudit(t, e, a.ID, "traffic lock")
			if lines := trafficLines(t, e, a.ID); len(lines) != 0 {
				t.Fatalf("overage billed without allow_overage: %+v", lines)
			}
		}},
		{"overage allowed: unlocked, and billed a line per GB", func(t *testing.T) {
			on := true
			if _, err := e.srv.SetInstanceTrafficBy(ctx, ops, id, TrafficChange{AllowOverage: &on}); err != nil {
				t.Fatal(err)
			}
			wantTraffic(t, "overage allowed", l.traffic(t, id, true), 2, 1, 1)
			lines := trafficLines(t, e, a.ID)
			if len(lines) != 1 || lines[0].Amount != -10_000 {
				t.Fatalf("traffic ledger lines %+v; want one of 0.01 USD (plan 101's overage_price)", lines)
			}
			wantAudit(t, e, a.ID, "traffic unlock")
			l.act(t, id, `{"action": "change_ip"}`) // the same interface: its counters go on
			addr, _ = login(t, l.instance(t, id))
			bootedSSH(t, addr, password, "true") // rebooted in the step before, now at its new address
			transfer(t, addr, password)
			wantTraffic(t, "3.6 GB, the last 1.2 at the new address", l.traffic(t, id, true), 3, 2, 1)
			if lines := trafficLines(t, e, a.ID); len(lines) != 2 || lines[1].Amount != -10_000 || lines[0].Reference == lines[1].Reference {
				t.Fatalf("traffic ledger lines %+v; want a second one for the second GB", lines)
			}
			if n := len(trafficLines(t, e, a.ID)); l.traffic(t, id, true).Used != 3 || n != 2 {
				t.Fatalf("a read again billed again: %d lines", n)
			}
		}},
		{"overage off again locks it; the next cycle unlocks it", func(t *testing.T) {
			off := false
			if _, err := e.srv.SetInstanceTrafficBy(ctx, ops, id, TrafficChange{AllowOverage: &off}); err != nil {
				t.Fatal(err)
			}
			if in := l.instance(t, id); !in.Locked {
				t.Fatal("not locked with 3 GB used of 1 and overage off")
			}
			devClock(t, "721h") // past the cycle; dev runs the workers, the traffic worker among them
			got := l.traffic(t, id, false)
			wantTraffic(t, "in the next cycle", got, 0, 0, 1)
			first, _ := time.Parse(time.RFC3339, firstCycle)
			if want := first.Add(30 * 24 * time.Hour).Format(time.RFC3339); got.CycleStartDate == nil || *got.CycleStartDate != want {
				t.Fatalf("cycle_start_date %v, want %s: 30 days after the first", got.CycleStartDate, want)
			}
			l.act(t, id, `{"action": "power_off"}`)
		}},
	}
	for _, st := range steps {
		if !t.Run(st.name, st.run) {
			t.FailNow()
		}
	}
}

// devClockOf serves dev's test-control API (/_dev/) over the backend current returns (a
// restart replaces it) and returns a call of POST /_dev/clock, which moves clock by advance
// and runs every worker after each hour.
func devClockOf(t *testing.T, current func() *Server, clock *devapi.OffsetClock) func(t *testing.T, advance string) {
	t.Helper()
	hs := httptest.NewServer(devapi.New(devapi.Config{Clock: clock,
		Do: func(fn func(devapi.Backend) error) error { return fn(current()) }}))
	t.Cleanup(hs.Close)
	return func(t *testing.T, advance string) {
		t.Helper()
		r, err := apicall.Send(hs.Client(), hs.URL, request{Method: http.MethodPost, Path: "//_dev/clock",
			Body: fmt.Sprintf(`{"advance": %q}`, advance)})
		if err != nil {
			t.Fatal(err)
		}
		r.WantStatus(t, http.StatusOK, "")
	}
}

// wantAudit fails t unless the account's audit trail has an entry of command by the system.
func wantAudit(t *testing.T, e *env, accountID int64, command string) {
	t.Helper()
	entries, err := e.srv.AuditEntries(context.Background(), AuditFilter{AccountID: accountID})
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if en.Command == command && en.Operator == "system" {
			return
		}
	}
	t.Fatalf("audit trail %+v has no %q by the system", entries, command)
}
