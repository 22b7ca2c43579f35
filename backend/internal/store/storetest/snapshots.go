package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

func newSnapshot(t *testing.T, s store.Queries, in store.Instance) store.Snapshot {
	t.Helper()
	snap, err := s.CreateSnapshot(context.Background(), store.Snapshot{
		AccountID: in.AccountID, InstanceID: in.ID, Name: "snap", Status: store.SnapshotCreating, CreatedAt: base,
		DatacenterID: in.DatacenterID, LocationID: in.LocationID, TemplateID: in.TemplateID, PlanID: in.PlanID,
		OSType: "linux", Architecture: "x86_64", SourceName: in.Name, Features: []int64{1, 2}, Local: true,
		Username: "root", Password: "pw", Port: 22, ImageRef: "img-1",
	})
	if err != nil {
		t.Fatalf("create snapshot: %v", err)
	}
	return snap
}

func (suite) Snapshots(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "snap-key")
	other := newAccount(t, s, "snap-other")
	in := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	first := newSnapshot(t, s, in)
	if !first.SourceActive || first.ID == 0 || first.Features[1] != 2 {
		t.Fatalf("new snapshot = %+v, want an id and an active source", first)
	}
	got, err := s.Snapshot(ctx, a.ID, first.ID)
	if err != nil || !reflect.DeepEqual(got, first) {
		t.Fatalf("round trip:\n got %+v (%v)\nwant %+v", got, err, first)
	}
	if _, err := s.Snapshot(ctx, other.ID, first.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another account's snapshot: %v, want ErrNotFound", err)
	}
	second := newSnapshot(t, s, in)

	changed := first
	changed.Status, changed.SizeGB, changed.Price, changed.Accrued, changed.Paid = store.SnapshotAvailable, 10, 274, 548, 1096
	changed.AvailableAt, changed.RenewalDue, changed.ImageRef, changed.Name, changed.Note = base, base.Add(time.Hour), "img-2", "renamed", "n"
	changed.Locked, changed.LockReason, changed.LockedAt = true, store.LockUnpaid, base
	changed.Next = store.PendingTo(store.SnapshotAvailable, base.Add(time.Minute))
	if err := s.UpdateSnapshot(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SnapshotByID(ctx, first.ID); !reflect.DeepEqual(got, changed) {
		t.Fatalf("after update:\n got %+v\nwant %+v", got, changed)
	}
	gone := second
	gone.Status, gone.ExpiredAt = store.SnapshotFailed, base
	if err := s.UpdateSnapshot(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if list, err := s.Snapshots(ctx, a.ID, false); err != nil || len(list) != 1 || list[0].ID != first.ID {
		t.Fatalf("active snapshots = %+v, %v; want the available one", list, err)
	}
	if list, _ := s.Snapshots(ctx, a.ID, true); len(list) != 2 || list[0].ID != second.ID {
		t.Fatalf("all snapshots = %d, want 2 newest first", len(list))
	}
	if list, _ := s.InstanceSnapshots(ctx, in.ID); len(list) != 2 {
		t.Fatalf("instance snapshots = %d, want 2", len(list))
	}
	if open, _ := s.OpenSnapshots(ctx, 10); len(open) != 0 {
		t.Fatalf("open snapshots = %+v, want none", open)
	}

	if err := s.UnlockSnapshots(ctx, a.ID, store.LockUnpaid); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SnapshotByID(ctx, first.ID); got.Locked || got.LockReason != "" || !got.LockedAt.IsZero() {
		t.Fatalf("after unlock: %+v", got)
	}

	// The source instance going inactive shows in SourceActive.
	in.Active, in.Status, in.ExpiredAt = false, store.StatusCanceled, base
	if err := s.UpdateInstance(ctx, in); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SnapshotByID(ctx, first.ID); got.SourceActive {
		t.Fatal("SourceActive after the instance was canceled")
	}
}

func (suite) SnapshotRenewals(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "snap-renew")
	in := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	snap := newSnapshot(t, s, in)
	if due, _ := s.DueSnapshotRenewals(ctx, base.Add(time.Hour), 10); len(due) != 0 {
		t.Fatalf("a creating snapshot is due: %+v", due)
	}
	snap.Status, snap.RenewalDue = store.SnapshotAvailable, base.Add(time.Hour)
	if err := s.UpdateSnapshot(ctx, snap); err != nil {
		t.Fatal(err)
	}
	if due, _ := s.DueSnapshotRenewals(ctx, base.Add(time.Hour-time.Second), 10); len(due) != 0 {
		t.Fatalf("due before renewal_due: %+v", due)
	}
	due, err := s.DueSnapshotRenewals(ctx, base.Add(time.Hour), 10)
	if err != nil || len(due) != 1 || due[0].ID != snap.ID {
		t.Fatalf("due = %+v, %v", due, err)
	}
	from, to := snap.RenewalDue, snap.RenewalDue.Add(time.Hour)
	if err := s.AdvanceSnapshotRenewal(ctx, snap.ID, from, to); err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceSnapshotRenewal(ctx, snap.ID, from, to); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("advancing the same hour twice: %v, want ErrConflict", err)
	}
	snap.RenewalDue, snap.Status, snap.ExpiredAt = to, store.SnapshotDeleted, base
	if err := s.UpdateSnapshot(ctx, snap); err != nil {
		t.Fatal(err)
	}
	if due, _ := s.DueSnapshotRenewals(ctx, to, 10); len(due) != 0 {
		t.Fatalf("a deleted snapshot is due: %+v", due)
	}
	images, err := s.UndeletedImages(ctx, 10)
	if err != nil || len(images) != 1 || images[0].ID != snap.ID {
		t.Fatalf("undeleted images = %+v, %v", images, err)
	}
	if err := s.MarkImageDeleted(ctx, snap.ID); err != nil {
		t.Fatal(err)
	}
	if images, _ := s.UndeletedImages(ctx, 10); len(images) != 0 {
		t.Fatalf("still undeleted: %+v", images)
	}
}

func (suite) LowBalanceAlerts(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "watch-key")
	b := newAccount(t, s, "watch-other")
	markChecked(t, s) // a new account is evaluated once, as after the upgrade
	if changed, err := s.ChangedWallets(ctx, 10); err != nil || len(changed) != 0 {
		t.Fatalf("changed = %v, %v; want none once checked", changed, err)
	}
	in := newInstance(t, s, a.ID, newOrder(t, s, a.ID, base).ID)
	changed := markChecked(t, s)
	if len(changed) != 1 || changed[0].AccountID != a.ID {
		t.Fatalf("changed = %v; want account %d (an order and an instance)", changed, a.ID)
	}
	in.Name = "renamed"
	if err := s.UpdateInstance(ctx, in); err != nil {
		t.Fatal(err)
	}
	if changed := markChecked(t, s); len(changed) != 0 {
		t.Fatalf("a rename changed wallets %v", changed)
	}
	in.Renew = !in.Renew
	if err := s.UpdateInstance(ctx, in); err != nil {
		t.Fatal(err)
	}
	if changed := markChecked(t, s); len(changed) != 1 || changed[0].AccountID != a.ID {
		t.Fatalf("changed = %v after renew moved; want account %d", changed, a.ID)
	}
	if _, err := s.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: b.ID, Amount: 5, Kind: store.LedgerPayment, CreatedAt: base}); err != nil {
		t.Fatal(err)
	}
	before, err := s.ChangedWallets(ctx, 10)
	if err != nil || len(before) != 1 || before[0].AccountID != b.ID {
		t.Fatalf("changed = %v, %v after a ledger entry; want account %d", before, err, b.ID)
	}
	if _, err := s.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: b.ID, Amount: 5, Kind: store.LedgerPayment, CreatedAt: base}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkWalletChecked(ctx, b.ID, before[0].Seq); err != nil {
		t.Fatal(err)
	}
	if after, _ := s.ChangedWallets(ctx, 10); len(after) != 1 {
		t.Fatalf("a change made while the worker looked was lost: changed = %v", after)
	}

	if err := s.SetLowBalanceAlert(ctx, b.ID, 0, 24); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLowBalanceAlert(ctx, b.ID, 0, 12); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("moving from a level no longer held: %v, want ErrConflict", err)
	}
	if got, _ := s.Account(ctx, b.ID); got.LowBalanceAlert != 24 {
		t.Fatalf("alert level = %d, want 24", got.LowBalanceAlert)
	}
}

// markChecked marks every changed wallet checked and returns what was changed.
func markChecked(t *testing.T, s store.Store) []store.WalletChange {
	t.Helper()
	ctx := context.Background()
	changed, err := s.ChangedWallets(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changed {
		if err := s.MarkWalletChecked(ctx, c.AccountID, c.Seq); err != nil {
			t.Fatal(err)
		}
	}
	return changed
}
