package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
)

// checkAllMigrated checks that schema_migrations records every migration of s's dialect once.
func checkAllMigrated(t *testing.T, s *Store) {
	t.Helper()
	all, err := s.d.migrations()
	if err != nil {
		t.Fatal(err)
	}
	var rows, maxVersion int
	err = s.db.QueryRowContext(context.Background(), "SELECT COUNT(*), MAX(version) FROM schema_migrations").Scan(&rows, &maxVersion)
	if err != nil {
		t.Fatal(err)
	}
	if rows != len(all) || maxVersion != all[len(all)-1].Version {
		t.Fatalf("schema_migrations has %d rows up to %d, want %d up to %d", rows, maxVersion, len(all), all[len(all)-1].Version)
	}
}

// migrationTest brings db, a raw handle on a fresh database of dialect d, to an older version,
// writes rows in that version's columns and closes it; reopen then opens the store, which
// applies the newer versions.
type migrationTest func(t *testing.T, db *sql.DB, d *dialect, reopen func() *Store)

// onSQLite runs test on a fresh SQLite file.
func onSQLite(t *testing.T, test migrationTest) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", sqliteDSN(path, busyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	test(t, db, newSQLiteDialect(), func() *Store { return mustOpen(t, OpenSQLite, path) })
}

// onPostgres runs test on a fresh PostgreSQL database.
func onPostgres(t *testing.T, test migrationTest) {
	t.Helper()
	url := pg.Database(t)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	test(t, stdlib.OpenDB(*cfg), newPostgresDialect(), func() *Store { return openURL(t, url) })
}

func TestSQLiteSnapshotPendingMigration(t *testing.T) {
	t.Parallel()
	onSQLite(t, testSnapshotPendingMigration)
}

func TestPostgresSnapshotPendingMigration(t *testing.T) {
	t.Parallel()
	onPostgres(t, testSnapshotPendingMigration)
}

// testSnapshotPendingMigration brings db to version 3, where a restore in progress kept only
// busy_until, writes a restoring and an available snapshot, closes db and opens the store
// (reopen), which applies version 4: the restore is a pending change to available at the
// time busy_until held, and the available snapshot has nothing pending.
func testSnapshotPendingMigration(t *testing.T, db *sql.DB, d *dialect, reopen func() *Store) {
	t.Helper()
	ctx := context.Background()
	all, err := d.migrations()
	if err != nil {
		t.Fatal(err)
	}
	if err := migrations.Apply(ctx, migrationTarget{db: db, d: d}, all[:3]); err != nil {
		t.Fatal(err)
	}
	q := queries{q: db, d: d}
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	acct, err := q.CreateAccount(ctx, store.NewAccount{KeyHash: []byte("m"), KeyHint: "m", KeyCreatedAt: base,
		ServerLimit: 1, OrderLimit: 1, Language: "en", CreatedAt: base})
	if err != nil {
		t.Fatal(err)
	}
	// The order and the instance are written in version 3's columns: the store's own writes
	// also touch columns of later versions.
	var orderID, instanceID int64
	if err := q.queryRow(ctx, `INSERT INTO orders (account_id, status, price_micros, created_at) VALUES (?, ?, 0, ?)
		RETURNING id`, acct.ID, store.OrderPending, base).Scan(&orderID); err != nil {
		t.Fatal(err)
	}
	if err := q.queryRow(ctx, `INSERT INTO instances (account_id, order_id, name, hostname, plan_id, template_id,
		datacenter_id, location_id, status, active, machine_ref, credentials_at, created_at, renewal_due)
		VALUES (?, ?, 'web-1', 'web-1', 101, 1, 1, 11, ?, TRUE, 'm-1', ?, ?, ?) RETURNING id`,
		acct.ID, orderID, datacenter.StatusOnline, base, base, base).Scan(&instanceID); err != nil {
		t.Fatal(err)
	}
	const insert = `INSERT INTO snapshots (account_id, instance_id, name, status, busy_until, created_at, datacenter_id,
		location_id, template_id, plan_id, os_type, architecture, source_name)
		VALUES (?, ?, 'snap', ?, ?, ?, 1, 11, 1, 101, 'linux', 'x86_64', 'web-1') RETURNING id`
	settles := base.Add(time.Minute)
	var restoring, available int64
	if err := q.queryRow(ctx, insert, acct.ID, instanceID, store.SnapshotRestoring, settles, base).Scan(&restoring); err != nil {
		t.Fatal(err)
	}
	if err := q.queryRow(ctx, insert, acct.ID, instanceID, store.SnapshotAvailable, nil, base).Scan(&available); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := reopen()
	got, err := s.SnapshotByID(ctx, restoring)
	if err != nil {
		t.Fatal(err)
	}
	if want := store.PendingTo(store.SnapshotAvailable, settles); got.Status != store.SnapshotRestoring || got.Next != want {
		t.Fatalf("restoring snapshot after migration: status %q, next %+v; want restoring, %+v", got.Status, got.Next, want)
	}
	if got, err := s.SnapshotByID(ctx, available); err != nil || got.Next != (store.Pending{}) {
		t.Fatalf("available snapshot after migration: next %+v, %v; want nothing pending", got.Next, err)
	}
}
