package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestOldestDueAndPing: on both databases an empty store has no queue waiting, pending orders
// make the provisioning queue's oldest item the first one's creation, and Ping answers.
func TestOldestDueAndPing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range map[string]*Store{"postgres": func() *Store { s, _ := openFresh(t); return s }(),
		"sqlite": mustOpen(t, OpenSQLite, t.TempDir()+"/due.db")} {
		t.Run(name, func(t *testing.T) {
			if err := s.Ping(ctx); err != nil {
				t.Fatalf("Ping: %v", err)
			}
			if s.Pools()["main"] == nil {
				t.Fatalf("Pools = %v, want the main pool", s.Pools())
			}
			due, err := s.OldestDue(ctx)
			if err != nil || due != (store.OldestDue{}) {
				t.Fatalf("empty store: %+v, %v; want nothing due", due, err)
			}
			now := time.Now()
			a, err := s.CreateAccount(ctx, store.NewAccount{KeyHash: []byte("k-" + name), KeyHint: "k", KeyCreatedAt: now,
				CreatedAt: now, ServerLimit: 10, OrderLimit: 10, Language: "en"})
			if err != nil {
				t.Fatal(err)
			}
			first := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
			for i, at := range []time.Time{first, first.Add(time.Minute)} {
				if _, err := s.createOrder(ctx, store.Order{AccountID: a.ID, Status: store.OrderPending, Price: 4000,
					CreatedAt: at, PlanID: 101, TemplateID: 1}); err != nil {
					t.Fatalf("order %d: %v", i, err)
				}
			}
			due, err = s.OldestDue(ctx)
			if err != nil || !due.Provisioning.Equal(first) || !due.Deliveries.IsZero() || !due.Renewals.IsZero() {
				t.Fatalf("with two pending orders: %+v, %v; want provisioning due since %v", due, err, first)
			}
		})
	}
}
