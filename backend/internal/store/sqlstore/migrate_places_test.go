package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
)

// instancePlacesVersion is the migration that gives each instance its place in its account's
// list (account_seq).
const instancePlacesVersion = 9

func TestSQLiteInstancePlacesMigration(t *testing.T) {
	t.Parallel()
	onSQLite(t, testInstancePlacesMigration)
}

func TestPostgresInstancePlacesMigration(t *testing.T) {
	t.Parallel()
	onPostgres(t, testInstancePlacesMigration)
}

// testInstancePlacesMigration writes instances of two accounts, interleaved, on the schema
// before the places, then opens the store, which migrates: every page of each account's whole
// list is the right slice, and so it stays after a new instance.
func testInstancePlacesMigration(t *testing.T, db *sql.DB, d *dialect, reopen func() *Store) {
	t.Helper()
	ctx := context.Background()
	applyBefore(t, db, d, instancePlacesVersion)
	q := queries{q: db, d: d}
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var accounts [2]store.Account
	for i, key := range []string{"a", "b"} {
		accounts[i] = oldSchemaAccount(t, q, key, base)
	}
	want := map[int64][]int64{} // newest first
	for i := range 6 {
		a := accounts[i%2]
		var orderID, id int64
		if err := q.queryRow(ctx, `INSERT INTO orders (account_id, status, price_micros, created_at) VALUES (?, ?, 0, ?)
			RETURNING id`, a.ID, store.OrderDeployed, base).Scan(&orderID); err != nil {
			t.Fatal(err)
		}
		if err := q.queryRow(ctx, `INSERT INTO instances (account_id, order_id, name, hostname, plan_id, template_id,
			datacenter_id, location_id, status, active, machine_ref, credentials_at, created_at, renewal_due)
			VALUES (?, ?, 'web', 'web', 101, 1, 1, 11, ?, TRUE, 'm', ?, ?, ?) RETURNING id`,
			a.ID, orderID, datacenter.StatusOnline, base, base, base).Scan(&id); err != nil {
			t.Fatal(err)
		}
		want[a.ID] = append([]int64{id}, want[a.ID]...)
	}
	if _, err := db.ExecContext(ctx, `UPDATE accounts SET instances_total = 3, instances_active = 3`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := reopen()
	for _, a := range accounts {
		wantPages(t, s, a.ID, want[a.ID])
	}
	order, err := s.createOrder(ctx, store.Order{AccountID: accounts[0].ID, Status: store.OrderPending, CreatedAt: base,
		PlanID: 101, TemplateID: 1})
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.CreateInstance(ctx, store.Instance{AccountID: accounts[0].ID, OrderID: order.ID, Name: "new", Hostname: "new",
		PlanID: 101, TemplateID: 1, Status: datacenter.StatusOnline, Active: true, CreatedAt: base, RenewalDue: base})
	if err != nil {
		t.Fatal(err)
	}
	wantPages(t, s, accounts[0].ID, append([]int64{in.ID}, want[accounts[0].ID]...))
}

// wantPages reads every page of two of the account's whole list, and the whole list at once.
func wantPages(t *testing.T, s *Store, accountID int64, want []int64) {
	t.Helper()
	for _, p := range []store.Page{{Limit: -1}, {Limit: 2}, {Limit: 2, Offset: 2}, {Limit: 2, Offset: len(want) - 1}} {
		page, total, err := s.Instances(context.Background(), accountID, false, p)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, in := range page {
			got = append(got, in.ID)
		}
		end := len(want)
		if p.Limit >= 0 {
			end = min(end, p.Offset+p.Limit)
		}
		if total != len(want) || !slices.Equal(got, want[p.Offset:end]) {
			t.Fatalf("account %d, page %+v: %v of %d; want %v of %d", accountID, p, got, total, want[p.Offset:end], len(want))
		}
	}
}

// applyBefore applies every migration of d older than version.
func applyBefore(t *testing.T, db *sql.DB, d *dialect, version int) {
	t.Helper()
	all, err := d.migrations()
	if err != nil {
		t.Fatal(err)
	}
	var before []migrations.Migration
	for _, m := range all {
		if m.Version < version {
			before = append(before, m)
		}
	}
	if err := applyMigrations(context.Background(), db, d, before); err != nil {
		t.Fatal(err)
	}
}
