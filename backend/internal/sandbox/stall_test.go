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
// reconciler answers), while the other machine's ops, asked through b at the same time, are
// applied: a's reconciler does not wait for the stuck machine. A call asked while the stuck op
// holds the machine fails at its own deadline, and is never applied after it (a password the
// API reported as not changed stays unchanged).
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
	eventually(t, "the stuck run holds vm-21", func() bool {
		ops, _ := a.state.PendingMachineOps(ctx, "host-a", "vm-21", 10)
		return len(ops) == 2
	})
	pw, err := b.ResetPassword(ctx, "vm-22")
	if err != nil {
		t.Fatalf("reset_password of the other machine through b: %v", err)
	}
	if ok, err := b.CheckPassword(ctx, "vm-22", pw); err != nil || !ok {
		t.Fatalf("the other machine's new password through b: %v, %v", ok, err)
	}
	select {
	case err := <-stuck:
		t.Fatalf("a stuck run ended (%v) before the other machine's calls", err)
	default:
	}
	before, _ := fa.get("vm-21")
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	var dcErr *datacenter.Error
	if _, err := a.ResetPassword(short, "vm-21"); !errors.As(err, &dcErr) {
		t.Fatalf("reset_password of the stuck machine: %v, want a datacenter error at its deadline", err)
	}
	for range 2 {
		if err := <-stuck; err == nil {
			t.Fatal("a run that never ends succeeded")
		}
	}
	eventually(t, "no op of vm-21 is left", func() bool {
		ops, err := a.state.PendingMachineOps(ctx, "host-a", "vm-21", 10)
		return err == nil && len(ops) == 0
	})
	if m, _ := fa.get("vm-21"); m.spec.Password != before.spec.Password {
		t.Fatal("the reset_password given up at its deadline was applied after it")
	}
	fa.mu.Lock()
	fa.hung = nil
	fa.mu.Unlock()
	pw, err = a.ResetPassword(ctx, "vm-21")
	if err != nil {
		t.Fatalf("reset_password once the machine answers again: %v", err)
	}
	if m, _ := fa.get("vm-21"); m.spec.Password != pw || before.spec.Password == pw {
		t.Fatalf("vm-21's password %q; want %q, the reset that succeeded (not the one given up)", m.spec.Password, pw)
	}
}
