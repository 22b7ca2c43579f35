package sandbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
)

// TestDownMachineReadsOffline (issue 40, point 8): a machine its host found down reads offline
// on every replica, while its boots fail; a boot that works, by the liveness watch or by a
// reboot asked through another replica, makes it read online again.
func TestDownMachineReadsOffline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, _, _ := replicas(t)
	ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: 31, DatacenterID: 1, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "h"})
	if err != nil {
		t.Fatal(err)
	}
	pollDone(t, a, ticket)
	status := func(d *Datacenter) string {
		live, err := d.Live(ctx, "vm-31", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return live.Status
	}
	both := func(want, when string) {
		t.Helper()
		if sa, sb := status(a), status(b); sa != want || sb != want {
			t.Fatalf("%s: host a reads %s, replica b %s; want %s", when, sa, sb, want)
		}
	}
	// The simulator reports the power it last set: power_on sets it (the service's deploy does).
	if _, err := a.Power(ctx, "vm-31", datacenter.PowerOn); err != nil {
		t.Fatal(err)
	}
	both(datacenter.StatusOnline, "powered on")

	a.FoundDown("vm-31", "exited")
	both(datacenter.StatusOffline, "found down")
	a.Revived("vm-31", "exited", errors.New("boot: SSH not listening"))
	both(datacenter.StatusOffline, "its boot failed")
	a.Revived("vm-31", "exited", nil)
	both(datacenter.StatusOnline, "booted again")

	a.FoundDown("vm-31", "unresponsive")
	if _, err := b.Power(ctx, "vm-31", datacenter.Reboot); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the reboot asked through b boots the machine on a, which reads online again", func() bool {
		return status(a) == datacenter.StatusOnline && status(b) == datacenter.StatusOnline
	})
}
