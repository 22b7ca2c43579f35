package sandbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestAStuckMachineDelaysOnlyItself: a script that never ends on one machine of host a fails
// at its caller's deadline, through a's own calls and through replica b (whose wait a's
// reconciler answers), while the other machine's ops, asked through b meanwhile, are applied
// (a's reconciler does not wait for the stuck machine), and so are the stuck machine's own
// (a script does not hold its machine's lock). A call asked while a stuck op does hold the
// machine (a reboot whose boot scripts hang) fails at its own deadline, and is never applied
// after it (a password the API reported as not changed stays unchanged).
func TestAStuckMachineDelaysOnlyItself(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, fa, _ := replicas(t)
	for _, id := range []int64{21, 22} {
		ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: id, DatacenterID: 1, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "h"})
		if err != nil {
			t.Fatal(err)
		}
		pollDone(t, a, ticket)
	}
	fa.mu.Lock()
	fa.hung = map[string]bool{"vm-21": true}
	fa.mu.Unlock()
	hung := func(n int) func() bool {
		return func() bool { fa.mu.Lock(); defer fa.mu.Unlock(); return fa.hungRuns == n }
	}

	stuck := make(chan error, 2)
	for _, d := range []*Datacenter{a, b} { // local, then through the other replica
		go func() {
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			_, err := d.do(cctx, "host-a", store.MachineOp{Ref: "vm-21", Kind: opRun, Wait: true,
				Args: map[string]string{"script": "sleep 100000"}})
			stuck <- err
		}()
	}
	eventually(t, "both stuck runs hang on vm-21", hung(2))
	for _, ref := range []string{"vm-22", "vm-21"} {
		pw, err := b.ResetPassword(ctx, ref)
		if err != nil {
			t.Fatalf("reset_password of %s through b: %v", ref, err)
		}
		if ok, err := b.CheckPassword(ctx, ref, pw); err != nil || !ok {
			t.Fatalf("%s's new password through b: %v, %v", ref, ok, err)
		}
	}
	select {
	case err := <-stuck:
		t.Fatalf("a stuck run ended (%v) before the other calls", err)
	default:
	}
	for range 2 {
		if err := <-stuck; err == nil {
			t.Fatal("a run that never ends succeeded")
		}
	}

	before, _ := fa.get("vm-21")
	rebooted := make(chan error, 1)
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, err := a.do(rctx, "host-a", store.MachineOp{Ref: "vm-21", Kind: datacenter.Reboot})
		rebooted <- err
	}()
	eventually(t, "the reboot's boot scripts hang, holding vm-21", hung(3))
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	var dcErr *datacenter.Error
	if _, err := a.ResetPassword(short, "vm-21"); !errors.As(err, &dcErr) {
		t.Fatalf("reset_password of the held machine: %v, want a datacenter error at its deadline", err)
	}
	rowBefore, _, _ := a.machine(ctx, "vm-21")
	short2, cancel2 := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel2()
	if _, err := a.Power(short2, "vm-21", datacenter.PowerOff); !errors.As(err, &dcErr) {
		t.Fatalf("power_off of the held machine: %v, want a datacenter error at its deadline", err)
	}
	if row, _, _ := a.machine(ctx, "vm-21"); row.Power != rowBefore.Power {
		t.Fatalf("after a power_off given up at its deadline the row says %q, want %q: a restart would follow the row", row.Power, rowBefore.Power)
	}
	<-rebooted // the boot scripts cut at the reboot's deadline: the machine is up all the same
	eventually(t, "no op of vm-21 is left", func() bool {
		ops, err := a.state.PendingMachineOps(ctx, "host-a", "vm-21", 10)
		return err == nil && len(ops) == 0
	})
	if m, _ := fa.get("vm-21"); m.spec.Password != before.spec.Password {
		t.Fatal("the reset_password given up at its deadline was applied after it")
	}
}

// TestBootIsNotHeldByOneMachine: at start, a machine whose boot hangs (until its deadline)
// holds up no other machine's boot.
func TestBootIsNotHeldByOneMachine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, fa, _ := replicas(t)
	for _, id := range []int64{31, 32} {
		ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: id, DatacenterID: 1, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "h"})
		if err != nil {
			t.Fatal(err)
		}
		pollDone(t, a, ticket)
	}
	gate := make(chan struct{})
	fa.mu.Lock()
	fa.machines["vm-31"].running, fa.machines["vm-32"].running = false, false // as after a restart
	fa.startGates = map[string]chan struct{}{"vm-31": gate}
	fa.mu.Unlock()
	booted := make(chan error, 1)
	go func() { booted <- a.Boot(ctx) }()
	eventually(t, "vm-32 boots while vm-31's boot hangs", func() bool { m, _ := fa.get("vm-32"); return m.running })
	select {
	case err := <-booted:
		t.Fatalf("Boot returned (%v) while vm-31's boot hangs", err)
	default:
	}
	close(gate)
	if err := <-booted; err != nil {
		t.Fatal(err)
	}
	if m, _ := fa.get("vm-31"); !m.running {
		t.Fatal("vm-31 not booted")
	}
}
