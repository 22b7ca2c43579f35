package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
)

// busyTimeout is how long a SQLite connection waits for a lock another process holds before
// giving up; the writers of this process queue on the one writer connection instead.
const busyTimeout = 10 * time.Second

// timeLayout is how SQLite stores a time: TEXT of fixed width, so that text order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// newSQLiteDialect is SQLite: ? placeholders, no lock clauses, times as fixed-width TEXT.
func newSQLiteDialect() *dialect {
	return &dialect{
		name:       migrations.DialectSQLite,
		migrations: migrations.SQLite,
		seqColumn:  "rowid",
		encodeTime: func(t time.Time) any { return t.UTC().Format(timeLayout) },
		mapError:   sqliteError,
		retryable:  func(error) bool { return false },
		migrationsTable: `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TEXT NOT NULL)`,
	}
}

// readConns is how many connections SQLite's read pool opens at most, and keeps open when
// idle: a busy read path then never reopens a connection and reruns its pragmas.
const readConns = 16

// OpenSQLite opens (creating it and its directory if missing) the SQLite database at path, in
// WAL mode with foreign keys enforced, and applies every pending migration.
//
// SQLite runs one writer at a time. The store has two pools: every transaction and every write
// go through a pool of one connection, so concurrent writers of this process queue in
// database/sql (each wait bounded by its context) instead of meeting SQLite's lock and failing
// with "database is locked" after the busy timeout; reads outside transactions go through a
// pool of readConns connections that WAL lets run beside the writer. The busy timeout remains
// for another process on the same file.
func OpenSQLite(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("sqlite: create directory: %w", err)
		}
	}
	o := collect(opts)
	writer, err := openSQLitePool(ctx, sqliteDSN(path, o.busyTimeout), 1)
	if err != nil {
		return nil, err
	}
	reads, err := openSQLitePool(ctx, sqliteDSN(path, o.busyTimeout), readConns)
	if err != nil {
		_ = writer.Close()
		return nil, err
	}
	s, err := open(ctx, writer, reads, newSQLiteDialect(), o)
	if err != nil {
		return nil, err
	}
	s.cache = newReadCache(newChangeWatcher(ctx, reads, path, o.noShm))
	return s, nil
}

// openSQLitePool opens a pool of at most conns connections to dsn that keeps them all open
// when idle, and checks its pragmas.
func openSQLitePool(ctx context.Context, dsn string, conns int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := checkPragmas(ctx, db); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// sqliteDSN asks the driver to set the per-connection pragmas on every new connection of the
// pool and to start every transaction with BEGIN IMMEDIATE, so two writers queue on
// busy_timeout instead of failing on a lock upgrade.
func sqliteDSN(path string, busy time.Duration) string {
	v := url.Values{}
	v.Add("_pragma", "foreign_keys(1)")
	v.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "synchronous(NORMAL)")
	v.Set("_txlock", "immediate")
	return "file:" + path + "?" + v.Encode()
}

// checkPragmas reads the pragmas back: a driver that silently ignored one would otherwise leave
// foreign keys unenforced.
func checkPragmas(ctx context.Context, db *sql.DB) error {
	var fk int
	if err := db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return fmt.Errorf("sqlite: read foreign_keys: %w", err)
	}
	if fk != 1 {
		return errors.New("sqlite: foreign_keys is off")
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("sqlite: read journal_mode: %w", err)
	}
	if mode != "wal" {
		return fmt.Errorf("sqlite: journal_mode is %q, want wal", mode)
	}
	return nil
}

// sqliteError maps SQLite's constraint violations to the store's errors.
func sqliteError(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return fmt.Errorf("%w: %w", store.ErrConflict, err)
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return fmt.Errorf("%w: %w", store.ErrNotFound, err)
	}
	return err
}
