package resellerd

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/storetest"
)

// TestIdleTickReadsNoInstance fills an account with 10,000 renewing instances, none due for an
// hour, and runs every worker: once the first tick has weighed the new wallet, a tick reads no
// instance row at all.
func TestIdleTickReadsNoInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var reads storetest.Reads
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "idle.db"), sqlstore.WithReadHook(reads.Hook))
	if err != nil {
		t.Fatal(err)
	}
	clock := NewManualClock(testStart)
	srv := testOnStore(t, ctx, withDefaults(Config{Clock: clock, WorkerInterval: -1}), st)
	t.Cleanup(func() { _ = srv.Close() })
	a, err := srv.CreateAccount(ctx, NewAccount{BalanceMicros: 1_000_000_000, ServerLimit: 20_000, OrderLimit: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	const instances = 10_000
	fillIdle(t, st, a.ID, instances, clock.Now())

	if err := srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := reads.Take().Rows["instances"]; n == 0 {
		t.Fatal("the first tick read no instance row; want the changed wallet weighed")
	}
	clock.Advance(time.Minute)
	if err := srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := reads.Take().Rows["instances"]; n != 0 {
		t.Fatalf("an idle tick read %d instance rows, want 0", n)
	}
}

// fillIdle writes n deployed, renewing instances of the account, due in an hour, in one
// transaction.
func fillIdle(t *testing.T, st store.Store, accountID int64, n int, now time.Time) {
	t.Helper()
	ctx := context.Background()
	err := st.WithTx(ctx, func(tx store.Tx) error {
		for i := range n {
			o, _, err := tx.PlaceOrder(ctx, store.Order{AccountID: accountID, Status: store.OrderPending, Price: 4_000,
				CreatedAt: now, PlanID: 101, TemplateID: 1}, nil)
			if err != nil {
				return err
			}
			name := fmt.Sprintf("idle-%d", i)
			in, err := tx.CreateInstance(ctx, store.Instance{AccountID: accountID, OrderID: o.ID, Name: name, Hostname: name,
				PlanID: 101, TemplateID: 1, DatacenterID: 1, LocationID: 11, Status: datacenter.StatusOnline, Active: true,
				Renew: true, MachineRef: "vm-" + name, CredentialsAt: now, CreatedAt: now, RenewalDue: now.Add(time.Hour)})
			if err != nil {
				return err
			}
			if err := tx.FinishOrder(ctx, o.ID, store.OrderDeployed, now, in.ID, ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("fill: %v", err)
	}
}
