package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const accountColumns = `id, key_hash, key_hint, key_created_at, server_limit, order_limit, language,
	blocked, kyc_verified, apps_enabled, balance_micros, debt_micros, created_at, low_balance_alert, key_tag`

func scanAccount(r rowScanner) (store.Account, error) {
	var a store.Account
	err := r.Scan(accountDest(&a)...)
	return a, err
}

// accountDest is where the columns of accountColumns are scanned to.
func accountDest(a *store.Account) []any {
	return []any{&a.ID, &a.KeyHash, &a.KeyHint, at(&a.KeyCreatedAt), &a.ServerLimit, &a.OrderLimit, &a.Language,
		&a.Blocked, &a.KYCVerified, &a.AppsEnabled, &a.Balance, &a.Debt, at(&a.CreatedAt), &a.LowBalanceAlert, &a.KeyTag}
}

func (q queries) CreateAccount(ctx context.Context, a store.NewAccount) (store.Account, error) {
	const insert = `INSERT INTO accounts (key_hash, key_hint, key_created_at, server_limit, order_limit, language, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ` + accountColumns
	acct, err := scanAccount(q.queryRow(ctx, insert, a.KeyHash, a.KeyHint, a.KeyCreatedAt,
		a.ServerLimit, a.OrderLimit, a.Language, a.CreatedAt))
	if err != nil {
		return store.Account{}, fmt.Errorf("sqlstore: create account: %w", err)
	}
	if q.locks != nil {
		q.locks.accounts[acct.ID] = true // a row this transaction inserted is its own
	}
	return acct, nil
}

// Account reads an account; in a PostgreSQL transaction it also locks the account's row until
// the commit, which is what serialises the wallet and the order limits across replicas.
func (q queries) Account(ctx context.Context, id int64) (store.Account, error) {
	acct, err := scanAccount(q.queryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`+q.rowLock(forUpdate), id))
	if err != nil {
		return store.Account{}, fmt.Errorf("sqlstore: account %d: %w", id, err)
	}
	if q.locks != nil {
		q.locks.accounts[id] = true
	}
	return acct, nil
}

// accountCountsColumns are an account's columns with the counts kept on its row
// (accountCountsDest).
const accountCountsColumns = accountColumns + `, orders_pending, orders_reserved_micros, instances_active`

// accountCountsDest is the Scan destination of accountCountsColumns.
func accountCountsDest(c *store.AccountCounts) []any {
	return append(accountDest(&c.Account), &c.Orders.Pending, &c.Orders.Reserved, &c.ActiveInstances)
}

// AccountCounts reads the account with its order totals and active instances, kept on its row
// (countOrder, activeCountChanged), in one statement: a new order is checked with one
// round trip instead of three, inside the account's lock. In a transaction it locks the row as
// Account does.
func (q queries) AccountCounts(ctx context.Context, id int64) (store.AccountCounts, error) {
	var c store.AccountCounts
	err := q.queryRow(ctx, `SELECT `+accountCountsColumns+` FROM accounts WHERE id = ?`+q.rowLock(forUpdate), id).
		Scan(accountCountsDest(&c)...)
	if err != nil {
		return store.AccountCounts{}, fmt.Errorf("sqlstore: account %d with counts: %w", id, err)
	}
	if q.locks != nil {
		q.locks.accounts[id] = true
	}
	return c, nil
}

// AccountByKeyHash authenticates a request outside transactions, through the row cache (see
// cache.go): on SQLite a repeated key runs no SQL until the next commit.
func (s *Store) AccountByKeyHash(ctx context.Context, hash []byte) (store.Account, error) {
	return cached(ctx, s.cache, cacheKey{kind: cachedAccount, hash: string(hash)}, accountScope, func() (store.Account, error) {
		return s.queries.AccountByKeyHash(ctx, hash)
	})
}

// accountScope is the scope of a cached account: its own changes drop it.
func accountScope(a store.Account) int64 { return a.ID }

// AccountByKeyHash reads the account of a key hash; it never locks (it is not used to decide
// a write).
func (q queries) AccountByKeyHash(ctx context.Context, hash []byte) (store.Account, error) {
	acct, err := scanAccount(q.queryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE key_hash = ?`, hash))
	if err != nil {
		return store.Account{}, fmt.Errorf("sqlstore: account by key: %w", err)
	}
	return acct, nil
}

func (q queries) SetAccountKey(ctx context.Context, id int64, hash, tag []byte, hint string, createdAt time.Time) error {
	if err := q.lockAccount(ctx, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE accounts SET key_hash = ?, key_tag = ?, key_hint = ?, key_created_at = ? WHERE id = ?`,
		hash, tag, hint, createdAt, id)
	return checkOneRow(res, err, "set key of account", id)
}

// flagColumns maps a flag to its column; the map, not the caller, decides the SQL text.
var flagColumns = map[store.Flag]string{
	store.FlagBlocked:     "blocked",
	store.FlagKYCVerified: "kyc_verified",
	store.FlagAppsEnabled: "apps_enabled",
}

func (q queries) SetAccountFlag(ctx context.Context, id int64, flag store.Flag, value bool) error {
	col, ok := flagColumns[flag]
	if !ok {
		return fmt.Errorf("sqlstore: unknown account flag %d", flag)
	}
	if err := q.lockAccount(ctx, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE accounts SET `+col+` = ? WHERE id = ?`, value, id)
	return checkOneRow(res, err, "set "+col+" of account", id)
}
