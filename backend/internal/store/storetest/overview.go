package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Overview: the console's reads cross accounts, keep only what is live (active servers and
// snapshots, pending orders), keep their order and stop at their limits; the ledger read gives
// each account its last entries only.
func (suite) Overview(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := newAccount(t, s, "overview-a"), newAccount(t, s, "overview-b")
	first := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	ended := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	ended.Active, ended.Status = false, store.StatusCanceled
	if err := s.UpdateInstance(ctx, ended); err != nil {
		t.Fatal(err)
	}
	newest := newInstance(t, s, b.ID, newOrder(t, s, b.ID, base).ID)
	if got, err := s.ActiveInstances(ctx, 10); err != nil || len(got) != 2 || got[0].ID != newest.ID || got[1].ID != first.ID {
		t.Fatalf("ActiveInstances = %v, %v; want %d then %d", ids2(got), err, newest.ID, first.ID)
	}
	if got, err := s.ActiveInstances(ctx, 1); err != nil || len(got) != 1 || got[0].ID != newest.ID {
		t.Fatalf("ActiveInstances(1) = %v, %v; want only %d", ids2(got), err, newest.ID)
	}

	finished := newOrder(t, s, b.ID, base)
	if err := s.FinishOrder(ctx, finished.ID, store.OrderTimedOut, base, 0, ""); err != nil {
		t.Fatal(err)
	}
	if got, err := s.PendingOrders(ctx, 10); err != nil || len(got) != 3 || got[0].ID > got[1].ID || containsOrder(got, finished.ID) {
		t.Fatalf("PendingOrders = %v, %v; want the three pending ones, oldest first", ids(got), err)
	}

	live, gone := newSnapshot(t, s, first), newSnapshot(t, s, newest)
	gone.Status = store.SnapshotDeleted
	if err := s.UpdateSnapshot(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ActiveSnapshots(ctx, 10); err != nil || len(got) != 1 || got[0].ID != live.ID {
		t.Fatalf("ActiveSnapshots = %+v, %v; want only snapshot %d", got, err, live.ID)
	}

	addDueDeliveries(t, s, a, "ov-a", 3, base)
	addDueDeliveries(t, s, b, "ov-b", 1, base.Add(time.Minute))
	ds, err := s.Deliveries(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range ds[:2] {
		d.Status, d.FinishedAt = store.DeliveryDelivered, base.Add(time.Duration(i+1)*time.Hour)
		if err := s.UpdateDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.RecentDeliveries(ctx, 1)
	if err != nil || len(got) != 2 || got[0].ID != ds[2].ID || got[1].ID != ds[1].ID {
		t.Fatalf("RecentDeliveries(1) = %+v, %v; want the pending %s due first, then %s finished last", got, err, ds[2].ID, ds[1].ID)
	}

	for i := range 5 {
		for _, acct := range []int64{a.ID, b.ID} {
			if _, err := s.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: acct, Amount: money.Micros(1_000 * (1 + i)), Kind: store.LedgerPayment,
				CreatedAt: base.Add(time.Duration(i) * time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	points, err := s.BalanceHistory(ctx, []int64{b.ID, a.ID, b.ID}, 3)
	if err != nil || len(points) != 6 {
		t.Fatalf("BalanceHistory = %+v, %v; want three points of each account", points, err)
	}
	for i, p := range points {
		// Each account got 1000, 2000, ... 5000: its last three balances are 6000, 10000, 15000.
		wantAccount, wantBalance := a.ID, money.Micros([]int64{6_000, 10_000, 15_000}[i%3])
		if i >= 3 {
			wantAccount = b.ID
		}
		if p.AccountID != wantAccount || p.Balance != wantBalance || !p.At.Equal(base.Add(time.Duration(2+i%3)*time.Hour)) {
			t.Fatalf("point %d = %+v; want account %d at %v after its entry at %v (its last three, oldest first)",
				i, p, wantAccount, wantBalance, base.Add(time.Duration(2+i%3)*time.Hour))
		}
	}
	if points, err := s.BalanceHistory(ctx, nil, 3); err != nil || len(points) != 0 {
		t.Fatalf("BalanceHistory of no account = %+v, %v", points, err)
	}

	counts, err := s.AccountsWithCounts(ctx, 1)
	if err != nil || len(counts) != 1 || counts[0].Account.ID != a.ID || counts[0].ActiveInstances != 1 ||
		counts[0].Orders.Pending != 2 || counts[0].Account.Balance != 15_000 {
		t.Fatalf("AccountsWithCounts(1) = %+v, %v; want account %d with 1 active server, 2 pending orders, 15000 micro-USD", counts, err, a.ID)
	}
}

func containsOrder(orders []store.Order, id int64) bool {
	for _, o := range orders {
		if o.ID == id {
			return true
		}
	}
	return false
}
