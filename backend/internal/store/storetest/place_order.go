package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// PlaceOrderWithinTheRules places orders on accounts that each reach one rule (server_limit with an
// active server, api_order_limit, the available balance) until the rule refuses one. Before
// every placement it asks store.AccountCounts.Admits what should happen, so a store whose own
// check (the PostgreSQL store's SQL) differs from it at a boundary fails; and a refusal must
// write nothing. Placements alternate between the store and a transaction.
func (suite) PlaceOrderWithinTheRules(t *testing.T, s store.Store) {
	const price = money.Micros(250_000)
	tests := []struct {
		name                    string
		serverLimit, orderLimit int
		balance                 money.Micros
		activeInstance          bool
		admitted                int
	}{
		{"server_limit counts active servers and pending orders", 3, 10, money.USD(100), true, 2},
		{"api_order_limit counts pending orders", 10, 4, money.USD(100), false, 4},
		{"the available balance covers the price exactly", 10, 10, 3 * price, false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := accountWithLimits(t, s, tt.name, tt.serverLimit, tt.orderLimit, tt.balance, tt.activeInstance)
			admitted := 0
			for i := range tt.admitted + 2 {
				if placeAsAdmitted(t, s, store.Order{AccountID: a.ID, Price: price, CreatedAt: base}, i%2 == 1) {
					admitted++
				}
			}
			if admitted != tt.admitted {
				t.Fatalf("%d orders admitted, want %d", admitted, tt.admitted)
			}
			wantOrderTotals(t, s, a.ID, store.OrderTotals{Pending: admitted, Reserved: price * money.Micros(admitted)})
		})
	}
	t.Run("an unknown account", func(t *testing.T) {
		if _, _, err := s.PlaceOrder(context.Background(), store.Order{AccountID: 999_999, Price: 1, CreatedAt: base}, nil); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("place order for no account: %v, want ErrNotFound", err)
		}
	})
}

// PlaceOrderWithItsIdempotencyKey shows PlaceOrder's idempotency key: recorded with the order, in a
// transaction or not; a record of the key, live or expired, refuses the order and writes
// nothing; an order the rules refuse records no key.
func (suite) PlaceOrderWithItsIdempotencyKey(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := accountWithLimits(t, s, "keyed-orders", 10, 3, money.USD(100), false)
	o := store.Order{AccountID: a.ID, Price: 1_000, CreatedAt: base}
	key := func(k string) *store.IdempotencyKey {
		return &store.IdempotencyKey{AccountID: a.ID, Key: k, RequestHash: "hash-" + k}
	}
	placed, _, err := s.PlaceOrder(ctx, o, key("k-1"))
	if err != nil {
		t.Fatal(err)
	}
	var inTx store.Order
	err = s.WithTx(ctx, func(tx store.Tx) error {
		var err error
		inTx, _, err = tx.PlaceOrder(ctx, o, key("k-2"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, id := range map[string]int64{"k-1": placed.ID, "k-2": inTx.ID} {
		got, err := s.IdempotencyKey(ctx, a.ID, k)
		want := store.IdempotencyKey{AccountID: a.ID, Key: k, RequestHash: "hash-" + k, OrderID: id, CreatedAt: base}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("record of %s: %+v, %v; want %+v", k, got, err, want)
		}
	}
	expired := store.IdempotencyKey{AccountID: a.ID, Key: "k-old", RequestHash: "h", OrderID: placed.ID, CreatedAt: base.Add(-48 * time.Hour)}
	if err := s.AddIdempotencyKey(ctx, expired, base.Add(-24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"k-1", "k-old"} {
		if _, _, err := s.PlaceOrder(ctx, o, key(k)); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("an order with the recorded key %s: %v, want ErrConflict", k, err)
		}
	}
	wantOrderTotals(t, s, a.ID, store.OrderTotals{Pending: 2, Reserved: 2_000})
	if _, _, err := s.PlaceOrder(ctx, o, key("k-3")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.PlaceOrder(ctx, o, key("k-4")); !errors.Is(err, store.ErrNotAdmitted) {
		t.Fatalf("an order over api_order_limit: %v, want ErrNotAdmitted", err)
	}
	if _, err := s.IdempotencyKey(ctx, a.ID, "k-4"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the key of a refused order: %v, want ErrNotFound", err)
	}
}

// placeAsAdmitted places o, in a transaction if inTx, and checks the outcome against what
// AccountCounts.Admits says of the counts read just before: placed and counted, or refused
// with ErrNotAdmitted and nothing written. Either way PlaceOrder returns those counts.
func placeAsAdmitted(t *testing.T, s store.Store, o store.Order, inTx bool) bool {
	t.Helper()
	ctx := context.Background()
	before, err := s.AccountCounts(ctx, o.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	var placed store.Order
	var checked store.AccountCounts
	if inTx {
		err = s.WithTx(ctx, func(tx store.Tx) error {
			var err error
			placed, checked, err = tx.PlaceOrder(ctx, o, nil)
			return err
		})
	} else {
		placed, checked, err = s.PlaceOrder(ctx, o, nil)
	}
	if !reflect.DeepEqual(checked, before) {
		t.Fatalf("PlaceOrder checked the counts %+v, want those of the account %+v", checked, before)
	}
	want := before.Admits(o.Price)
	switch {
	case want && err != nil:
		t.Fatalf("PlaceOrder (in a transaction: %t) refused an order the counts %+v admit: %v", inTx, before, err)
	case !want && !errors.Is(err, store.ErrNotAdmitted):
		t.Fatalf("PlaceOrder (in a transaction: %t) with the counts %+v: %v, %+v; want ErrNotAdmitted", inTx, before, err, placed)
	case !want:
		wantOrderTotals(t, s, o.AccountID, before.Orders)
		return false
	}
	got, err := s.Order(ctx, o.AccountID, placed.ID)
	if err != nil || got.Status != store.OrderPending || got.Price != o.Price {
		t.Fatalf("placed order %d reads %+v, %v; want pending at price %v", placed.ID, got, err, o.Price)
	}
	return true
}

// accountWithLimits is a new account with the limits and balance given, and one active server
// if asked.
func accountWithLimits(t *testing.T, s store.Store, key string, serverLimit, orderLimit int, balance money.Micros, activeInstance bool) store.Account {
	t.Helper()
	ctx := context.Background()
	a, err := s.CreateAccount(ctx, store.NewAccount{
		KeyHash: []byte("hash-" + key), KeyHint: key[:8], KeyCreatedAt: base,
		ServerLimit: serverLimit, OrderLimit: orderLimit, Language: "en", CreatedAt: base,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: a.ID, Amount: balance, Kind: "payment", CreatedAt: base}); err != nil {
		t.Fatal(err)
	}
	if activeInstance {
		o := insertOrder(t, s, store.Order{AccountID: a.ID, Status: store.OrderDeployed, CreatedAt: base})
		newInstance(t, s, a.ID, o.ID)
	}
	return a
}
