package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// txLocks remembers the accounts a transaction has locked, so each is locked with one query.
// It is nil outside a transaction, where every call is one statement and needs no lock.
type txLocks struct {
	accounts map[int64]bool
}

func newLocks() *txLocks { return &txLocks{accounts: map[int64]bool{}} }

// ownedTable is a table whose rows belong to an account, directly or through their instance.
type ownedTable int

const (
	tableInstances ownedTable = iota + 1
	tableOrders
	tableSnapshots
	tableAppInstalls
)

// ownerQuery reads the account that owns the row of t with id $1. A fixed text per table, so
// no caller's string reaches the SQL.
func (t ownedTable) ownerQuery() (string, error) {
	switch t {
	case tableInstances:
		return `SELECT account_id FROM instances WHERE id = $1`, nil
	case tableOrders:
		return `SELECT account_id FROM orders WHERE id = $1`, nil
	case tableSnapshots:
		return `SELECT account_id FROM snapshots WHERE id = $1`, nil
	case tableAppInstalls:
		return `SELECT i.account_id FROM app_installs a JOIN instances i ON i.id = a.instance_id WHERE a.id = $1`, nil
	}
	return "", fmt.Errorf("postgres: no owner query for table %d", t)
}

// forUpdate is appended to a single-row read in a transaction: the row stays locked until the
// commit, so what the transaction writes back is based on what it read.
const forUpdate = ` FOR NO KEY UPDATE`

// lockAccount locks the account's row for the rest of the transaction (see the package
// comment: account first). An account that does not exist is no error here; the statement
// that follows reports it.
func (q queries) lockAccount(ctx context.Context, id int64) error {
	if q.locks == nil || q.locks.accounts[id] {
		return nil
	}
	var got int64
	err := q.q.QueryRow(ctx, `SELECT id FROM accounts WHERE id = $1`+forUpdate, id).Scan(&got)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: lock account %d: %w", id, err)
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
	query, err := table.ownerQuery()
	if err != nil {
		return err
	}
	var owner int64
	err = q.q.QueryRow(ctx, query, id).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // the statement that follows reports the missing row
	}
	if err != nil {
		return fmt.Errorf("postgres: owner of row %d: %w", id, err)
	}
	return q.lockAccount(ctx, owner)
}

// rowLock is forUpdate inside a transaction and nothing outside one.
func (q queries) rowLock() string {
	if q.locks == nil {
		return ""
	}
	return forUpdate
}
