package service

import (
	"context"
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

// hangingInstalls is the simulator, but the installer of machine stuck never ends before its
// context does, as a script blocked on a FIFO.
type hangingInstalls struct {
	*sim.Sim
	stuck string
}

func (h hangingInstalls) InstallApp(ctx context.Context, job datacenter.AppJob) (datacenter.AppResult, error) {
	if job.Ref == h.stuck {
		<-ctx.Done()
		return datacenter.AppResult{}, &datacenter.Error{Op: "install", Reference: "ref"}
	}
	return h.Sim.InstallApp(ctx, job)
}

// TestAStuckInstallerDelaysOnlyItsInstance: an installer that never ends holds neither the
// install step (it returns while the installer runs) nor another instance's install, which
// finishes meanwhile; at InstallTimeout the stuck install fails at once, saying it timed out.
func TestAStuckInstallerDelaysOnlyItsInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "installs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := &testClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	dc := hangingInstalls{Sim: sim.New(sim.Options{Clock: clock, State: st}), stuck: "vm-stuck"}
	svc := New(Config{Store: st, Catalog: catalog.New(), Datacenter: dc, Clock: clock, Logger: slog.New(slog.DiscardHandler),
		AppStepDelay: time.Minute, InstallTimeout: 2 * time.Second})
	a, err := st.CreateAccount(ctx, store.NewAccount{KeyHash: []byte("h"), KeyHint: "h", KeyCreatedAt: clock.Now(),
		ServerLimit: 10, OrderLimit: 5, Language: "en", CreatedAt: clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	newInstance := func(ref string) store.Instance {
		t.Helper()
		o, _, err := st.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: clock.Now(), PlanID: 101, TemplateID: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		in, err := st.CreateInstance(ctx, store.Instance{AccountID: a.ID, OrderID: o.ID, Name: ref, PlanID: 101,
			TemplateID: 1, DatacenterID: 1, LocationID: 11, Status: datacenter.StatusOnline, Active: true,
			MachineRef: ref, IPv4: "192.0.2.1", Username: "root", Password: "root-pw", CreatedAt: clock.Now(),
			CredentialsAt: clock.Now(), RenewalDue: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.InstallApps(ctx, a, in.ID, []string{"mysql"}, nil); err != nil {
			t.Fatal(err)
		}
		return in
	}
	stuck, other := newInstance("vm-stuck"), newInstance("vm-other")
	install := func(in store.Instance) store.AppInstall {
		t.Helper()
		installs, err := st.AppInstalls(ctx, in.ID)
		if err != nil || len(installs) != 1 {
			t.Fatalf("installs of %d: %v, %v", in.ID, installs, err)
		}
		return installs[0]
	}
	for range 2 { // waiting → preparing → running, a minute a stage
		if err := svc.InstallAllAppsDue(ctx); err != nil {
			t.Fatal(err)
		}
		clock.advance(time.Minute)
	}
	if err := svc.InstallAppsDue(ctx); err != nil { // both installers start; one never ends
		t.Fatal(err)
	}
	// A minute only keeps a broken test from hanging; what is asserted is the order: the other
	// install is done while the stuck one still runs (it fails at InstallTimeout).
	for deadline := time.Now().Add(time.Minute); install(other).Status != store.InstallInstalled; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the other instance's install is %s, not installed while the stuck one runs", install(other).Status)
		}
	}
	if got := install(stuck); got.Status != store.InstallInstalling {
		t.Fatalf("the stuck install is %s/%s before the other finished; want installing", got.Status, got.Stage)
	}
	svc.WaitInstalls()
	got := install(stuck)
	if got.Status != store.InstallFailed || got.Stage != store.StageFailed || got.Attempts != 1 ||
		!strings.Contains(got.Error, "timed out") || !strings.Contains(got.LogTail, "timed out") {
		t.Fatalf("the stuck install: %s/%s after %d attempts, error %q, log %q; want failed at once, saying it timed out",
			got.Status, got.Stage, got.Attempts, got.Error, got.LogTail)
	}
}
