package service

import (
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
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
