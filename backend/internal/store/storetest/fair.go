package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// addDueDeliveries adds n pending deliveries of a's, due at at, with ids prefixed by prefix.
func addDueDeliveries(t *testing.T, s store.Store, a store.Account, prefix string, n int, at time.Time) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		id := fmt.Sprintf("%s_%d", prefix, i)
		if err := s.AddEvent(ctx, store.Event{ID: "evt_" + id, AccountID: a.ID, Name: "ping", Data: []byte(`{}`), CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddDelivery(ctx, store.Delivery{ID: "dlv_" + id, EventID: "evt_" + id, AccountID: a.ID, Event: "ping",
			Body: []byte(`{}`), Status: store.DeliveryPending, NextAt: at, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
}

// DeliveriesExceptBusyAccounts: the deliveries of skipped accounts are left out, so a later account's
// deliveries fill the batch even behind a backlog of earlier ones.
func (suite) DeliveriesExceptBusyAccounts(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b, c := newAccount(t, s, "fair-a"), newAccount(t, s, "fair-b"), newAccount(t, s, "fair-c")
	addDueDeliveries(t, s, a, "a", 5, base)
	addDueDeliveries(t, s, c, "c", 2, base.Add(time.Second))
	addDueDeliveries(t, s, b, "b", 2, base.Add(2*time.Second))
	now := base.Add(time.Minute)
	if due, err := s.DueDeliveriesExcept(ctx, now, 3, nil); err != nil || len(due) != 3 || due[2].AccountID != a.ID {
		t.Fatalf("no skip: %+v, %v; want a's three first", due, err)
	}
	due, err := s.DueDeliveriesExcept(ctx, now, 3, []int64{a.ID})
	if err != nil || len(due) != 3 || due[0].AccountID != c.ID || due[1].AccountID != c.ID || due[2].AccountID != b.ID {
		t.Fatalf("skipping a: %+v, %v; want c's two, then b's first", due, err)
	}
	if due, err := s.DueDeliveriesExcept(ctx, now, 10, []int64{a.ID, c.ID}); err != nil || len(due) != 2 || due[0].AccountID != b.ID {
		t.Fatalf("skipping a and c: %+v, %v; want b's two", due, err)
	}
}
