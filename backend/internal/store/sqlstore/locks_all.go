package sqlstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Several accounts locked at once (a batch of deploys or of charges, lockAccounts and
// LockAccounts) are taken without holding some of them while waiting for the others.
//
// PostgreSQL locks the rows of one statement one at a time in id order, and waits at the first
// row another transaction holds, keeping the rows it already has. Under a load of orders the row
// it waited for was an order group's, held until that group's commit, and meanwhile every new
// order of the accounts the batch already held queued behind the batch: pg_stat_statements put
// 0.19 s on each batch's lock and 4.9 ms on each order's statement (bench/README.md, issue 44).
//
// So lockedList first asks for all the rows at once without waiting (NOWAIT) inside a
// savepoint. When one is held, rolling back to the savepoint releases the rows it took, and it
// asks again a moment later, each wait twice the last (lockPatience). Past that it waits in line
// as before, so a batch is never starved by a stream of orders.

// lockPatience is how lockedList retries: the first wait, and how long the waits add up to
// before it waits in line.
type lockPatience struct {
	first, total time.Duration
}

// defaultLockPatience tries for about a quarter of a second: an order group holds an account
// for a few milliseconds, so a batch of ten accounts finds them all free within a few tries.
var defaultLockPatience = lockPatience{first: 500 * time.Microsecond, total: 250 * time.Millisecond}

// codeLockNotAvailable is what NOWAIT answers when a row is held.
const codeLockNotAvailable = "55P03"

// lockedList is list for query, a read that locks rows (FOR NO KEY UPDATE) in a PostgreSQL
// transaction, taken all at once or not at all until patience runs out (see above). Outside a
// transaction and on SQLite it is list.
func lockedList[T any](ctx context.Context, q queries, what string, scan func(rowScanner) (T, error), query string, args ...any) ([]T, error) {
	if q.locks == nil {
		return list(ctx, q, what, scan, query, args...)
	}
	patience := q.locks.patience
	for wait, waited := patience.first, time.Duration(0); wait > 0 && waited < patience.total; wait *= 2 {
		out, err := tryLocked(ctx, q, what, scan, query, args)
		if !lockNotAvailable(err) {
			return out, err
		}
		wait = min(wait, patience.total-waited)
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
		waited += wait
	}
	return list(ctx, q, what, scan, query, args...)
}

// tryLocked runs query with NOWAIT in a savepoint, which it rolls back when the query fails, so
// a refused attempt holds no row.
func tryLocked[T any](ctx context.Context, q queries, what string, scan func(rowScanner) (T, error), query string, args []any) ([]T, error) {
	if _, err := q.exec(ctx, `SAVEPOINT lock_rows`); err != nil {
		return nil, err
	}
	out, err := list(ctx, q, what, scan, query+` NOWAIT`, args...)
	if err != nil {
		if _, rerr := q.exec(ctx, `ROLLBACK TO SAVEPOINT lock_rows`); rerr != nil {
			return nil, errors.Join(err, rerr)
		}
		return nil, err
	}
	if _, err := q.exec(ctx, `RELEASE SAVEPOINT lock_rows`); err != nil {
		return nil, err
	}
	return out, nil
}

// lockNotAvailable reports whether err is NOWAIT's refusal.
func lockNotAvailable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == codeLockNotAvailable
}
