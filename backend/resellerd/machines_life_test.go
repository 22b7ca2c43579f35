package resellerd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/machinestest"
)

// requireMachines is machinestest.Require.
func requireMachines(t *testing.T) { machinestest.Require(t) }

// sandboxConfig is a backend with real machines on cidr under dir, workers driven by RunDue.
func sandboxConfig(db, dir, cidr string) Config {
	cfg := Config{DB: db, RateLimitScale: 100, Clock: NewManualClock(testStart), WorkerInterval: -1,
		Machines: MachinesConfig{Mode: MachinesSandbox, Dir: dir, CIDR: netip.MustParsePrefix(cidr)}}
	if testing.Verbose() {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return cfg
}

// sshRun logs into addr:22 as root with password and runs cmd.
func sshRun(addr, password, cmd string) (string, error) {
	return machinestest.SSH(context.Background(), addr, 22, "root", password, cmd)
}

// mustSSH fails t unless cmd, run over SSH, exits 0: the tests judge a machine by shell tests'
// exit statuses.
func mustSSH(t *testing.T, addr, password, cmd string) {
	t.Helper()
	if out, err := sshRun(addr, password, cmd); err != nil {
		t.Fatalf("ssh root@%s %q: %v (output %q)", addr, cmd, err, out)
	}
}

// wantRefused fails t unless a login at addr with password is refused: no answer at all
// (noAnswer) or the credentials refused.
func wantRefused(t *testing.T, addr, password string, noAnswer bool) {
	t.Helper()
	_, err := sshRun(addr, password, "true")
	var auth *ssh.ServerAuthError
	isAuth := errors.As(err, &auth) || (err != nil && strings.Contains(err.Error(), "unable to authenticate"))
	switch {
	case err == nil:
		t.Fatalf("ssh root@%s logged in; want it refused", addr)
	case noAnswer && isAuth:
		t.Fatalf("ssh root@%s answered (%v); want nothing listening", addr, err)
	case !noAnswer && !isAuth:
		t.Fatalf("ssh root@%s: %v; want the password refused", addr, err)
	}
}

// afterBoot bounds how long a machine that has just booted may take to answer at its address.
// It is long because the host may still hold the neighbour (ARP) entry of the machine's
// previous boot, whose veth had another MAC address, until it expires, and because a loaded
// CI host boots slowly.
const afterBoot = machineWait

// bootedSSH fails t unless cmd, over SSH, exits 0 within afterBoot.
func bootedSSH(t *testing.T, addr, password, cmd string) {
	t.Helper()
	var err error
	var out string
	for deadline := time.Now().Add(afterBoot); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out, err = sshRun(addr, password, cmd); err == nil {
			return
		}
	}
	t.Fatalf("ssh root@%s %q after a boot: %v (output %q)", addr, cmd, err, out)
}

// eventually fails t unless cond holds within timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within %s", what, timeout)
}

// life is one customer's view of the backend the life test walks through.
type life struct {
	e   *env
	key string
}

func (l life) runDue(t *testing.T) {
	t.Helper()
	if err := l.e.srv.RunDue(context.Background()); err != nil {
		t.Fatalf("RunDue: %v", err)
	}
}

// deploy orders body and returns the deployed instance.
func (l life) deploy(t *testing.T, body string) api.InstanceDetailView {
	t.Helper()
	r := l.e.do(t, request{Method: http.MethodPost, Path: "/instances", Key: l.key, Body: body})
	r.WantStatus(t, http.StatusCreated, "")
	var c api.CreatedOrderView
	r.Data(t, &c)
	// The machine boots while the build runs; the build is done at the first tick after it is up.
	// The order is read 10 times a second: the clock stands still, so the reads' rate limit
	// window never slides.
	var o api.OrderView
	for deadline := time.Now().Add(machineWait); ; time.Sleep(100 * time.Millisecond) {
		l.runDue(t)
		r = l.e.do(t, request{Path: fmt.Sprintf("/orders/%d", c.OrderID), Key: l.key})
		r.Data(t, &o)
		if o.Status != "pending" || time.Now().After(deadline) {
			break
		}
	}
	if o.Status != "deployed" || o.Server == nil {
		t.Fatalf("order %d is %s, want deployed", c.OrderID, o.Status)
	}
	return l.instance(t, o.Server.ID)
}

func (l life) instance(t *testing.T, id int64) api.InstanceDetailView {
	t.Helper()
	var v api.InstanceDetailView
	r := l.e.do(t, request{Path: fmt.Sprintf("/instances/%d", id), Key: l.key})
	r.WantStatus(t, http.StatusOK, "")
	r.Data(t, &v)
	return v
}

// act posts an action and runs the workers.
func (l life) act(t *testing.T, id int64, body string) {
	t.Helper()
	r := l.e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/actions", id), Key: l.key, Body: body})
	if r.Status != http.StatusOK && r.Status != http.StatusAccepted {
		t.Fatalf("action %s: status %d: %s", body, r.Status, r.Raw)
	}
	l.runDue(t)
}

// login is where and how an instance is logged into, as the API says.
func login(t *testing.T, in api.InstanceDetailView) (addr, password string) {
	t.Helper()
	c := in.Credentials
	if c == nil || c.Pending || c.IPv4 == nil || c.Password == nil || c.Port == nil || *c.Port != 22 || in.IPv4 == nil || *in.IPv4 != *c.IPv4 {
		t.Fatalf("credentials %+v (ipv4 %v); want them delivered, port 22, ipv4 the instance's", c, in.IPv4)
	}
	return *c.IPv4, *c.Password
}

// TestMachineLifeThroughTheAPI walks one server through every action the API offers under
// --machines sandbox, each asserting what the machine shows over a real SSH client at the
// address and with the password the API hands out. The steps depend on each other.
func TestMachineLifeThroughTheAPI(t *testing.T) {
	t.Parallel()
	requireMachines(t)
	dir := t.TempDir()
	e := openEnv(t, sandboxConfig(pg.TestDB(t), dir, "198.19.10.0/24"))
	a, err := e.srv.CreateAccount(context.Background(), NewAccount{BalanceMicros: 100_000_000, ServerLimit: 10, OrderLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	l := life{e: e, key: a.APIKey}
	var id int64
	var addr, password, firstAddr, snapPassword string
	var snapID int64
	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"an order is a machine that takes the API's password at its address", func(t *testing.T) {
			in := l.deploy(t, `{"server_id": 102, "template_id": 1, "term": "hourly", "hostname": "web-1"}`)
			id = in.ID
			addr, password = login(t, in)
			mustSSH(t, addr, password, `[ "$(hostname)" = web-1 ] && grep -q Ubuntu /etc/os-release`)
			mustSSH(t, addr, password, "echo kept > /root/before")
			wantRefused(t, addr, password+"x", false)
		}},
		{"power_off: SSH refused", func(t *testing.T) {
			l.act(t, id, `{"action": "power_off"}`)
			wantRefused(t, addr, password, true)
		}},
		{"power_on: the file written before is there", func(t *testing.T) {
			l.act(t, id, `{"action": "power_on"}`)
			bootedSSH(t, addr, password, `[ "$(cat /root/before)" = kept ]`)
		}},
		{"reset_password: the new one logs in, the old one is refused", func(t *testing.T) {
			l.act(t, id, `{"action": "reset_password"}`)
			old := password
			_, password = login(t, l.instance(t, id))
			if password == old {
				t.Fatal("reset_password kept the password")
			}
			mustSSH(t, addr, password, "true")
			wantRefused(t, addr, old, false)
		}},
		{"rebuild: a fresh disk", func(t *testing.T) {
			l.act(t, id, `{"action": "rebuild", "template_id": 3}`)
			_, password = login(t, l.instance(t, id))
			bootedSSH(t, addr, password, `[ ! -e /root/before ] && grep -q Debian /etc/os-release`)
			mustSSH(t, addr, password, "echo v1 > /root/file")
		}},
		{"change_ip: the new address answers, the old one does not", func(t *testing.T) {
			firstAddr = addr
			l.act(t, id, `{"action": "change_ip"}`)
			addr, _ = login(t, l.instance(t, id))
			if addr == firstAddr {
				t.Fatal("change_ip kept the address")
			}
			mustSSH(t, addr, password, `[ "$(cat /root/file)" = v1 ]`)
			wantRefused(t, firstAddr, password, true)
		}},
		{"snapshot, change, restore: the file and the snapshot's password are back", func(t *testing.T) {
			r := e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/snapshots", id), Key: l.key})
			r.WantStatus(t, http.StatusAccepted, "")
			var s api.SnapshotView
			r.Data(t, &s)
			snapID = s.ID
			l.runDue(t)
			var got api.SnapshotView
			e.do(t, request{Path: fmt.Sprintf("/snapshots/%d", snapID), Key: l.key}).Data(t, &got)
			if got.Status != "available" || got.SizeGB == nil || *got.SizeGB < 1 {
				t.Fatalf("snapshot %+v; want available with a size", got)
			}
			snapPassword = password
			mustSSH(t, addr, password, "echo v2 > /root/file")
			l.act(t, id, `{"action": "reset_password"}`)
			_, password = login(t, l.instance(t, id))
			r = e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", snapID), Key: l.key})
			if r.Status != http.StatusOK && r.Status != http.StatusAccepted {
				t.Fatalf("restore: %d %s", r.Status, r.Raw)
			}
			l.runDue(t)
			wantRefused(t, addr, snapPassword, true) // a restore leaves the server off
			l.act(t, id, `{"action": "power_on"}`)
			_, password = login(t, l.instance(t, id))
			if password != snapPassword {
				t.Fatal("the API does not hand out the snapshot's password after the restore")
			}
			bootedSSH(t, addr, password, `[ "$(cat /root/file)" = v1 ]`) // the snapshot's, not v2
		}},
		{"an order from the snapshot has the file", func(t *testing.T) {
			clone := l.deploy(t, fmt.Sprintf(`{"server_id": 102, "snapshot_id": %d, "term": "hourly"}`, snapID))
			cAddr, cPassword := login(t, clone)
			if cAddr == addr {
				t.Fatal("the clone has the source's address")
			}
			mustSSH(t, cAddr, cPassword, `[ "$(cat /root/file)" = v1 ]`)
		}},
		{"an app installs and serves its title; its password input is 0600", func(t *testing.T) {
			body := `{"apps": ["wordpress"], "app_inputs": {"wordpress": {"SITE_TITLE": "Sandbox <Blog>"}, "mysql": {"ROOT_PASSWORD": "db-Secret-9"}}}`
			r := e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/apps", id), Key: l.key, Body: body})
			if r.Status != http.StatusOK && r.Status != http.StatusAccepted {
				t.Fatalf("install: %d %s", r.Status, r.Raw)
			}
			for range 8 { // queued → preparing → running → installed, for mysql then wordpress
				l.runDue(t)
			}
			in := l.instance(t, id)
			for _, app := range in.Apps {
				if app.Status != "installed" {
					t.Fatalf("app %+v; want installed", app)
				}
			}
			wantPage(t, addr, "<title>Sandbox &lt;Blog&gt;</title>")
			mustSSH(t, addr, password, `f=/etc/reseller/apps/mysql/ROOT_PASSWORD; [ "$(stat -c %a $f)" = 600 ] && [ "$(cat $f)" = db-Secret-9 ] &&
				[ "$(stat -c %a /etc/reseller/apps/wordpress/SITE_TITLE)" = 644 ]`)
			conn, err := net.DialTimeout("tcp", net.JoinHostPort(addr, "3306"), 3*time.Second)
			if err != nil {
				t.Fatalf("mysql's stand-in on 3306: %v", err)
			}
			_ = conn.Close()
		}},
		{"reboot: the app's stand-in comes back", func(t *testing.T) {
			l.act(t, id, `{"action": "reboot"}`)
			wantPage(t, addr, "<title>Sandbox &lt;Blog&gt;</title>")
		}},
		{"delete: nothing of the machine is left", func(t *testing.T) {
			ref := fmt.Sprintf("vm-%d", l.instance(t, id).OrderID)
			if len(processesOf(filepath.Join(dir, "machines", ref))) == 0 {
				t.Fatal("no process of the running machine is seen: the check below could not fail")
			}
			e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", id), Key: l.key}).WantStatus(t, http.StatusOK, "")
			l.runDue(t)
			wantRefused(t, addr, password, true)
			wantGone(t, dir, ref)
		}},
	}
	for _, st := range steps {
		if !t.Run(st.name, st.run) {
			t.FailNow()
		}
	}
}

// wantPage fails t unless http://addr/ answers a page containing want within afterBoot.
func wantPage(t *testing.T, addr, want string) {
	t.Helper()
	c := &http.Client{Timeout: 3 * time.Second}
	var last string
	eventually(t, afterBoot, "the page at http://"+addr+"/", func() bool {
		resp, err := c.Get("http://" + addr + "/")
		if err != nil {
			last = err.Error()
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		last = string(b)
		return strings.Contains(last, want)
	})
	_ = last
}

// wantGone fails t if anything of machine ref is left on the host: its directory, a mount
// or a link, or a process started for it (its boot environment names its disk).
func wantGone(t *testing.T, dir, ref string) {
	t.Helper()
	machineDir := filepath.Join(dir, "machines", ref)
	if _, err := os.Stat(machineDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is left (%v)", machineDir, err)
	}
	if mounts, err := os.ReadFile("/proc/self/mountinfo"); err == nil && bytes.Contains(mounts, []byte(machineDir)) {
		t.Errorf("a mount of %s is left", machineDir)
	}
	for _, pid := range processesOf(machineDir) {
		t.Errorf("process %s of %s is left", pid, ref)
	}
	if _, err := net.InterfaceByName(vethOf(dir, ref)); err == nil {
		t.Errorf("link %s of %s is left", vethOf(dir, ref), ref)
	}
}

// vethOf is the host's end of machine ref's veth pair, as package machines names it: "rv" and
// a hash of its bridge (named after the machines' directory) and the ref.
func vethOf(dir, ref string) string {
	dirSum := sha256.Sum256([]byte(dir))
	bridge := "rsm" + hex.EncodeToString(dirSum[:4])
	sum := sha256.Sum256([]byte(bridge + "/" + ref))
	return "rv" + hex.EncodeToString(sum[:6])
}

// processesOf lists the processes started for the machine of machineDir: their boot
// environment names its disk.
func processesOf(machineDir string) []string {
	var pids []string
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		if env, err := os.ReadFile(p); err == nil && bytes.Contains(env, []byte(machineDir+"/")) {
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}
