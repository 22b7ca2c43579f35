package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Retention: each purge deletes at most its limit, oldest first, only rows past the cutoff:
// timed-out orders, finished deliveries (pending ones stay), and events with no delivery left.
func (suite) Retention(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "retention")
	old, recent, pending := newOrder(t, s, a.ID, base), newOrder(t, s, a.ID, base), newOrder(t, s, a.ID, base)
	keyed := newOrder(t, s, a.ID, base) // an old timed-out order an idempotency key still names
	k := store.IdempotencyKey{AccountID: a.ID, Key: "ret-key", RequestHash: "h", OrderID: keyed.ID, CreatedAt: base}
	if err := s.AddIdempotencyKey(ctx, k, base.Add(-24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct {
		id int64
		at time.Time
	}{{old.ID, base}, {keyed.ID, base}, {recent.ID, base.Add(2 * time.Hour)}} {
		if err := s.FinishOrder(ctx, o.id, store.OrderTimedOut, o.at, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	cut := base.Add(time.Hour)
	if n, err := s.PurgeTimedOutOrders(ctx, cut, 10); err != nil || n != 1 {
		t.Fatalf("PurgeTimedOutOrders = %d, %v; want 1", n, err)
	}
	if _, err := s.OrderByID(ctx, old.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the old timed-out order: %v, want ErrNotFound", err)
	}
	for _, id := range []int64{recent.ID, pending.ID, keyed.ID} {
		if _, err := s.OrderByID(ctx, id); err != nil {
			t.Fatalf("order %d: %v, want it kept", id, err)
		}
	}

	addDueDeliveries(t, s, a, "ret", 4, base)
	ds, err := s.Deliveries(ctx, a.ID)
	if err != nil || len(ds) != 4 {
		t.Fatalf("deliveries: %d, %v", len(ds), err)
	}
	for i, d := range ds[:3] { // three finished, one still pending
		d.Status, d.FinishedAt = store.DeliveryDelivered, base.Add(time.Duration(i)*time.Minute)
		if i == 2 {
			d.Status, d.FinishedAt = store.DeliveryFailed, base.Add(2*time.Hour)
		}
		if err := s.UpdateDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddEvent(ctx, store.Event{ID: "evt_nodelivery", AccountID: a.ID, Name: "ping", Data: []byte(`{}`), CreatedAt: base}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PurgeFinishedDeliveries(ctx, cut, 1); err != nil || n != 1 {
		t.Fatalf("PurgeFinishedDeliveries limit 1 = %d, %v; want 1", n, err)
	}
	if n, err := s.PurgeFinishedDeliveries(ctx, cut, 10); err != nil || n != 1 {
		t.Fatalf("PurgeFinishedDeliveries = %d, %v; want the one left before the cutoff", n, err)
	}
	left, _ := s.Deliveries(ctx, a.ID)
	if len(left) != 2 || left[0].ID != ds[2].ID || left[1].ID != ds[3].ID {
		t.Fatalf("deliveries left %+v, want the recent failed one and the pending one", left)
	}
	// The events of the two purged deliveries and the one without a delivery go; the others stay.
	if n, err := s.PurgeEvents(ctx, cut, 10); err != nil || n != 3 {
		t.Fatalf("PurgeEvents = %d, %v; want 3", n, err)
	}
	if n, err := s.PurgeEvents(ctx, cut, 10); err != nil || n != 0 {
		t.Fatalf("PurgeEvents again = %d, %v; want 0", n, err)
	}
}
