package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// key is the OrderKey of o.
func key(o store.Order) store.OrderKey { return store.OrderKey{ID: o.ID, AccountID: o.AccountID} }

// inTx runs fn in a transaction of s and fails the test on its error.
func inTx(t *testing.T, s store.Store, fn func(tx store.Tx) error) {
	t.Helper()
	if err := s.WithTx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// BatchOrders: one statement claims only the orders of a batch that are pending, not held
// by another worker and named with their own account; releases record tickets of pending
// orders; finishes move every order and its account's counts, and refuse an order finished
// already.
func (suite) BatchOrders(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "batch-orders-a")
	b := newAccount(t, s, "batch-orders-b")
	var os []store.Order
	for range 4 {
		os = append(os, newOrder(t, s, a.ID, base))
	}
	ob := newOrder(t, s, b.ID, base)
	now := base.Add(time.Second)
	if got, err := s.ClaimOrders(ctx, []store.OrderKey{key(os[1])}, now, now.Add(time.Minute)); len(got) != 1 || err != nil {
		t.Fatalf("claim by another worker: %v, %v", got, err)
	}
	if err := s.FinishOrder(ctx, os[2].ID, store.OrderDeployed, now, 0, ""); err != nil {
		t.Fatal(err)
	}
	keys := []store.OrderKey{key(os[0]), key(os[1]), key(os[2]), key(os[3]), {ID: ob.ID, AccountID: a.ID}}
	var claimed []int64
	inTx(t, s, func(tx store.Tx) error {
		var err error
		claimed, err = tx.ClaimOrders(ctx, keys, now, now.Add(time.Minute))
		return err
	})
	slices.Sort(claimed)
	if want := []int64{os[0].ID, os[3].ID}; !slices.Equal(claimed, want) {
		t.Fatalf("claimed %v, want %v: not the held, the finished, nor an order named with another account", claimed, want)
	}
	if got, _ := s.OrderByID(ctx, ob.ID); !got.LeaseUntil.IsZero() {
		t.Fatal("an order named with another account was claimed")
	}
	if again, err := s.ClaimOrders(ctx, keys[:1], now, now.Add(time.Minute)); err != nil || len(again) != 0 {
		t.Fatalf("claimed twice: %v, %v", again, err)
	}

	inTx(t, s, func(tx store.Tx) error {
		return tx.ReleaseOrders(ctx, []store.OrderRelease{{OrderKey: key(os[0]), Ticket: "t-0"}, {OrderKey: key(os[3])},
			{OrderKey: key(os[2]), Ticket: "late"}})
	})
	for i, want := range []string{"t-0", "", "", ""} {
		if got, _ := s.OrderByID(ctx, os[i].ID); got.Ticket != want || (i != 1 && !got.LeaseUntil.IsZero()) {
			t.Fatalf("order %d after release: ticket %q lease %v, want ticket %q and no lease", i, got.Ticket, got.LeaseUntil, want)
		}
	}
	if err := s.ReleaseOrders(ctx, []store.OrderRelease{{OrderKey: store.OrderKey{ID: ob.ID + 1000, AccountID: b.ID}}}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("release of a missing order: %v, want ErrNotFound", err)
	}

	later := now.Add(time.Minute)
	inTx(t, s, func(tx store.Tx) error {
		return tx.FinishOrders(ctx, []store.OrderFinish{
			{OrderKey: key(os[0]), Status: store.OrderDeployed},
			{OrderKey: key(os[3]), Status: store.OrderTimedOut, Reference: "REF-3"},
		}, later)
	})
	if got, _ := s.OrderByID(ctx, os[3].ID); got.Status != store.OrderTimedOut || got.Reference != "REF-3" || !got.FinishedAt.Equal(later) {
		t.Fatalf("timed-out order = %+v", got)
	}
	if totals, _ := s.OrderTotals(ctx, a.ID); totals.Pending != 1 || totals.Reserved != 4_000 {
		t.Fatalf("account totals %+v, want the one order still pending (the held one)", totals)
	}
	err := s.WithTx(ctx, func(tx store.Tx) error {
		return tx.FinishOrders(ctx, []store.OrderFinish{{OrderKey: key(ob), Status: store.OrderDeployed},
			{OrderKey: key(os[0]), Status: store.OrderTimedOut}}, later)
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("finishing a finished order in a batch: %v, want ErrConflict", err)
	}
	if got, _ := s.OrderByID(ctx, ob.ID); got.Status != store.OrderPending {
		t.Fatalf("the batch that failed left order %d %s", ob.ID, got.Status)
	}
}

// BatchDeploy: the accounts of a batch are read at once; charges move every balance and
// debt by their sum; new instances take the next places of their accounts in the order given;
// events keep their order; and only accounts with a webhook have one.
func (suite) BatchDeploy(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "batch-deploy-a")
	b := newAccount(t, s, "batch-deploy-b")
	first := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	markChecked(t, s)
	inTx(t, s, func(tx store.Tx) error {
		accts, err := tx.LockAccounts(ctx, []int64{b.ID, a.ID, b.ID, b.ID + 1000})
		if err != nil {
			return err
		}
		if len(accts) != 2 || accts[a.ID].KeyHint != a.KeyHint || accts[b.ID].ID != b.ID {
			t.Errorf("locked accounts %+v, want a and b", accts)
		}
		return tx.AddLedgerEntries(ctx, []store.LedgerEntry{
			{AccountID: a.ID, Amount: 10_000, Kind: "payment", CreatedAt: base},
			{AccountID: b.ID, Amount: 0, Debt: 4_000, Kind: store.LedgerOrder, Reference: "order:2", CreatedAt: base},
			{AccountID: a.ID, Amount: -4_000, Kind: store.LedgerOrder, Reference: "order:1", CreatedAt: base},
		})
	})
	for _, w := range []struct {
		id            int64
		balance, debt int64
		entries       int
	}{{a.ID, 6_000, 0, 2}, {b.ID, 0, 4_000, 1}} {
		got, _ := s.Account(ctx, w.id)
		sum, _ := s.LedgerSum(ctx, w.id)
		entries, _ := s.LedgerEntries(ctx, w.id)
		if int64(got.Balance) != w.balance || int64(got.Debt) != w.debt || sum != got.Balance || len(entries) != w.entries {
			t.Fatalf("account %d: balance %v debt %v ledger sum %v with %d entries; want %d, %d and %d entries",
				w.id, got.Balance, got.Debt, sum, len(entries), w.balance, w.debt, w.entries)
		}
	}
	// The low-balance worker hears of both wallets' change.
	if changed := markChecked(t, s); len(changed) != 2 {
		t.Fatalf("%d wallets changed after a batch of charges to 2 accounts, want 2: %+v", len(changed), changed)
	}

	mk := func(acct int64, name string) store.Instance {
		return store.Instance{AccountID: acct, OrderID: newOrder(t, s, acct, base).ID, Name: name, Hostname: name, PlanID: 101,
			TemplateID: 1, DatacenterID: 1, LocationID: 11, Features: []int64{1}, Status: datacenter.StatusOnline,
			Active: true, Renew: true, CreatedAt: base, RenewalDue: base.Add(time.Hour), Paid: 4_000}
	}
	batch := []store.Instance{mk(a.ID, "a-2"), mk(b.ID, "b-1"), mk(a.ID, "a-3")}
	var made []store.Instance
	inTx(t, s, func(tx store.Tx) error {
		var err error
		made, err = tx.CreateInstances(ctx, batch)
		return err
	})
	for _, in := range made {
		got, err := s.InstanceByID(ctx, in.ID)
		if err != nil || got.Name != in.Name || got.AccountID != in.AccountID {
			t.Fatalf("instance %d %q read back as %q of %d, %v", in.ID, in.Name, got.Name, got.AccountID, err)
		}
	}
	want := []int64{made[2].ID, made[0].ID, first.ID} // newest first
	for offset, id := range want {
		page, total, err := s.Instances(ctx, a.ID, false, store.Page{Limit: 1, Offset: offset})
		if err != nil || total != 3 || len(page) != 1 || page[0].ID != id {
			t.Fatalf("a's instance at %d: %v of %d (%v), want %d", offset, ids2(page), total, err, id)
		}
	}
	if c, _ := s.AccountCounts(ctx, b.ID); c.ActiveInstances != 1 {
		t.Fatalf("b has %d active instances, want 1", c.ActiveInstances)
	}

	events := []store.Event{
		{ID: "evt_batch_1", AccountID: a.ID, Name: "order.deployed", Data: []byte(`{"n":1}`), CreatedAt: base},
		{ID: "evt_batch_2", AccountID: b.ID, Name: "order.deployed", Data: []byte(`{"n":2}`), CreatedAt: base},
		{ID: "evt_batch_3", AccountID: a.ID, Name: "order.timed_out", Data: []byte(`{"n":3}`), CreatedAt: base},
	}
	inTx(t, s, func(tx store.Tx) error { return tx.AddEvents(ctx, events) })
	if got, _ := s.Events(ctx, a.ID); len(got) != 2 || got[0].ID != "evt_batch_1" || got[1].ID != "evt_batch_3" || string(got[1].Data) != `{"n":3}` {
		t.Fatalf("a's events %+v, want 1 then 3", got)
	}
	if err := s.SetWebhook(ctx, store.Webhook{AccountID: b.ID, URL: "https://b.example/hook", Secret: "s", UpdatedAt: base}); err != nil {
		t.Fatal(err)
	}
	hooks, err := s.Webhooks(ctx, []int64{a.ID, b.ID})
	if err != nil || len(hooks) != 1 || hooks[b.ID].URL != "https://b.example/hook" {
		t.Fatalf("webhooks %+v, %v; want b's alone", hooks, err)
	}
	testBatchInstallsAndDeliveries(t, s, made, a, b)
}

// testBatchInstallsAndDeliveries queues apps on three instances of a batch, one of which has an
// install queued already, and writes deliveries of two accounts, each with one statement.
func testBatchInstallsAndDeliveries(t *testing.T, s store.Store, made []store.Instance, a, b store.Account) {
	ctx := context.Background()
	queued := func(in int64, app string) store.AppInstall {
		return store.AppInstall{InstanceID: in, AppID: app, Status: store.InstallQueued, Stage: store.StageWaiting,
			Inputs: map[string]string{"app": app}, Result: map[string]string{}, QueuedAt: base, NextAt: base}
	}
	if _, err := s.AddAppInstall(ctx, queued(made[1].ID, "docker")); err != nil {
		t.Fatal(err)
	}
	inTx(t, s, func(tx store.Tx) error {
		return tx.AddAppInstalls(ctx, []store.AppInstall{queued(made[0].ID, "docker"), queued(made[1].ID, "mysql"),
			queued(made[0].ID, "wordpress"), queued(made[2].ID, "nginx"), queued(made[1].ID, "redis")})
	})
	for in, want := range map[int64][]string{made[0].ID: {"docker", "wordpress"}, made[1].ID: {"docker", "mysql", "redis"},
		made[2].ID: {"nginx"}} {
		got, err := s.AppInstalls(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		var apps []string
		for i, ai := range got {
			if ai.Position != i+1 || ai.Inputs["app"] != ai.AppID || ai.Status != store.InstallQueued {
				t.Fatalf("instance %d: install %d is %+v, want %s queued at position %d", in, i, ai, ai.AppID, i+1)
			}
			apps = append(apps, ai.AppID)
		}
		if !slices.Equal(apps, want) {
			t.Fatalf("instance %d queues %v, want %v", in, apps, want)
		}
	}

	// One delivery per event (evt_batch_1 and 3 are a's, 2 is b's).
	delivery := func(n string, acct int64) store.Delivery {
		return store.Delivery{ID: "dlv_batch_" + n, EventID: "evt_batch_" + n, AccountID: acct, Event: "order.deployed",
			Body: []byte(`{"n":` + n + `}`), Status: store.DeliveryPending, NextAt: base, CreatedAt: base}
	}
	inTx(t, s, func(tx store.Tx) error {
		return tx.AddDeliveries(ctx, []store.Delivery{delivery("1", a.ID), delivery("2", b.ID)})
	})
	err := s.WithTx(ctx, func(tx store.Tx) error {
		return tx.AddDeliveries(ctx, []store.Delivery{delivery("3", a.ID), delivery("2", b.ID)})
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a batch with a delivery that exists: %v, want ErrConflict", err)
	}
	for acct, want := range map[int64]string{a.ID: "dlv_batch_1", b.ID: "dlv_batch_2"} {
		if got, err := s.Deliveries(ctx, acct); err != nil || len(got) != 1 || got[0].ID != want {
			t.Fatalf("account %d has the deliveries %+v (%v), want %s alone (the refused batch wrote nothing)", acct, got, err, want)
		}
	}
}

// ids2 are the ids of instances.
func ids2(ins []store.Instance) []int64 {
	out := make([]int64, len(ins))
	for i, in := range ins {
		out[i] = in.ID
	}
	return out
}
