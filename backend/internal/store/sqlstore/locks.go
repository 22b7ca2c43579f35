package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// txLocks remembers the accounts a transaction has locked, so each is locked with one query.
// It is nil outside a transaction, where every call is one statement and needs no lock, and
// always on SQLite.
type txLocks struct {
	accounts map[int64]bool
	patience lockPatience // see lockedList
}

// ownedTable is a table whose rows belong to an account, directly or through their instance.
type ownedTable int

const (
	tableInstances ownedTable = iota + 1
	tableOrders
	tableSnapshots
	tableAppInstalls
)

// spec is what the store knows of t: how a row is named in errors, the query that reads the
// account owning the row with id ? (a fixed text per table, so no caller's string reaches the
// SQL), and the clause that locks one row read alone.
func (t ownedTable) spec() (name, ownerQuery, rowLock string, err error) {
	switch t {
	case tableInstances:
		return "instance", `SELECT account_id FROM instances WHERE id = ?`, forUpdate, nil
	case tableOrders:
		return "order", `SELECT account_id FROM orders WHERE id = ?`, forUpdate, nil
	case tableSnapshots:
		return "snapshot", `SELECT account_id FROM snapshots WHERE id = ?`, snapshotForUpdate, nil
	case tableAppInstalls:
		return "app install", `SELECT i.account_id FROM app_installs a JOIN instances i ON i.id = a.instance_id
			WHERE a.id = ?`, forUpdate, nil
	}
	return "", "", "", fmt.Errorf("sqlstore: unknown table %d", t)
}

// one reads row id of table with query (which selects that row alone) and scan. In a
// transaction it locks the owning account first, then the row itself, until the commit.
func one[T any](ctx context.Context, q queries, table ownedTable, id int64, scan func(rowScanner) (T, error),
	query string, args ...any) (T, error) {
	var zero T
	name, _, lock, err := table.spec()
	if err != nil {
		return zero, err
	}
	if err := q.lockOwner(ctx, table, id); err != nil {
		return zero, err
	}
	v, err := scan(q.queryRow(ctx, query+q.rowLock(lock), args...))
	if err != nil {
		return zero, fmt.Errorf("sqlstore: %s %d: %w", name, id, err)
	}
	return v, nil
}

// Lock clauses (PostgreSQL only; see the package comment).
const (
	// forUpdate is appended to a single-row read in a transaction: the row stays locked until
	// the commit, so what the transaction writes back is based on what it read.
	forUpdate = ` FOR NO KEY UPDATE`
	// skipLocked ends a worker's list of candidates: rows another transaction holds right now
	// are left out rather than waited for.
	skipLocked = ` FOR UPDATE SKIP LOCKED`
	// The snapshot variants lock the snapshot only, never the joined instance (the nullable
	// side of the outer join cannot be locked, and need not be).
	snapshotForUpdate  = forUpdate + ` OF s`
	snapshotSkipLocked = ` FOR UPDATE OF s SKIP LOCKED`
)

// lockAccount locks the account's row for the rest of the transaction (account first). An
// account that does not exist is no error here; the statement that follows reports it.
func (q queries) lockAccount(ctx context.Context, id int64) error {
	if q.locks == nil || q.locks.accounts[id] {
		return nil
	}
	var got int64
	err := q.queryRow(ctx, `SELECT id FROM accounts WHERE id = ?`+forUpdate, id).Scan(&got)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("sqlstore: lock account %d: %w", id, err)
	}
	q.locks.accounts[id] = true
	return nil
}

// lockOwner locks the account that owns row id of table, before the row itself is touched. The
// owner never changes, so reading it without a lock is safe.
func (q queries) lockOwner(ctx context.Context, table ownedTable, id int64) error {
	if q.locks == nil {
		return nil
	}
	_, query, _, err := table.spec()
	if err != nil {
		return err
	}
	var owner int64
	err = q.queryRow(ctx, query, id).Scan(&owner)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the statement that follows reports the missing row
	}
	if err != nil {
		return fmt.Errorf("sqlstore: owner of row %d: %w", id, err)
	}
	return q.lockAccount(ctx, owner)
}

// lockInstanceOwners is lockOwner for the instances ids, with one statement to read their
// accounts and at most one more to lock them (lockAccounts).
func (q queries) lockInstanceOwners(ctx context.Context, ids []int64) error {
	if q.locks == nil || len(ids) == 0 {
		return nil
	}
	in, args := inList(ids)
	owners, err := list(ctx, q, "owners", scanID, `SELECT DISTINCT account_id FROM instances WHERE id IN `+in, args...)
	if err != nil {
		return fmt.Errorf("sqlstore: owners of %d instances: %w", len(ids), err)
	}
	return q.lockAccounts(ctx, owners)
}

// rowLock is lock inside a transaction that locks rows, and nothing otherwise.
func (q queries) rowLock(lock string) string {
	if q.locks == nil {
		return ""
	}
	return lock
}

// workerLock is lock wherever the dialect locks rows, in a transaction or not.
func (q queries) workerLock(lock string) string {
	if !q.d.rowLocks {
		return ""
	}
	return lock
}
