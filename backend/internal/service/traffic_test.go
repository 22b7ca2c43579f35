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

// TestReckonTraffic: `used` is whole GB (10^9 bytes, rounded down) of what was counted since
// the cycle began; the first cycle counts from the build, a new one from the count at its first
// read, with nothing billed; a datacenter that does not count bytes (the simulator) gives its
// GB as they are.
func TestReckonTraffic(t *testing.T) {
	t.Parallel()
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	second := first.Add(trafficCycle)
	counted := func(bytes int64) datacenter.Live { return datacenter.Live{Counted: true, CountedBytes: bytes} }
	var in store.Instance
	for _, step := range []struct {
		name       string
		live       datacenter.Live
		cycle      time.Time
		wantUsed   int
		wantBase   int64
		wantBilled int
	}{
		{"just under a GB", counted(999_999_999), first, 0, 0, 0},
		{"1.2 GB", counted(1_200_000_000), first, 1, 0, 0},
		{"read again: the same", counted(1_200_000_000), first, 1, 0, 0},
		{"2.4 GB", counted(2_400_000_000), first, 2, 0, 1}, // billed stays what settleTraffic made it
		{"a new cycle starts from the count", counted(2_500_000_000), second, 0, 2_500_000_000, 0},
		{"and counts on from there", counted(3_600_000_000), second, 1, 2_500_000_000, 0},
		{"a count below the base (a new disk) is 0, never negative", counted(100), second, 0, 2_500_000_000, 0},
		{"the simulator's GB", datacenter.Live{TrafficUsedGB: 5}, second, 5, 2_500_000_000, 0},
	} {
		if step.name == "2.4 GB" {
			in.TrafficBilledGB = 1
		}
		reckonTraffic(&in, step.live, step.cycle)
		if in.TrafficUsedGB != step.wantUsed || in.TrafficCycleBase != step.wantBase || in.TrafficBilledGB != step.wantBilled ||
			!in.TrafficCycle.Equal(step.cycle) {
			t.Fatalf("%s: used %d, base %d, billed %d, cycle %v; want %d, %d, %d, %v", step.name, in.TrafficUsedGB,
				in.TrafficCycleBase, in.TrafficBilledGB, in.TrafficCycle, step.wantUsed, step.wantBase, step.wantBilled, step.cycle)
		}
	}
}

// TestAllowance: the operator's allowance wins over the plan's, field by field; overage is
// what passes included, and nothing when included is 0 (unlimited).
func TestAllowance(t *testing.T) {
	t.Parallel()
	plan := catalog.Plan{Traffic: catalog.Traffic{IncludedGB: 1000, AllowOverage: true}}
	one, off := 1, false
	for _, tt := range []struct {
		name        string
		in          store.Instance
		wantGB      int
		wantOverage bool
	}{
		{"the plan's", store.Instance{}, 1000, true},
		{"included set", store.Instance{TrafficIncludedGB: &one}, 1, true},
		{"overage set", store.Instance{TrafficAllowOverage: &off}, 1000, false},
		{"both set", store.Instance{TrafficIncludedGB: &one, TrafficAllowOverage: &off}, 1, false},
	} {
		if gb, allow := allowance(tt.in, plan); gb != tt.wantGB || allow != tt.wantOverage {
			t.Errorf("%s: allowance %d GB, overage %v; want %d, %v", tt.name, gb, allow, tt.wantGB, tt.wantOverage)
		}
	}
	for _, tt := range []struct{ used, included, want int }{{2, 1, 1}, {1, 1, 0}, {0, 1, 0}, {500, 0, 0}} {
		if got := overageGB(tt.used, tt.included); got != tt.want {
			t.Errorf("overageGB(%d, %d) = %d, want %d", tt.used, tt.included, got, tt.want)
		}
	}
}

// countingDC is the simulator with a byte count per machine that the test sets, as a datacenter
// that counts traffic reports it; it records the machines it was asked about.
type countingDC struct {
	*sim.Sim
	mu    sync.Mutex
	bytes map[string]int64
	asked map[string]int
}

func (c *countingDC) Live(ctx context.Context, ref string, cycleStart time.Time) (datacenter.Live, error) {
	live, err := c.Sim.Live(ctx, ref, cycleStart)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked[ref]++
	live.Counted, live.CountedBytes, live.TrafficUsedGB = true, c.bytes[ref], 0
	return live, err
}

func (c *countingDC) set(ref string, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bytes[ref] = bytes
}

// TestTrafficWorkerBillsPerGB: the traffic worker bills each GB of overage once, a ledger line
// each, whatever the number of reads; a GB the balance cannot cover is debt and locks the
// server for debt; the worker reads only live servers.
func TestTrafficWorkerBillsPerGB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "traffic.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := &testClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	dc := &countingDC{Sim: sim.New(sim.Options{Clock: clock, State: st}), bytes: map[string]int64{}, asked: map[string]int{}}
	svc := New(Config{Store: st, Catalog: catalog.New(), Datacenter: dc, Clock: clock, Logger: slog.New(slog.DiscardHandler)})
	a, err := st.CreateAccount(ctx, store.NewAccount{KeyHash: []byte("traffic"), KeyHint: "h", KeyCreatedAt: clock.Now(),
		ServerLimit: 10, OrderLimit: 10, Language: "en", CreatedAt: clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.TopUp(ctx, a.ID, 15_000, "card"); err != nil { // 1.5 GB of plan 101's overage_price
		t.Fatal(err)
	}
	server := func(ref string, active bool) store.Instance {
		t.Helper()
		o, _, err := st.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: clock.Now(), PlanID: 101, TemplateID: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		in, err := st.CreateInstance(ctx, store.Instance{AccountID: a.ID, OrderID: o.ID, Name: ref, PlanID: 101, TemplateID: 1,
			DatacenterID: 1, LocationID: 11, Status: datacenter.StatusOnline, Active: active, MachineRef: ref,
			CreatedAt: clock.Now(), CredentialsAt: clock.Now(), RenewalDue: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	live, gone := server("vm-live", true), server("vm-gone", false)
	one := 1
	if _, err := svc.SetTrafficBy(ctx, Audit{Operator: "ops", Command: "instance set", Reason: "test"}, live.ID,
		TrafficChange{IncludedGB: &one}); err != nil {
		t.Fatal(err)
	}
	lines := func() []store.LedgerEntry {
		t.Helper()
		all, err := st.LedgerEntries(ctx, a.ID)
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
	due := func() store.Instance {
		t.Helper()
		if err := svc.TrafficDue(ctx); err != nil {
			t.Fatal(err)
		}
		in, err := st.InstanceByID(ctx, live.ID)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}

	dc.set("vm-live", 2_500_000_000) // 2 GB used of 1: 1 GB of overage
	due()
	if in := due(); in.TrafficUsedGB != 2 || in.TrafficBilledGB != 1 || in.Locked {
		t.Fatalf("after 2.5 GB read twice: used %d, billed %d, locked %v; want 2, 1, unlocked", in.TrafficUsedGB, in.TrafficBilledGB, in.Locked)
	}
	if got := lines(); len(got) != 1 || got[0].Amount != -10_000 || got[0].Debt != 0 {
		t.Fatalf("ledger lines %+v; want one of 0.01 USD, paid", got)
	}
	dc.set("vm-live", 3_100_000_000) // a second GB: 0.005 USD left to pay 0.01 with
	in := due()
	got := lines()
	if len(got) != 2 || got[1].Amount != -5_000 || got[1].Debt != 5_000 {
		t.Fatalf("ledger lines %+v; want a second one, half paid, half debt", got)
	}
	if in.TrafficBilledGB != 2 || !in.Locked || in.LockReason != store.LockDebt {
		t.Fatalf("billed %d, locked %v (%s); want 2, locked for debt", in.TrafficBilledGB, in.Locked, in.LockReason)
	}
	if dc.asked["vm-gone"] != 0 || dc.asked["vm-live"] != 3 {
		t.Fatalf("reads %v; want the live server's three and none of the ended one (%d)", dc.asked, gone.ID)
	}
}
