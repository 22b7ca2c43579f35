package service

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sim"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestInstallInputsDroppedWhenFinished: an install keeps its inputs while it waits and runs,
// and loses them once it has finished, installed or failed for good (here: its instance was
// canceled), so the database keeps no app input (passwords among them) longer than the
// installer needs it.
func TestInstallInputsDroppedWhenFinished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "installs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := &testClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	svc := New(Config{Store: st, Catalog: catalog.New(), Datacenter: sim.New(sim.Options{Clock: clock, State: st}),
		Clock: clock, Logger: slog.New(slog.DiscardHandler), AppStepDelay: time.Minute})
	a, err := st.CreateAccount(ctx, store.NewAccount{KeyHash: []byte("h"), KeyHint: "h", KeyCreatedAt: clock.Now(),
		ServerLimit: 10, OrderLimit: 5, Language: "en", CreatedAt: clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	newInstance := func() store.Instance {
		t.Helper()
		o, _, err := st.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: clock.Now(), PlanID: 101, TemplateID: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		in, err := st.CreateInstance(ctx, store.Instance{AccountID: a.ID, OrderID: o.ID, Name: "web", PlanID: 101,
			TemplateID: 1, DatacenterID: 1, LocationID: 11, Status: datacenter.StatusOnline, Active: true,
			MachineRef: "vm-inputs", IPv4: "192.0.2.1", Username: "root", Password: "root-pw", CreatedAt: clock.Now(),
			CredentialsAt: clock.Now(), RenewalDue: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	installed, canceled := newInstance(), newInstance()
	const input = "app-Input-Pa55word"
	for _, in := range []store.Instance{installed, canceled} {
		if _, err := svc.InstallApps(ctx, a, in.ID, []string{"mysql"}, map[string]map[string]string{"mysql": {"ROOT_PASSWORD": input}}); err != nil {
			t.Fatal(err)
		}
	}
	inputsOf := func(in store.Instance) (string, map[string]string) {
		t.Helper()
		installs, err := st.AppInstalls(ctx, in.ID)
		if err != nil || len(installs) != 1 {
			t.Fatalf("installs of %d: %v, %v", in.ID, installs, err)
		}
		return installs[0].Status, installs[0].Inputs
	}
	if _, inputs := inputsOf(installed); inputs["ROOT_PASSWORD"] != input {
		t.Fatalf("a queued install holds inputs %v, want its ROOT_PASSWORD", inputs)
	}
	canceled.Active, canceled.Status = false, store.StatusCanceled
	if err := st.UpdateInstance(ctx, canceled); err != nil {
		t.Fatal(err)
	}
	for range 4 { // waiting → preparing → running → installed, a minute a stage
		if err := svc.InstallAllAppsDue(ctx); err != nil {
			t.Fatal(err)
		}
		if status, inputs := inputsOf(installed); status != store.InstallInstalled && inputs["ROOT_PASSWORD"] != input {
			t.Fatalf("an install still %s lost its inputs", status)
		}
		clock.advance(time.Minute)
	}
	for name, in := range map[string]store.Instance{store.InstallInstalled: installed, store.InstallFailed: canceled} {
		status, inputs := inputsOf(in)
		if status != name || len(inputs) != 0 {
			t.Errorf("install %s with inputs %d; want %s and none", status, len(inputs), name)
		}
	}
}
