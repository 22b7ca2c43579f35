package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/sqlitefast"
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

// TestApplyMigrations applies three migrations, each creating a table, to databases that
// recorded some of them already: only the unrecorded ones run, and a failing one leaves the
// database at the last one applied whole.
func TestApplyMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var all []migrations.Migration
	for v, table := range []string{"a", "b", "c"} {
		all = append(all, migrations.Migration{Version: v + 1, Name: fmt.Sprintf("%04d_%s.sql", v+1, table),
			SQL: "CREATE TABLE " + table + " (x INTEGER)"})
	}
	tests := []struct {
		name        string
		recorded    []int
		failOn      int
		wantTables  string
		wantApplied string
	}{
		{"fresh database", nil, 0, "a,b,c", "1,2,3"},
		{"resumes after the last applied", []int{1, 2}, 0, "c", "1,2,3"},
		{"up to date", []int{1, 2, 3}, 0, "", "1,2,3"},
		{"a failure keeps what came before", nil, 2, "a", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, err := sql.Open("sqlite", sqlitefast.DSN(filepath.Join(t.TempDir(), "m.db"), sqlitefast.BusyTimeout))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			d := newSQLiteDialect()
			if err := applyMigrations(ctx, db, d, nil); err != nil { // schema_migrations alone
				t.Fatal(err)
			}
			for _, v := range tt.recorded {
				if _, err := db.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, 'old', '')`, v); err != nil {
					t.Fatal(err)
				}
			}
			migs := slices.Clone(all)
			if tt.failOn != 0 {
				migs[tt.failOn-1].SQL = "NOT SQL"
			}
			if err := applyMigrations(ctx, db, d, migs); (err != nil) != (tt.failOn != 0) {
				t.Fatalf("applyMigrations = %v, want an error %v", err, tt.failOn != 0)
			}
			tables := joined(t, db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('a', 'b', 'c') ORDER BY name`)
			applied := joined(t, db, `SELECT version FROM schema_migrations ORDER BY version`)
			if tables != tt.wantTables || applied != tt.wantApplied {
				t.Fatalf("tables %q, applied %q; want %q and %q", tables, applied, tt.wantTables, tt.wantApplied)
			}
		})
	}
}

// joined reads the one column of query's rows, joined by commas.
func joined(t *testing.T, db *sql.DB, query string) string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, ",")
}

// migrationTest brings db, a raw handle on a fresh database of dialect d, to an older version,
// writes rows in that version's columns and closes it; reopen then opens the store, which
// applies the newer versions.
type migrationTest func(t *testing.T, db *sql.DB, d *dialect, reopen func() *Store)

// onSQLite runs test on a fresh SQLite file.
func onSQLite(t *testing.T, test migrationTest) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", sqlitefast.DSN(path, sqlitefast.BusyTimeout))
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

// oldSchemaAccount writes an account, keyed key, with the columns of the first schema: a test of
// a migration writes on an older schema than the store's CreateAccount reads back (accounts
// grew columns since, such as key_tag). Only its id is set.
func oldSchemaAccount(t *testing.T, q queries, key string, at time.Time) store.Account {
	t.Helper()
	var a store.Account
	err := q.queryRow(context.Background(), `INSERT INTO accounts (key_hash, key_hint, key_created_at, server_limit,
		order_limit, language, created_at) VALUES (?, ?, ?, 10, 10, 'en', ?) RETURNING id`, []byte(key), key, at, at).Scan(&a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a
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
	if err := applyMigrations(ctx, db, d, all[:3]); err != nil {
		t.Fatal(err)
	}
	q := queries{q: db, d: d}
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	acct := oldSchemaAccount(t, q, "m", base)
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
