package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// querier is what *sql.DB and *sql.Tx share, so every query runs inside or outside a
// transaction (and what sqlitefast's prepared Reads and transactions offer too).
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queries are the store's reads and writes on q in dialect d. locks is nil outside a
// transaction and on SQLite.
type queries struct {
	q     querier
	d     *dialect
	locks *txLocks
	hook  ReadHook         // nil unless a test asked for one
	keys  *secrets.Keyring // seals and opens the secret columns (secrets.go); nil: stored plain
	// generic and groups place an order in a statement that commits on its own, under its
	// generic plan, alone or in a group (orders_place.go): set only on the PostgreSQL store's
	// statements outside transactions.
	generic *genericPlans
	groups  *orderGroups
}

// ReadHook is told each read the store made (its query text) and how many rows it returned.
// Tests use it to show that a worker tick reads only what is due.
type ReadHook func(query string, rows int)

// read tells the hook, if any, about a read.
func (q queries) read(query string, rows int) {
	if q.hook != nil {
		q.hook(query, rows)
	}
}

var _ store.Tx = queries{}

// rowScanner is what *sql.Rows and row share.
type rowScanner interface{ Scan(dest ...any) error }

// row is a *sql.Row whose Scan returns the store's errors.
type row struct {
	r *sql.Row
	d *dialect
}

func (r row) Scan(dest ...any) error { return r.d.storeError(r.r.Scan(dest...)) }

// storeError turns "no rows" and the constraint violations the service tells apart into the
// store's errors; every other error passes as it is.
func (d *dialect) storeError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	return d.mapError(err)
}

func (q queries) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := q.q.ExecContext(ctx, q.d.sql(query), q.d.args(args)...)
	return res, q.d.storeError(err)
}

func (q queries) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := q.q.QueryContext(ctx, q.d.sql(query), q.d.args(args)...)
	return rows, q.d.storeError(err)
}

func (q queries) queryRow(ctx context.Context, query string, args ...any) row {
	q.read(query, 1)
	return row{r: q.q.QueryRowContext(ctx, q.d.sql(query), q.d.args(args)...), d: q.d}
}

// list runs query and reads every row with scan. It returns an empty slice, never nil, so an
// empty list encodes as [].
func list[T any](ctx context.Context, q queries, what string, scan func(rowScanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list %s: %w", what, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: scan %s: %w", what, q.d.storeError(err))
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: list %s: %w", what, err)
	}
	q.read(query, len(out))
	return out, nil
}

// rowsAffected is how many rows a statement changed.
func rowsAffected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// checkOneRow turns an UPDATE that matched no row into ErrNotFound.
func checkOneRow(res sql.Result, err error, what string, id any) error {
	n, err := rowsAffected(res, err)
	if err != nil {
		return fmt.Errorf("sqlstore: %s %v: %w", what, id, err)
	}
	if n == 0 {
		return fmt.Errorf("sqlstore: %s %v: %w", what, id, store.ErrNotFound)
	}
	return nil
}

// claimed reports whether a guarded UPDATE took the row.
func claimed(res sql.Result, err error, what string, id any) (bool, error) {
	n, err := rowsAffected(res, err)
	if err != nil {
		return false, fmt.Errorf("sqlstore: %s %v: %w", what, id, err)
	}
	return n == 1, nil
}

// guarded turns a guarded UPDATE that matched nothing into ErrConflict: the row moved on.
func guarded(res sql.Result, err error, what string, id int64) error {
	ok, err := claimed(res, err, what, id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("sqlstore: %s %d: %w", what, id, store.ErrConflict)
	}
	return nil
}

// limitArg is the LIMIT of a page: no limit for a negative Limit, as store.All asks.
func limitArg(limit int) int64 {
	if limit < 0 {
		return math.MaxInt64
	}
	return int64(limit)
}

// sleep waits d or until ctx ends: the waits between tries (a transaction's retry, a batch's
// lock).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
