package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/sqlitefast"
)

// timeLayout is how SQLite stores a time: TEXT of fixed width, so that text order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// newSQLiteDialect is SQLite: ? placeholders, no lock clauses, times as fixed-width TEXT.
func newSQLiteDialect() *dialect {
	return &dialect{
		name:       migrations.DialectSQLite,
		migrations: migrations.SQLite,
		seqColumn:  "rowid",
		castLimits: true,
		encodeTime: func(t time.Time) any { return t.UTC().Format(timeLayout) },
		mapError:   sqliteError,
		retryable:  func(error) bool { return false },
		migrationsTable: `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TEXT NOT NULL)`,
	}
}

// OpenSQLite opens (creating it and its directory if missing) the SQLite database at path, in
// WAL mode with foreign keys enforced, and applies every pending migration.
//
// The store runs on sqlitefast's machinery: a writer connection that takes every transaction
// and every write, the transactions queued at once sharing a commit (GroupCommitter); a pool
// of readers for the reads outside transactions, on prepared statements (Reads); and a cache
// of the busiest rows that any commit to the file empties (ReadCache).
func OpenSQLite(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("sqlite: create directory: %w", err)
		}
	}
	o := collect(opts)
	writer, reads, err := sqlitefast.OpenPools(ctx, path, o.busyTimeout)
	if err != nil {
		return nil, err
	}
	d := newSQLiteDialect()
	group := sqlitefast.NewGroupCommitter(writer, func(q sqlitefast.Querier) store.Tx { return txQueries(q, d, o.hook, o.keys) },
		o.commitHook)
	s, err := open(ctx, &Store{db: writer, pools: map[string]*sql.DB{"main": writer, "reads": reads}, probe: reads, tx: group, cache: noCache{}, closers: []func() error{group.Close, reads.Close},
		queries: queries{q: sqlitefast.NewReads(reads, writer), d: d, hook: o.hook, keys: o.keys}})
	if err != nil {
		return nil, err
	}
	// The watcher opens once the migrations have written the file, its WAL and wal-index.
	cache := sqlitefast.NewReadCache[cacheKey](ctx, reads, path, o.noShm)
	s.cache, s.closers = cache, append([]func() error{cache.Close}, s.closers...)
	return s, nil
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
