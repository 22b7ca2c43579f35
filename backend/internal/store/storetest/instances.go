package storetest

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

func (suite) LedgerMovesDebt(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "debt-key")
	for _, e := range []store.LedgerEntry{
		{AccountID: a.ID, Amount: 5_000, Kind: "payment", CreatedAt: base},
		{AccountID: a.ID, Amount: -5_000, Debt: 3_000, Kind: "renewal", CreatedAt: base},
		{AccountID: a.ID, Amount: 0, Debt: -1_000, Kind: "debt_payment", CreatedAt: base},
	} {
		if _, err := s.AddLedgerEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Account(ctx, a.ID)
	entries, err := s.LedgerEntries(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Balance != 0 || got.Debt != 2_000 || len(entries) != 3 || entries[1].Debt != 3_000 || entries[1].Kind != "renewal" {
		t.Fatalf("balance %v debt %v entries %+v; want 0, 2000 and the three entries in order", got.Balance, got.Debt, entries)
	}
	if _, err := s.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: a.ID, Debt: -5_000, Kind: "x", CreatedAt: base}); err == nil {
		t.Fatal("debt below zero was accepted")
	}
}

// newOrder writes a pending order of the account, whatever its limits and wallet (insertOrder).
func newOrder(t *testing.T, s store.Store, accountID int64, created time.Time) store.Order {
	t.Helper()
	return insertOrder(t, s, store.Order{
		AccountID: accountID, Status: store.OrderPending, Price: 4_000, CreatedAt: created, PlanID: 101, TemplateID: 1,
		Hostname: "web-1", Features: []int64{1, 3}, Apps: []string{"mysql", "wordpress"},
		AppInputs: map[string]map[string]string{"wordpress": {"DOMAIN": "x.example"}},
	})
}

func (suite) OrdersRoundTrip(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "orders-key")
	other := newAccount(t, s, "orders-other")
	o := newOrder(t, s, a.ID, base)
	got, err := s.Order(ctx, a.ID, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, o) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, o)
	}
	if _, err := s.Order(ctx, other.ID, o.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another account's order: %v, want ErrNotFound", err)
	}
	if byID, err := s.OrderByID(ctx, o.ID); err != nil || byID.ID != o.ID {
		t.Fatalf("OrderByID: %+v, %v", byID, err)
	}
	old := newOrder(t, s, a.ID, base)
	if err := s.FinishOrder(ctx, old.ID, store.OrderTimedOut, base.Add(time.Minute), 0, "REF"); err != nil {
		t.Fatal(err)
	}
	newer := newOrder(t, s, a.ID, base.Add(time.Hour))
	recent, err := s.RecentOrders(ctx, a.ID, base.Add(time.Minute), math.MaxInt64, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 2 || recent[0].ID != newer.ID || recent[1].ID != o.ID {
		t.Fatalf("recent = %v; want the two pending orders newest first, not the one finished at the cut", ids(recent))
	}
	recent, _ = s.RecentOrders(ctx, a.ID, base, math.MaxInt64, 10)
	if len(recent) != 3 || recent[1].Reference != "REF" || recent[1].Status != store.OrderTimedOut {
		t.Fatalf("recent since base = %+v", recent)
	}
	first, _ := s.RecentOrders(ctx, a.ID, base, math.MaxInt64, 2)
	rest, _ := s.RecentOrders(ctx, a.ID, base, first[len(first)-1].ID, 2)
	if got := append(ids(first), ids(rest)...); !reflect.DeepEqual(got, ids(recent)) {
		t.Fatalf("read in chunks of 2: %v, want %v", got, ids(recent))
	}
}

func ids(orders []store.Order) []int64 {
	var out []int64
	for _, o := range orders {
		out = append(out, o.ID)
	}
	return out
}

func (suite) OrderLeasesAndGuardedFinish(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "lease-key")
	o := newOrder(t, s, a.ID, base)
	now := base.Add(time.Second)
	due, err := s.DueOrders(ctx, now, 10)
	if err != nil || len(due) != 1 {
		t.Fatalf("due = %v, %v; want the order", ids(due), err)
	}
	claim := func(now time.Time) bool { // one worker's claim of o
		t.Helper()
		got, err := s.ClaimOrders(ctx, []store.OrderKey{key(o)}, now, now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		return len(got) == 1
	}
	release := func(ticket string) {
		t.Helper()
		if err := s.ReleaseOrders(ctx, []store.OrderRelease{{OrderKey: key(o), Ticket: ticket}}); err != nil {
			t.Fatal(err)
		}
	}
	if !claim(now) {
		t.Fatal("the first claim failed")
	}
	if claim(now) {
		t.Fatal("a second worker claimed a leased order")
	}
	if due, _ := s.DueOrders(ctx, now, 10); len(due) != 0 {
		t.Fatalf("a leased order is due: %v", ids(due))
	}
	later := now.Add(time.Minute)
	if !claim(later) {
		t.Fatal("an expired lease could not be taken over")
	}
	release("ticket-1")
	if got, _ := s.OrderByID(ctx, o.ID); got.Ticket != "ticket-1" || !got.LeaseUntil.IsZero() {
		t.Fatalf("ticket %q lease %v", got.Ticket, got.LeaseUntil)
	}
	if err := s.FinishOrder(ctx, o.ID, store.OrderDeployed, later, 0, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishOrder(ctx, o.ID, store.OrderTimedOut, later, 0, "X"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("finishing twice: %v, want ErrConflict", err)
	}
	release("late")
	if got, _ := s.OrderByID(ctx, o.ID); got.Ticket != "ticket-1" {
		t.Fatalf("the ticket of a finished order became %q, want ticket-1 kept", got.Ticket)
	}
	if claim(later.Add(time.Hour)) {
		t.Fatal("a finished order was claimed")
	}
	if totals, _ := s.OrderTotals(ctx, a.ID); totals.Pending != 0 || totals.Reserved != 0 {
		t.Fatalf("totals %+v after the order finished, want nothing reserved", totals)
	}
}

func (suite) IdempotencyKeys(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "idem-key")
	o := newOrder(t, s, a.ID, base)
	k := store.IdempotencyKey{AccountID: a.ID, Key: "k-1", RequestHash: "abc", OrderID: o.ID, CreatedAt: base}
	expiredBefore := base.Add(-time.Second)
	if err := s.AddIdempotencyKey(ctx, k, expiredBefore); err != nil {
		t.Fatal(err)
	}
	if err := s.AddIdempotencyKey(ctx, k, expiredBefore); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate key: %v, want ErrConflict", err)
	}
	got, err := s.IdempotencyKey(ctx, a.ID, "k-1")
	if err != nil || got != k {
		t.Fatalf("got %+v, %v; want %+v", got, err, k)
	}
	if _, err := s.IdempotencyKey(ctx, a.ID+1, "k-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another account's key: %v, want ErrNotFound", err)
	}
	if n, err := s.DeleteIdempotencyKeys(ctx, base.Add(-time.Second)); err != nil || n != 0 {
		t.Fatalf("deleted %d, %v before the key was made", n, err)
	}
	if n, err := s.DeleteIdempotencyKeys(ctx, base); err != nil || n != 1 {
		t.Fatalf("deleted %d, %v at its creation time, want 1", n, err)
	}
	testExpiredIdempotencyKeyTaken(t, s, a.ID, o.ID)
}

// testExpiredIdempotencyKeyTaken shows that AddIdempotencyKey takes over an expired record of
// the same key, not yet purged, and leaves another account's key and an unexpired one alone.
func testExpiredIdempotencyKeyTaken(t *testing.T, s store.Store, accountID, orderID int64) {
	ctx := context.Background()
	other := newAccount(t, s, "idem-key-other")
	otherOrder := newOrder(t, s, other.ID, base)
	old := store.IdempotencyKey{AccountID: accountID, Key: "k-2", RequestHash: "old", OrderID: orderID, CreatedAt: base}
	theirs := store.IdempotencyKey{AccountID: other.ID, Key: "k-2", RequestHash: "theirs", OrderID: otherOrder.ID, CreatedAt: base}
	for _, k := range []store.IdempotencyKey{old, theirs} {
		if err := s.AddIdempotencyKey(ctx, k, base.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	later := base.Add(24 * time.Hour)
	next := newOrder(t, s, accountID, later)
	renewed := store.IdempotencyKey{AccountID: accountID, Key: "k-2", RequestHash: "new", OrderID: next.ID, CreatedAt: later}
	if err := s.AddIdempotencyKey(ctx, renewed, base.Add(-time.Second)); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("key not yet expired taken: %v, want ErrConflict", err)
	}
	if err := s.AddIdempotencyKey(ctx, renewed, base); err != nil {
		t.Fatalf("expired key: %v, want it taken", err)
	}
	if got, err := s.IdempotencyKey(ctx, accountID, "k-2"); err != nil || got != renewed {
		t.Fatalf("got %+v, %v; want %+v", got, err, renewed)
	}
	if got, err := s.IdempotencyKey(ctx, other.ID, "k-2"); err != nil || got != theirs {
		t.Fatalf("another account's key: %+v, %v; want %+v, untouched", got, err, theirs)
	}
}

func newInstance(t *testing.T, s store.Queries, accountID int64, orderID int64) store.Instance {
	t.Helper()
	in, err := s.CreateInstance(context.Background(), store.Instance{
		AccountID: accountID, OrderID: orderID, Name: "web-1", Hostname: "web-1", PlanID: 101, TemplateID: 1,
		DatacenterID: 1, LocationID: 11, Features: []int64{1}, Status: datacenter.StatusOnline, Active: true, Renew: true,
		MachineRef: "vm-1", IPv4: "192.0.2.1", IPv6: "2001:db8::1", Username: "root", Password: "pw", Port: 22,
		CredentialsAt: base, CreatedAt: base, RenewalDue: base.Add(time.Hour), Paid: 4_000,
	})
	if err != nil {
		t.Fatalf("create instance: %v", err)
	}
	return in
}

func (suite) Instances(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "inst-key")
	other := newAccount(t, s, "inst-other")
	var made []store.Instance
	for range 3 {
		made = append(made, newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID))
	}
	got, err := s.Instance(ctx, a.ID, made[0].ID)
	if err != nil || !reflect.DeepEqual(got, made[0]) {
		t.Fatalf("round trip:\n got %+v (%v)\nwant %+v", got, err, made[0])
	}
	if _, err := s.Instance(ctx, other.ID, made[0].ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another account's instance: %v, want ErrNotFound", err)
	}
	if _, err := s.CreateInstance(ctx, store.Instance{AccountID: a.ID, OrderID: made[0].OrderID, Name: "x", Hostname: "x",
		CredentialsAt: base, CreatedAt: base, RenewalDue: base, MachineRef: "vm-x", Status: "online"}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second instance of one order: %v, want ErrConflict", err)
	}
	changed := made[1]
	changed.Active, changed.Status, changed.ExpiredAt, changed.Locked, changed.LockReason = false, store.StatusCanceled, base, true, store.LockDeletion
	changed.Name, changed.Note, changed.Features, changed.LastIPChange = "renamed", "note", []int64{1, 2}, base.Add(time.Minute)
	changed.Next = store.PendingTo("offline", base.Add(2*time.Minute))
	included, allow := 7, false
	changed.TrafficUsedGB, changed.TrafficIncludedGB, changed.TrafficAllowOverage = 9, &included, &allow
	changed.TrafficCycle, changed.TrafficCycleBase, changed.TrafficBilledGB = base.Add(3*time.Minute), 12_345_678_901, 2
	if err := s.UpdateInstance(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.InstanceByID(ctx, changed.ID); !reflect.DeepEqual(got, changed) {
		t.Fatalf("after update:\n got %+v\nwant %+v", got, changed)
	}
	active, total, err := s.Instances(ctx, a.ID, true, store.All)
	if err != nil || total != 2 || len(active) != 2 || active[0].ID != made[2].ID {
		t.Fatalf("active: %d of %d, %v; want 2 newest first", len(active), total, err)
	}
	page, total, _ := s.Instances(ctx, a.ID, false, store.Page{Limit: 1, Offset: 1})
	if total != 3 || len(page) != 1 || page[0].ID != made[1].ID {
		t.Fatalf("page: %+v of %d", page, total)
	}
	if _, n, _ := s.Instances(ctx, a.ID, true, store.Page{Limit: 0}); n != 2 {
		t.Fatalf("count only: %d, want 2", n)
	}
	gone, err := s.UndeletedMachines(ctx, 10)
	if err != nil || len(gone) != 1 || gone[0].ID != changed.ID {
		t.Fatalf("undeleted machines = %+v, %v; want the canceled one", gone, err)
	}
	if err := s.MarkMachineDeleted(ctx, changed.ID); err != nil {
		t.Fatal(err)
	}
	if gone, _ := s.UndeletedMachines(ctx, 10); len(gone) != 0 {
		t.Fatalf("still undeleted: %+v", gone)
	}
	locked := made[2]
	locked.Locked, locked.LockReason, locked.LockedAt = true, store.LockDebt, base
	if err := s.UpdateInstance(ctx, locked); err != nil {
		t.Fatal(err)
	}
	if err := s.UnlockInstances(ctx, a.ID, store.LockDebt); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.InstanceByID(ctx, locked.ID); got.Locked || got.LockReason != "" || !got.LockedAt.IsZero() {
		t.Fatalf("after unlock: %+v", got)
	}
	if got, _ := s.InstanceByID(ctx, changed.ID); !got.Locked {
		t.Fatal("UnlockInstances unlocked an instance locked for another reason")
	}
}

// ActiveInstances: the traffic worker's read lists the active instances by id, a page at a
// time, and never an ended one.
func (suite) ActiveInstances(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "live-key")
	var made []store.Instance
	for range 3 {
		made = append(made, newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID))
	}
	ended := made[1]
	ended.Active, ended.Status = false, store.StatusCanceled
	if err := s.UpdateInstance(ctx, ended); err != nil {
		t.Fatal(err)
	}
	first, err := s.ActiveInstancesAfter(ctx, 0, 1)
	if err != nil || len(first) != 1 || first[0].ID != made[0].ID {
		t.Fatalf("first page = %+v, %v; want instance %d", first, err, made[0].ID)
	}
	rest, err := s.ActiveInstancesAfter(ctx, first[0].ID, 10)
	if err != nil || len(rest) != 1 || rest[0].ID != made[2].ID {
		t.Fatalf("after %d = %+v, %v; want instance %d alone (%d has ended)", first[0].ID, rest, err, made[2].ID, ended.ID)
	}
}

func (suite) Renewals(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "renew-key")
	early := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	late := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	late.RenewalDue = base.Add(2 * time.Hour)
	if err := s.UpdateInstance(ctx, late); err != nil {
		t.Fatal(err)
	}
	due, err := s.DueRenewals(ctx, base.Add(time.Hour), 10)
	if err != nil || len(due) != 1 || due[0].ID != early.ID {
		t.Fatalf("due at 1h = %+v, %v; want the early one", due, err)
	}
	if due, _ := s.DueRenewals(ctx, base.Add(2*time.Hour), 10); len(due) != 2 || due[0].ID != early.ID {
		t.Fatalf("due at 2h = %d, want both, earliest first", len(due))
	}
	from, to := early.RenewalDue, early.RenewalDue.Add(time.Hour)
	if err := s.AdvanceRenewal(ctx, early.ID, from, to); err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceRenewal(ctx, early.ID, from, to); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("advancing the same hour twice: %v, want ErrConflict", err)
	}
	if got, _ := s.InstanceByID(ctx, early.ID); !got.RenewalDue.Equal(to) {
		t.Fatalf("renewal_due = %v, want %v", got.RenewalDue, to)
	}
}

// RenewingInstancesByPlanAndFeatures: the account's active instances with renew on, counted by plan and
// features, in that order; another account's, a stopped renewal and an inactive server are not.
func (suite) RenewingInstancesByPlanAndFeatures(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "renewing-key")
	other := newAccount(t, s, "renewing-other")
	newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	newInstance(t, s, other.ID, newOrder(t, s, other.ID, base).ID)
	for _, change := range []func(*store.Instance){
		func(in *store.Instance) { in.PlanID, in.Features = 102, []int64{1, 2} },
		func(in *store.Instance) { in.Renew = false },
		func(in *store.Instance) { in.Active = false },
	} {
		in := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
		change(&in)
		if err := s.UpdateInstance(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.RenewingInstances(ctx, a.ID)
	want := []store.RenewingGroup{{PlanID: 101, Features: []int64{1}, Count: 2}, {PlanID: 102, Features: []int64{1, 2}, Count: 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("renewing instances: got %+v (%v), want %+v", got, err, want)
	}
}

// wantInstanceWithInstalls checks that InstanceWithInstalls reads what Instance and AppInstalls
// read, and returns the installs.
func wantInstanceWithInstalls(t *testing.T, s store.Store, accountID, id int64) []store.AppInstall {
	t.Helper()
	ctx := context.Background()
	in, installs, err := s.InstanceWithInstalls(ctx, accountID, id)
	if err != nil {
		t.Fatal(err)
	}
	wantIn, err1 := s.Instance(ctx, accountID, id)
	wantInstalls, err2 := s.AppInstalls(ctx, id)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !reflect.DeepEqual(in, wantIn) || len(installs) != len(wantInstalls) ||
		(len(installs) > 0 && !reflect.DeepEqual(installs, wantInstalls)) {
		t.Fatalf("InstanceWithInstalls = %+v, %+v; want %+v, %+v", in, installs, wantIn, wantInstalls)
	}
	return installs
}

func (suite) AppInstalls(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "apps-key")
	in := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	wantInstanceWithInstalls(t, s, a.ID, in.ID)
	var made []store.AppInstall
	for _, app := range []string{"mysql", "wordpress"} {
		ai, err := s.AddAppInstall(ctx, store.AppInstall{InstanceID: in.ID, AppID: app, Status: store.InstallQueued,
			Stage: store.StageWaiting, Inputs: map[string]string{"K": "v"}, QueuedAt: base, NextAt: base})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, ai)
	}
	if made[0].Position != 1 || made[1].Position != 2 {
		t.Fatalf("positions %d, %d; want 1, 2", made[0].Position, made[1].Position)
	}
	if installs := wantInstanceWithInstalls(t, s, a.ID, in.ID); len(installs) != 2 {
		t.Fatalf("InstanceWithInstalls read %d installs, want 2", len(installs))
	}
	if _, _, err := s.InstanceWithInstalls(ctx, a.ID+1, in.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another account's instance: %v, want ErrNotFound", err)
	}
	open, err := s.OpenAppInstalls(ctx, 10)
	if err != nil || len(open) != 2 || open[0].AppID != "mysql" || open[0].Inputs["K"] != "v" {
		t.Fatalf("open = %+v, %v", open, err)
	}
	now := base.Add(time.Second)
	if ok, _ := s.ClaimAppInstall(ctx, made[0].ID, now, now.Add(time.Minute)); !ok {
		t.Fatal("claim failed")
	}
	if ok, _ := s.ClaimAppInstall(ctx, made[0].ID, now, now.Add(time.Minute)); ok {
		t.Fatal("claimed twice")
	}
	done := made[0]
	done.Status, done.Stage, done.Attempts, done.StartedAt, done.FinishedAt = store.InstallInstalled, store.StageDone, 1, now, now
	done.Result, done.LogTail, done.NextAt = map[string]string{"url": "http://x/"}, "ok", now
	if err := s.UpdateAppInstall(ctx, done); err != nil {
		t.Fatal(err)
	}
	all, _ := s.AppInstalls(ctx, in.ID)
	if len(all) != 2 || !reflect.DeepEqual(all[0], done) {
		t.Fatalf("after update:\n got %+v\nwant %+v", all[0], done)
	}
	if open, _ := s.OpenAppInstalls(ctx, 10); len(open) != 1 || open[0].AppID != "wordpress" {
		t.Fatalf("open after install = %+v", open)
	}
	if err := s.DeleteAppInstalls(ctx, in.ID); err != nil {
		t.Fatal(err)
	}
	if all, _ := s.AppInstalls(ctx, in.ID); len(all) != 0 {
		t.Fatalf("%d installs after delete", len(all))
	}
}

func (suite) Events(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "events-key")
	for i, name := range []string{"order.deployed", "instance.canceled"} {
		e := store.Event{ID: "evt_" + name, AccountID: a.ID, Name: name, Data: []byte(`{"n":1}`), CreatedAt: base.Add(time.Duration(i) * time.Second)}
		if err := s.AddEvent(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddEvent(ctx, store.Event{ID: "evt_order.deployed", AccountID: a.ID, Name: "x", Data: []byte(`{}`), CreatedAt: base}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate event id: %v, want ErrConflict", err)
	}
	evs, err := s.Events(ctx, a.ID)
	if err != nil || len(evs) != 2 || evs[0].Name != "order.deployed" || string(evs[1].Data) != `{"n":1}` {
		t.Fatalf("events = %+v, %v", evs, err)
	}
}

// InstancePages reads every page of seven instances, two of them ended, with and without
// onlyActive: each must be the same slice of the newest-first list, whichever end the store
// reads it from, with the total kept right through the updates that end instances.
func (suite) InstancePages(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "pages-key")
	other := newAccount(t, s, "pages-other-key") // its instances, in between, must not shift a's pages
	var all, active []int64
	for i := range 7 {
		newInstance(t, s, other.ID, newOrder(t, s, other.ID, base).ID)
		in := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
		if i == 1 || i == 4 {
			in.Active, in.Status = false, store.StatusCanceled
			if err := s.UpdateInstance(ctx, in); err != nil {
				t.Fatal(err)
			}
			if err := s.UpdateInstance(ctx, in); err != nil { // a second write must not count twice
				t.Fatal(err)
			}
		} else {
			active = append([]int64{in.ID}, active...)
		}
		all = append([]int64{in.ID}, all...)
	}
	for _, onlyActive := range []bool{false, true} {
		want := all
		if onlyActive {
			want = active
		}
		for offset := 0; offset <= len(want)+1; offset++ {
			for limit := -1; limit <= len(want)+1; limit++ {
				page, total, err := s.Instances(ctx, a.ID, onlyActive, store.Page{Limit: limit, Offset: offset})
				if err != nil {
					t.Fatal(err)
				}
				end := len(want)
				if limit >= 0 {
					end = min(offset+limit, len(want))
				}
				wantPage := []int64{}
				if offset < len(want) {
					wantPage = want[offset:end]
				}
				got := []int64{}
				for _, in := range page {
					got = append(got, in.ID)
				}
				if total != len(want) || !reflect.DeepEqual(got, wantPage) {
					t.Fatalf("onlyActive %v, limit %d, offset %d: %v of %d; want %v of %d", onlyActive, limit, offset, got, total, wantPage, len(want))
				}
			}
		}
	}
}

// OrderInstances reads the servers of a chunk of orders: the account's instances of the ids
// asked for, another account's left out, each with its installs in position order.
func (suite) OrderInstances(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "order-servers")
	other := newAccount(t, s, "order-servers-other")
	first := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	second := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	foreign := newInstance(t, s, other.ID, newOrder(t, s, other.ID, base).ID)
	for _, app := range []string{"mysql", "wordpress"} {
		if _, err := s.AddAppInstall(ctx, store.AppInstall{InstanceID: second.ID, AppID: app, Status: store.InstallQueued,
			Stage: store.StageWaiting, QueuedAt: base, NextAt: base}); err != nil {
			t.Fatal(err)
		}
	}
	instances, installs, err := s.OrderInstances(ctx, a.ID, []int64{first.ID, second.ID, foreign.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(instances) != 2 || instances[first.ID].ID != first.ID || instances[second.ID].ID != second.ID {
		t.Fatalf("instances %v, want %d and %d only", instances, first.ID, second.ID)
	}
	if got := installs[second.ID]; len(got) != 2 || got[0].AppID != "mysql" || got[1].AppID != "wordpress" || len(installs) != 1 {
		t.Fatalf("installs %+v, want mysql then wordpress of instance %d only", installs, second.ID)
	}
	if instances, installs, err := s.OrderInstances(ctx, a.ID, nil); err != nil || len(instances) != 0 || len(installs) != 0 {
		t.Fatalf("no ids: %v, %v, %v", instances, installs, err)
	}
}
