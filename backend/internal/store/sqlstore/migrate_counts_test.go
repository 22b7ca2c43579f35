package sqlstore

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// orderCountsVersion is the migration that keeps the pending orders' count and price on the
// account.
const orderCountsVersion = 8

func TestSQLiteOrderCountsMigration(t *testing.T) {
	t.Parallel()
	onSQLite(t, testOrderCountsMigration)
}

func TestPostgresOrderCountsMigration(t *testing.T) {
	t.Parallel()
	onPostgres(t, testOrderCountsMigration)
}

// testOrderCountsMigration writes two pending orders and a deployed one on the schema before
// the order counts, then opens the store, which migrates: the account counts the two pending
// orders and their prices, and a new order and a finished one move the counts.
func testOrderCountsMigration(t *testing.T, db *sql.DB, d *dialect, reopen func() *Store) {
	t.Helper()
	ctx := context.Background()
	applyBefore(t, db, d, orderCountsVersion)
	q := queries{q: db, d: d}
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	acct := oldSchemaAccount(t, q, "c", base)
	var first int64
	for i, o := range []struct {
		status string
		price  int64
	}{{store.OrderPending, 3_000}, {store.OrderPending, 4_000}, {store.OrderDeployed, 5_000}} {
		var id int64
		if err := q.queryRow(ctx, `INSERT INTO orders (account_id, status, price_micros, created_at) VALUES (?, ?, ?, ?)
			RETURNING id`, acct.ID, o.status, o.price, base).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = id
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := reopen()
	wantTotals(t, s, acct.ID, store.OrderTotals{Pending: 2, Reserved: 7_000})
	if _, err := s.createOrder(ctx, store.Order{AccountID: acct.ID, Status: store.OrderPending, Price: 1_000,
		CreatedAt: base, PlanID: 101, TemplateID: 1}); err != nil {
		t.Fatal(err)
	}
	wantTotals(t, s, acct.ID, store.OrderTotals{Pending: 3, Reserved: 8_000})
	if err := s.FinishOrder(ctx, first, store.OrderTimedOut, base.Add(time.Hour), 0, ""); err != nil {
		t.Fatal(err)
	}
	wantTotals(t, s, acct.ID, store.OrderTotals{Pending: 2, Reserved: money.Micros(5_000)})
}

func wantTotals(t *testing.T, s *Store, accountID int64, want store.OrderTotals) {
	t.Helper()
	got, err := s.OrderTotals(context.Background(), accountID)
	if err != nil || got != want {
		t.Fatalf("order totals %+v, %v; want %+v", got, err, want)
	}
}
