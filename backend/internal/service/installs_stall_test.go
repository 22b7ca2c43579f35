package service

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sim"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// hangingInstalls is the simulator, but the installers of the machines stuck names never end
// before their context does, as a script blocked on a FIFO (or the test ends: ended).
type hangingInstalls struct {
	*sim.Sim
	stuck func(ref string) bool
	ended <-chan struct{}
}

func (h hangingInstalls) InstallApp(ctx context.Context, job datacenter.AppJob) (datacenter.AppResult, error) {
	if h.stuck(job.Ref) {
		select {
		case <-ctx.Done():
		case <-h.ended:
		}
		return datacenter.AppResult{}, &datacenter.Error{Op: "install", Reference: "ref"}
	}
	return h.Sim.InstallApp(ctx, job)
}

// stallEnv is a service whose installers hang on the machines stuck names, on a SQLite store
// and a clock the test moves.
type stallEnv struct {
	t     *testing.T
	ctx   context.Context
	st    *sqlstore.Store
	svc   *Service
	clock *testClock
}

func newStallEnv(t *testing.T, stuck func(ref string) bool, installTimeout time.Duration) *stallEnv {
	ctx := context.Background()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "installs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := &testClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	ended := make(chan struct{})
	dc := hangingInstalls{Sim: sim.New(sim.Options{Clock: clock, State: st}), stuck: stuck, ended: ended}
	svc := New(Config{Store: st, Catalog: catalog.New(), Datacenter: dc, Clock: clock, Logger: slog.New(slog.DiscardHandler),
		AppStepDelay: time.Minute, InstallTimeout: installTimeout})
	t.Cleanup(func() { // before the store closes: no installer outlives the test
		close(ended)
		svc.WaitInstalls()
	})
	return &stallEnv{t: t, ctx: ctx, st: st, svc: svc, clock: clock}
}

func (e *stallEnv) account() store.Account {
	e.t.Helper()
	a, err := e.st.CreateAccount(e.ctx, store.NewAccount{KeyHash: []byte(e.t.Name() + e.clock.Now().String()), KeyHint: "h",
		KeyCreatedAt: e.clock.Now(), ServerLimit: 100, OrderLimit: 100, Language: "en", CreatedAt: e.clock.Now()})
	if err != nil {
		e.t.Fatal(err)
	}
	e.clock.advance(time.Millisecond) // the next account's key differs
	return a
}

// instance is an online server of a, on machine ref, with mysql queued.
func (e *stallEnv) instance(a store.Account, ref string) store.Instance {
	e.t.Helper()
	o, _, err := e.st.PlaceOrder(e.ctx, store.Order{AccountID: a.ID, CreatedAt: e.clock.Now(), PlanID: 101, TemplateID: 1}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	in, err := e.st.CreateInstance(e.ctx, store.Instance{AccountID: a.ID, OrderID: o.ID, Name: ref, PlanID: 101,
		TemplateID: 1, DatacenterID: 1, LocationID: 11, Status: datacenter.StatusOnline, Active: true,
		MachineRef: ref, IPv4: "192.0.2.1", Username: "root", Password: "root-pw", CreatedAt: e.clock.Now(),
		CredentialsAt: e.clock.Now(), RenewalDue: e.clock.Now().Add(time.Hour)})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.svc.InstallApps(e.ctx, a, in.ID, []string{"mysql"}, nil); err != nil {
		e.t.Fatal(err)
	}
	return in
}

func (e *stallEnv) install(in store.Instance) store.AppInstall {
	e.t.Helper()
	installs, err := e.st.AppInstalls(e.ctx, in.ID)
	if err != nil || len(installs) != 1 {
		e.t.Fatalf("installs of %d: %v, %v", in.ID, installs, err)
	}
	return installs[0]
}

// startInstallers moves every install to its running stage (a minute a stage), then starts
// the installers: the step returns while the stuck ones hang.
func (e *stallEnv) startInstallers() {
	e.t.Helper()
	for range 2 { // waiting → preparing → running
		if err := e.svc.InstallAllAppsDue(e.ctx); err != nil {
			e.t.Fatal(err)
		}
		e.clock.advance(time.Minute)
	}
	if err := e.svc.InstallAppsDue(e.ctx); err != nil {
		e.t.Fatal(err)
	}
}

// waitInstalled waits until in's install is installed, stepping the install worker as its
// loop does and the service's clock a stage at a time (installers hang on the real clock);
// eventWait only keeps a broken test from hanging.
func (e *stallEnv) waitInstalled(in store.Instance, while string) {
	e.t.Helper()
	for deadline := time.Now().Add(eventWait); e.install(in).Status != store.InstallInstalled; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("the install of %s is %s/%s, not installed %s", in.MachineRef, e.install(in).Status, e.install(in).Stage, while)
		}
		if err := e.svc.InstallAppsDue(e.ctx); err != nil {
			e.t.Fatal(err)
		}
		e.clock.advance(time.Minute)
	}
}

// eventWait bounds a test's wait for something to happen: a loaded CI host is many times
// slower than an idle one, and the tests assert no speed.
const eventWait = time.Minute

// TestAStuckInstallerDelaysOnlyItsInstance: an installer that never ends holds neither the
// install step (it returns while the installer runs) nor another instance's install, which
// finishes meanwhile; at InstallTimeout the stuck install fails at once, saying it timed out.
func TestAStuckInstallerDelaysOnlyItsInstance(t *testing.T) {
	t.Parallel()
	e := newStallEnv(t, func(ref string) bool { return ref == "vm-stuck" }, 5*time.Second)
	a := e.account()
	stuck, other := e.instance(a, "vm-stuck"), e.instance(a, "vm-other")
	e.startInstallers()
	// What is asserted is the order: the other install is done while the stuck one still runs
	// (it fails at InstallTimeout).
	e.waitInstalled(other, "while the stuck one runs")
	if got := e.install(stuck); got.Status != store.InstallInstalling {
		t.Fatalf("the stuck install is %s/%s before the other finished; want installing", got.Status, got.Stage)
	}
	e.svc.WaitInstalls()
	got := e.install(stuck)
	if got.Status != store.InstallFailed || got.Stage != store.StageFailed || got.Attempts != 1 ||
		!strings.Contains(got.Error, "timed out") || !strings.Contains(got.LogTail, "timed out") {
		t.Fatalf("the stuck install: %s/%s after %d attempts, error %q, log %q; want failed at once, saying it timed out",
			got.Status, got.Stage, got.Attempts, got.Error, got.LogTail)
	}
}

// TestOneAccountsStuckInstallersDelayNoOtherAccount: an account whose installers all hang, on
// more servers than the install pool has workers, holds maxInstallsPerAccount of them; another
// account's install finishes meanwhile.
func TestOneAccountsStuckInstallersDelayNoOtherAccount(t *testing.T) {
	t.Parallel()
	e := newStallEnv(t, func(ref string) bool { return strings.HasPrefix(ref, "vm-attacker-") }, time.Minute)
	attacker, victim := e.account(), e.account()
	for i := range installWorkers + 1 {
		e.instance(attacker, fmt.Sprintf("vm-attacker-%d", i))
	}
	other := e.instance(victim, "vm-victim")
	e.startInstallers()
	e.waitInstalled(other, "while the other account's installers hang")
	if n := e.svc.installs.accountRunning(attacker.ID); n != maxInstallsPerAccount {
		t.Fatalf("the account whose installers hang holds %d install workers, want %d", n, maxInstallsPerAccount)
	}
}
