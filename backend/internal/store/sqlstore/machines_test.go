package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestMachineOpsWakeOtherReplicas: a machine op added through one replica moves the change
// version another replica reads (the trigger of migration 0014 on PostgreSQL's notifications),
// which is what has a host's reconciler look for its ops at once. SQLite cannot tell.
func TestMachineOpsWakeOtherReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, url := openFresh(t)
	second := openURL(t, url)
	var before uint64
	deadline := time.Now().Add(eventWait)
	for ok := false; !ok; before, ok = second.ChangeVersion(ctx) {
		if time.Now().After(deadline) {
			t.Fatal("the change watcher of the second replica does not listen")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := first.AddMachineOp(ctx, store.MachineOp{ID: "op-1", Host: "h", Ref: "vm-1", Kind: "power_off"}); err != nil {
		t.Fatal(err)
	}
	for {
		if v, ok := second.ChangeVersion(ctx); ok && v != before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a new machine op did not move the other replica's change version")
		}
		time.Sleep(10 * time.Millisecond)
	}
	sqlite := mustOpen(t, OpenSQLite, t.TempDir()+"/v.db")
	if _, ok := sqlite.ChangeVersion(ctx); ok {
		t.Fatal("SQLite claims a change version")
	}
}
