// Package sqlitefast is what makes the SQL store fast on SQLite, kept apart from the store's
// entities so that someone reading sqlstore sees rows and SQL, and someone tuning SQLite sees
// only this. It knows nothing of the store's tables: sqlstore hands it query texts and a
// function that wraps a transaction in the store's own view.
//
//   - OpenPools opens the two pools of a SQLite file: one writer connection (SQLite runs one
//     writer at a time, so this process's writers queue in database/sql instead of failing on
//     SQLite's lock) and a pool of readers that WAL lets run beside it.
//   - GroupCommitter runs the write transactions on the writer connection several to a commit,
//     each in a savepoint of its own (groupcommit.go): a commit is most of a small
//     transaction's cost.
//   - Reads and the writer's statements keep each query text prepared (prepared.go), so SQLite
//     does not parse the same SQL on every request.
//   - ReadCache keeps the rows the busiest requests read outside transactions, for as long as
//     the database is unchanged (readcache.go), which a change watcher tells (changes.go): the
//     wal-index header in SQLite's shared memory, mapped on Linux (changes_shm_linux.go), or
//     PRAGMA data_version elsewhere.
//
// sqlstore holds these behind two seams every store has, a transaction runner and a row
// cache; on PostgreSQL they are a plain transaction and no cache. Errors keep the "sqlstore:"
// prefix: they surface as the store's.
package sqlitefast

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver of OpenPools
)

// Querier is what *sql.DB and *sql.Tx share, and what the store runs its queries on.
type Querier interface {
	// ExecContext runs a statement that returns no rows.
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	// QueryContext runs a query; the caller closes the rows.
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	// QueryRowContext runs a query expected to return at most one row.
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// BusyTimeout is how long a SQLite connection waits by default for a lock another process
// holds before giving up; the writers of this process queue on the one writer connection
// instead.
const BusyTimeout = 10 * time.Second

// readConns is how many connections the read pool opens at most, and keeps open when idle: a
// busy read path then never reopens a connection and reruns its pragmas.
const readConns = 16

// OpenPools opens the two pools of the SQLite file at path (in WAL mode, foreign keys
// enforced): writer, of one connection, for every transaction and every write, so concurrent
// writers of this process queue in database/sql (each wait bounded by its context) instead of
// meeting SQLite's lock and failing with "database is locked" after the busy timeout; and
// reads, of readConns connections, for the reads outside transactions. busy remains for
// another process on the same file.
func OpenPools(ctx context.Context, path string, busy time.Duration) (writer, reads *sql.DB, err error) {
	writer, err = openPool(ctx, DSN(path, busy), 1)
	if err != nil {
		return nil, nil, err
	}
	reads, err = openPool(ctx, DSN(path, busy), readConns)
	if err != nil {
		_ = writer.Close()
		return nil, nil, err
	}
	return writer, reads, nil
}

// openPool opens a pool of at most conns connections to dsn that keeps them all open when
// idle, and checks its pragmas.
func openPool(ctx context.Context, dsn string, conns int) (*sql.DB, error) {
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

// DSN asks the driver to set the per-connection pragmas on every new connection of a pool and
// to start every transaction with BEGIN IMMEDIATE, so two writers queue on busy_timeout
// instead of failing on a lock upgrade.
func DSN(path string, busy time.Duration) string {
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

// isRead reports whether query is a SELECT: every read of the store starts with one.
func isRead(query string) bool {
	trimmed := strings.TrimLeft(query, " \t\n")
	return len(trimmed) >= 6 && strings.EqualFold(trimmed[:6], "SELECT")
}
