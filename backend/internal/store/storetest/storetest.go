// Package storetest is one behaviour suite every store.Store implementation must pass, so the
// SQLite and PostgreSQL stores cannot drift apart.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// InsertOrder writes o as it is, status and price included, without the admission PlaceOrder
// applies: the suite sets up with it orders no client could place (on an account without
// balance, or already deployed). The store's interface has no such write, so that the service
// cannot skip the rules; each implementation's test passes its own.
type InsertOrder func(ctx context.Context, s store.Store, o store.Order) (store.Order, error)

// suite holds the cases: each exported method of suite is one, func(t *testing.T, s store.Store),
// run by Run under its name on a store of its own. An entity's file of the package adds its
// methods and nothing else names them, so a case cannot be written and left out of the run.
type suite struct{}

// Run runs the suite; open must return a fresh, empty, migrated store for each call, and insert
// writes the orders the suite sets up on it.
func Run(t *testing.T, open func(t *testing.T) store.Store, insert InsertOrder) {
	t.Helper()
	cases := reflect.ValueOf(suite{})
	for i := range cases.NumMethod() {
		name := cases.Type().Method(i).Name
		fn, ok := cases.Method(i).Interface().(func(*testing.T, store.Store))
		if !ok {
			t.Fatalf("storetest: suite.%s is not a case: a case is func(t *testing.T, s store.Store)", name)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, subject{Store: open(t), insert: insert})
		})
	}
}

// subject is the store under test with the fixture that writes its orders (insertOrder).
type subject struct {
	store.Store
	insert InsertOrder
}

// insertOrder writes o as it is on the store under test s (see InsertOrder).
func insertOrder(t *testing.T, s store.Store, o store.Order) store.Order {
	t.Helper()
	sub, ok := s.(subject)
	if !ok {
		t.Fatalf("insertOrder needs the store Run passed, not a %T", s)
	}
	created, err := sub.insert(context.Background(), sub.Store, o)
	if err != nil {
		t.Fatalf("insert order: %v", err)
	}
	return created
}

var base = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func newAccount(t *testing.T, s store.Store, key string) store.Account {
	t.Helper()
	a, err := s.CreateAccount(context.Background(), store.NewAccount{
		KeyHash: []byte("hash-" + key), KeyHint: key[:min(8, len(key))], KeyCreatedAt: base,
		ServerLimit: 10, OrderLimit: 5, Language: "fa", CreatedAt: base,
	})
	if err != nil {
		t.Fatalf("create account: %v", err)
	}
	return a
}

func (suite) Accounts(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "key-one-123")
	if a.ID == 0 || a.Balance != 0 || a.Blocked || a.KYCVerified || !a.AppsEnabled {
		t.Fatalf("new account = %+v, want an id, empty wallet, not blocked, no KYC, apps enabled", a)
	}
	got, err := s.Account(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.KeyHint != "key-one-" || !got.KeyCreatedAt.Equal(base) || got.ServerLimit != 10 || got.OrderLimit != 5 || got.Language != "fa" {
		t.Fatalf("got %+v", got)
	}
	byKey, err := s.AccountByKeyHash(ctx, []byte("hash-key-one-123"))
	if err != nil || byKey.ID != a.ID {
		t.Fatalf("by key: got %+v, %v; want account %d", byKey, err, a.ID)
	}
	b := newAccount(t, s, "key-two-456")
	if b.ID == a.ID {
		t.Fatalf("two accounts share id %d", a.ID)
	}
}

func (suite) AccountNotFound(t *testing.T, s store.Store) {
	ctx := context.Background()
	checks := map[string]error{}
	_, checks["Account"] = s.Account(ctx, 999)
	_, checks["AccountByKeyHash"] = s.AccountByKeyHash(ctx, []byte("nope"))
	checks["SetAccountKey"] = s.SetAccountKey(ctx, 999, []byte("x"), nil, "x", base)
	checks["SetAccountFlag"] = s.SetAccountFlag(ctx, 999, store.FlagBlocked, true)
	_, checks["AddLedgerEntry"] = s.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: 999, Amount: 1, Kind: "x", CreatedAt: base})
	_, checks["AddPayment"] = s.AddPayment(ctx, store.Payment{AccountID: 999, Amount: 1, Type: "card", PaidAt: base})
	for name, err := range checks {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: got %v, want ErrNotFound", name, err)
		}
	}
}

func (suite) KeyRotation(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "old-key-000")
	later := base.Add(time.Hour)
	if err := s.SetAccountKey(ctx, a.ID, []byte("hash-new"), []byte("tag-new"), "new-key-", later); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AccountByKeyHash(ctx, []byte("hash-old-key-000")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("old key: got %v, want ErrNotFound", err)
	}
	got, err := s.AccountByKeyHash(ctx, []byte("hash-new"))
	if err != nil || got.ID != a.ID || got.KeyHint != "new-key-" || !got.KeyCreatedAt.Equal(later) {
		t.Fatalf("new key: got %+v, %v", got, err)
	}
}

func (suite) DuplicateKeyHash(t *testing.T, s store.Store) {
	newAccount(t, s, "same-key")
	_, err := s.CreateAccount(context.Background(), store.NewAccount{KeyHash: []byte("hash-same-key"), KeyHint: "same-key",
		KeyCreatedAt: base, ServerLimit: 1, OrderLimit: 1, Language: "fa", CreatedAt: base})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("got %v, want ErrConflict", err)
	}
}

func (suite) Flags(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "flags-key")
	for _, f := range []store.Flag{store.FlagBlocked, store.FlagKYCVerified} {
		if err := s.SetAccountFlag(ctx, a.ID, f, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetAccountFlag(ctx, a.ID, store.FlagAppsEnabled, false); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Account(ctx, a.ID)
	if !got.Blocked || !got.KYCVerified || got.AppsEnabled {
		t.Fatalf("got blocked=%v kyc=%v apps=%v, want true true false", got.Blocked, got.KYCVerified, got.AppsEnabled)
	}
	if err := s.SetAccountFlag(ctx, a.ID, store.Flag(99), true); err == nil {
		t.Fatal("unknown flag: got nil error")
	}
}

func (suite) PaymentsNewestFirstAndPaged(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "pay-key")
	other := newAccount(t, s, "other-key")
	for i := 1; i <= 5; i++ {
		if _, err := s.AddPayment(ctx, store.Payment{AccountID: a.ID, Amount: money.USD(int64(i)), Type: "card",
			PaidAt: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AddPayment(ctx, store.Payment{AccountID: other.ID, Amount: 1, Type: "card", PaidAt: base}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		page store.Page
		want []money.Micros
	}{
		{store.All, []money.Micros{money.USD(5), money.USD(4), money.USD(3), money.USD(2), money.USD(1)}},
		{store.Page{Limit: 2}, []money.Micros{money.USD(5), money.USD(4)}},
		{store.Page{Limit: 2, Offset: 4}, []money.Micros{money.USD(1)}},
		{store.Page{Limit: 10, Offset: 10}, []money.Micros{}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.page), func(t *testing.T) {
			got, total, err := s.Payments(ctx, a.ID, tt.page)
			if err != nil {
				t.Fatal(err)
			}
			if total != 5 {
				t.Fatalf("total = %d, want 5", total)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d payments, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i].Amount != tt.want[i] || got[i].AccountID != a.ID {
					t.Fatalf("payment %d = %+v, want amount %v of account %d", i, got[i], tt.want[i], a.ID)
				}
			}
		})
	}
}

func (suite) LedgerMovesBalance(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "ledger-key")
	for _, amt := range []money.Micros{money.USD(10), -2_500_000, 417} {
		if _, err := s.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: a.ID, Amount: amt, Kind: "test", CreatedAt: base}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Account(ctx, a.ID)
	sum, err := s.LedgerSum(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := money.Micros(7_500_417)
	if got.Balance != want || sum != want {
		t.Fatalf("balance = %v, ledger sum = %v, want both %v", got.Balance, sum, want)
	}
}

func (suite) TransactionRollsBack(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "tx-key")
	boom := errors.New("boom")
	err := s.WithTx(ctx, func(tx store.Tx) error {
		if _, err := tx.AddPayment(ctx, store.Payment{AccountID: a.ID, Amount: money.USD(3), Type: "card", PaidAt: base}); err != nil {
			return err
		}
		if _, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: a.ID, Amount: money.USD(3), Kind: "payment", CreatedAt: base}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WithTx = %v, want the callback's error", err)
	}
	got, _ := s.Account(ctx, a.ID)
	_, total, _ := s.Payments(ctx, a.ID, store.All)
	if got.Balance != 0 || total != 0 {
		t.Fatalf("after rollback: balance %v, %d payments; want 0 and 0", got.Balance, total)
	}
	err = s.WithTx(ctx, func(tx store.Tx) error {
		_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: a.ID, Amount: money.USD(1), Kind: "payment", CreatedAt: base})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Account(ctx, a.ID); got.Balance != money.USD(1) {
		t.Fatalf("after commit: balance %v, want 1", got.Balance)
	}
}

func (suite) OrderTotals(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, "order-key")
	var first store.Order
	for i, o := range []store.Order{
		{AccountID: a.ID, Status: store.OrderPending, Price: 8_000, CreatedAt: base},
		{AccountID: a.ID, Status: store.OrderPending, Price: 500_000, CreatedAt: base},
		{AccountID: a.ID, Status: "deployed", Price: 1_000_000, CreatedAt: base},
	} {
		created := insertOrder(t, s, o)
		if i == 0 {
			first = created
		}
	}
	wantOrderTotals(t, s, a.ID, store.OrderTotals{Pending: 2, Reserved: 508_000})
	if err := s.FinishOrder(ctx, first.ID, store.OrderTimedOut, base, 0, "timeout"); err != nil {
		t.Fatal(err)
	}
	wantOrderTotals(t, s, a.ID, store.OrderTotals{Pending: 1, Reserved: 500_000})
	wantOrderTotals(t, s, newAccount(t, s, "no-orders").ID, store.OrderTotals{})
	newInstance(t, s, a.ID, first.ID)
	if c, err := s.AccountCounts(ctx, a.ID); err != nil || c.ActiveInstances != 1 {
		t.Fatalf("account counts after an instance: %+v, %v; want 1 active instance", c, err)
	}
}

// wantOrderTotals checks OrderTotals, and that AccountCounts, in and out of a transaction,
// reads the same totals with the account and its count of active instances.
func wantOrderTotals(t *testing.T, s store.Store, accountID int64, want store.OrderTotals) {
	t.Helper()
	ctx := context.Background()
	got, err := s.OrderTotals(ctx, accountID)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("order totals of account %d: got %+v, want %+v", accountID, got, want)
	}
	acct, err := s.Account(ctx, accountID)
	if err != nil {
		t.Fatal(err)
	}
	_, active, err := s.Instances(ctx, accountID, true, store.Page{Limit: 0})
	if err != nil {
		t.Fatal(err)
	}
	wantCounts := store.AccountCounts{Account: acct, Orders: want, ActiveInstances: active}
	var inTx store.AccountCounts
	err = s.WithTx(ctx, func(tx store.Tx) error {
		inTx, err = tx.AccountCounts(ctx, accountID)
		return err
	})
	outside, err2 := s.AccountCounts(ctx, accountID)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	for _, c := range []store.AccountCounts{inTx, outside} {
		if !reflect.DeepEqual(c, wantCounts) {
			t.Fatalf("account counts of account %d: got %+v, want %+v", accountID, c, wantCounts)
		}
	}
}
