// Package sqlite is the embedded store: one SQLite file through modernc.org/sqlite (pure Go),
// in WAL mode with foreign keys enforced and a busy timeout so concurrent writers wait instead
// of failing.
package sqlite

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
)

// busyTimeout is how long a writer waits for the database lock before giving up.
const busyTimeout = 10 * time.Second

// Store is a store.Store on one SQLite file.
type Store struct {
	db *sql.DB
	queries
}

var _ store.Store = (*Store)(nil)

// Open opens (creating it and its directory if missing) the database at path and applies every
// pending migration.
func Open(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("sqlite: create directory: %w", err)
		}
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	s := &Store{db: db, queries: queries{q: db}}
	if err := s.init(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// dsn asks the driver to set the per-connection pragmas on every new connection of the pool and
// to start every transaction with BEGIN IMMEDIATE, so two writers queue on busy_timeout instead
// of failing on a lock upgrade.
func dsn(path string) string {
	v := url.Values{}
	v.Add("_pragma", "foreign_keys(1)")
	v.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "synchronous(NORMAL)")
	v.Set("_txlock", "immediate")
	return "file:" + path + "?" + v.Encode()
}

func (s *Store) init(ctx context.Context) error {
	if err := s.checkPragmas(ctx); err != nil {
		return err
	}
	return s.migrate(ctx)
}

// checkPragmas reads the pragmas back: a driver that silently ignored one would otherwise leave
// foreign keys unenforced.
func (s *Store) checkPragmas(ctx context.Context) error {
	var fk int
	if err := s.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return fmt.Errorf("sqlite: read foreign_keys: %w", err)
	}
	if fk != 1 {
		return errors.New("sqlite: foreign_keys is off")
	}
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("sqlite: read journal_mode: %w", err)
	}
	if mode != "wal" {
		return fmt.Errorf("sqlite: journal_mode is %q, want wal", mode)
	}
	return nil
}

// WithTx runs fn in one transaction.
func (s *Store) WithTx(ctx context.Context, fn func(tx store.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(queries{q: tx}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// timeLayout is fixed-width so that text order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("sqlite: bad timestamp %q: %w", s, err)
	}
	return t, nil
}

// mapError turns driver errors the service must tell apart into the store's own errors.
func mapError(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %w", store.ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: %w", store.ErrNotFound, err)
		}
	}
	return err
}
