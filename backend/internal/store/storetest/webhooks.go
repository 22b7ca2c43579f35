package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// What every Store must do with an account's webhook and its deliveries.

func (suite) Webhooks(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "hook-key")
	if _, err := s.Webhook(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no webhook: %v, want ErrNotFound", err)
	}
	w := store.Webhook{AccountID: a.ID, URL: "https://a.example/hook", Secret: "0123456789abcdef", UpdatedAt: base}
	if err := s.SetWebhook(ctx, w); err != nil {
		t.Fatal(err)
	}
	w.URL, w.Secret, w.UpdatedAt = "https://b.example/hook", "fedcba9876543210", base.Add(time.Minute)
	if err := s.SetWebhook(ctx, w); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Webhook(ctx, a.ID); err != nil || got != w {
		t.Fatalf("webhook = %+v, %v; want the replacement %+v", got, err, w)
	}
	if err := s.DeleteWebhook(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteWebhook(ctx, a.ID); err != nil {
		t.Fatalf("deleting no webhook: %v", err)
	}
	if _, err := s.Webhook(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after delete: %v, want ErrNotFound", err)
	}
}

func (suite) Deliveries(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "delivery-key")
	if err := s.AddEvent(ctx, store.Event{ID: "evt_1", AccountID: a.ID, Name: "ping", Data: []byte(`{}`), CreatedAt: base}); err != nil {
		t.Fatal(err)
	}
	d := store.Delivery{ID: "dlv_1", EventID: "evt_1", AccountID: a.ID, Event: "ping", Body: []byte(`{"id":"evt_1"}`),
		Status: store.DeliveryPending, NextAt: base, CreatedAt: base}
	if err := s.AddDelivery(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := s.AddDelivery(ctx, d); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second delivery of one event: %v, want ErrConflict", err)
	}
	if due, _ := s.DueDeliveries(ctx, base.Add(-time.Second), 10); len(due) != 0 {
		t.Fatalf("due before next_at: %+v", due)
	}
	due, err := s.DueDeliveries(ctx, base, 10)
	if err != nil || len(due) != 1 || !reflect.DeepEqual(due[0], d) {
		t.Fatalf("due = %+v, %v; want %+v", due, err, d)
	}
	if ok, err := s.ClaimDelivery(ctx, d.ID, base, base.Add(time.Minute)); !ok || err != nil {
		t.Fatalf("claim: %v, %v", ok, err)
	}
	if ok, _ := s.ClaimDelivery(ctx, d.ID, base, base.Add(time.Minute)); ok {
		t.Fatal("claimed twice")
	}
	if due, _ := s.DueDeliveries(ctx, base, 10); len(due) != 0 {
		t.Fatalf("a claimed delivery is due: %+v", due)
	}
	if due, _ := s.DueDeliveries(ctx, base.Add(time.Minute), 10); len(due) != 1 {
		t.Fatal("a delivery whose lease expired is not due again")
	}
	d.Attempts, d.NextAt, d.LastStatus, d.LastError = 1, base.Add(30*time.Second), 500, "status 500"
	if err := s.UpdateDelivery(ctx, d); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.ClaimDelivery(ctx, d.ID, base.Add(29*time.Second), base.Add(time.Minute)); ok {
		t.Fatal("claimed before next_at")
	}
	d.Status, d.Attempts, d.FinishedAt, d.LastStatus, d.LastError = store.DeliveryDelivered, 2, base.Add(30*time.Second), 204, ""
	if err := s.UpdateDelivery(ctx, d); err != nil {
		t.Fatal(err)
	}
	all, err := s.Deliveries(ctx, a.ID)
	if err != nil || len(all) != 1 || !reflect.DeepEqual(all[0], d) {
		t.Fatalf("deliveries = %+v, %v; want %+v", all, err, d)
	}
	if due, _ := s.DueDeliveries(ctx, base.Add(time.Hour), 10); len(due) != 0 {
		t.Fatalf("a delivered delivery is due: %+v", due)
	}
}
