package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// WorkDue follows what the worker loops wait for: nothing on an empty store but the new
// account's wallet, a pending order to poll, then, once it is deployed, the instance's renewal;
// a snapshot being made to poll, then its renewal when it comes before the instance's; a
// pending delivery's next attempt; an ended instance whose machine is still to delete.
func (suite) WorkDue(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "work-due")
	markWalletsChecked(t, s)
	wantWorkDue(t, s, store.WorkDue{})

	o := newOrder(t, s, a.ID, base)
	markWalletsChecked(t, s)
	wantWorkDue(t, s, store.WorkDue{Provisioning: true})

	renewal := base.Add(time.Hour)
	in, err := s.CreateInstance(ctx, store.Instance{AccountID: a.ID, OrderID: o.ID, Name: "w", Hostname: "w", PlanID: 101,
		TemplateID: 1, DatacenterID: 1, LocationID: 11, Status: datacenter.StatusOnline, Active: true, Renew: true,
		MachineRef: "m-w", CredentialsAt: base, CreatedAt: base, RenewalDue: renewal})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FinishOrder(ctx, o.ID, store.OrderDeployed, base, in.ID, ""); err != nil {
		t.Fatal(err)
	}
	markWalletsChecked(t, s)
	wantWorkDue(t, s, store.WorkDue{Renewal: renewal})

	snap := newSnapshot(t, s, in)
	wantWorkDue(t, s, store.WorkDue{Accounts: true, Renewal: renewal})
	snap.Status, snap.RenewalDue = store.SnapshotAvailable, base.Add(30*time.Minute)
	if err := s.UpdateSnapshot(ctx, snap); err != nil {
		t.Fatal(err)
	}
	markWalletsChecked(t, s)
	wantWorkDue(t, s, store.WorkDue{Renewal: snap.RenewalDue})

	next := base.Add(5 * time.Minute)
	if err := s.AddEvent(ctx, store.Event{ID: "evt_due", AccountID: a.ID, Name: "ping", Data: []byte(`{}`), CreatedAt: base}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddDelivery(ctx, store.Delivery{ID: "dlv_due", EventID: "evt_due", AccountID: a.ID, Event: "ping",
		Body: []byte(`{}`), Status: store.DeliveryPending, NextAt: next, CreatedAt: base}); err != nil {
		t.Fatal(err)
	}
	wantWorkDue(t, s, store.WorkDue{Renewal: snap.RenewalDue, Delivery: next})

	in.Active, in.Status = false, store.StatusCanceled
	if err := s.UpdateInstance(ctx, in); err != nil {
		t.Fatal(err)
	}
	markWalletsChecked(t, s)
	wantWorkDue(t, s, store.WorkDue{Accounts: true, Renewal: snap.RenewalDue, Delivery: next})
}

// markWalletsChecked marks every changed wallet as weighed, as the low-balance worker does.
func markWalletsChecked(t *testing.T, s store.Store) {
	t.Helper()
	changed, err := s.ChangedWallets(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changed {
		if err := s.MarkWalletChecked(context.Background(), c.AccountID, c.Seq); err != nil {
			t.Fatal(err)
		}
	}
}

func wantWorkDue(t *testing.T, s store.Store, want store.WorkDue) {
	t.Helper()
	got, err := s.WorkDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Provisioning != want.Provisioning || got.Accounts != want.Accounts || !got.Renewal.Equal(want.Renewal) ||
		!got.Delivery.Equal(want.Delivery) {
		t.Fatalf("work due %+v, want %+v", got, want)
	}
}
