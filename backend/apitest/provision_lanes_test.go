package apitest

import (
	"context"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestPostgresLanesDeployOnce has two replicas on one PostgreSQL database, each running the
// provisioning worker in its lanes (4 on PostgreSQL), drain 600 orders of 12 accounts at once
// (run it with -race): no transaction deadlocks or fails, and every order is deployed exactly
// once with its instance, its charge and its order.deployed event. One account can pay for one
// and a half of its three orders: its batch pays the first, pays half of the second and books
// the rest as debt, and locks the two instances it could not pay in full.
func TestPostgresLanesDeployOnce(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	clock := resellerd.NewManualClock(testStart)
	cfg := resellerd.Config{DB: url, Clock: clock, WorkerInterval: -1}
	replicas := []*env{openEnv(t, cfg), openEnv(t, cfg)}
	ctx := context.Background()
	st := replicas[0].database(t)
	var accounts []int64
	for range 12 {
		a, err := replicas[0].srv.CreateAccount(ctx, resellerd.NewAccount{BalanceMicros: 1_000_000_000, ServerLimit: 1000, OrderLimit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		fillPending(t, st, a.ID, 50, clock.Now())
		accounts = append(accounts, a.ID)
	}
	// The poor account's orders were placed while it could pay for them all; a charge since
	// left it 6,000 of their 12,000.
	poor, err := replicas[0].srv.CreateAccount(ctx, resellerd.NewAccount{BalanceMicros: 12_000, ServerLimit: 10, OrderLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	fillPending(t, st, poor.ID, 3, clock.Now())
	if _, err := st.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: poor.ID, Amount: -6_000, Kind: store.LedgerRenewal,
		Reference: "instance:0:renewal", CreatedAt: clock.Now()}); err != nil {
		t.Fatal(err)
	}

	runBoth(t, replicas, 2)
	for _, id := range append(accounts, poor.ID) {
		want := 50
		if id == poor.ID {
			want = 3
		}
		if totals, err := st.OrderTotals(ctx, id); err != nil || totals.Pending != 0 || totals.Reserved != 0 {
			t.Fatalf("account %d: %+v pending, %v; want none", id, totals, err)
		}
		instances, total, err := st.Instances(ctx, id, true, store.All)
		if err != nil || total != want {
			t.Fatalf("account %d: %d instances, %v; want %d", id, total, err, want)
		}
		_, entries := replicas[0].ledger(t, id)
		wantCharges(t, entries, store.LedgerOrder, want)
		replicas[0].wantReconciled(t, id)
		deployed := 0
		for _, e := range replicas[0].events(t, id) {
			if e.Name == "order.deployed" {
				deployed++
			}
		}
		if deployed != want {
			t.Fatalf("account %d: %d order.deployed events, want %d", id, deployed, want)
		}
		if id != poor.ID {
			continue
		}
		acct, _ := replicas[0].ledger(t, id)
		locked := 0
		for _, in := range instances {
			if in.Locked {
				locked++
			}
		}
		if acct.Balance != 0 || acct.Debt != 6_000 || locked != 2 {
			t.Fatalf("poor account: balance %v debt %v with %d instances locked; want 0, 6000 and 2", acct.Balance, acct.Debt, locked)
		}
	}
}

// fillPending writes n pending orders of the account, reserving their price, in one transaction.
func fillPending(t *testing.T, st store.Store, accountID int64, n int, now time.Time) {
	t.Helper()
	ctx := context.Background()
	err := st.WithTx(ctx, func(tx store.Tx) error {
		for range n {
			if _, _, err := tx.PlaceOrder(ctx, store.Order{AccountID: accountID, Status: store.OrderPending, Price: 4_000,
				CreatedAt: now, PlanID: 101, TemplateID: 1}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("fill: %v", err)
	}
}
