package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// querier is what *pgxpool.Pool and pgx.Tx share, so every query runs inside or outside a
// transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// queries are the store's reads and writes on q. locks is nil outside a transaction.
type queries struct {
	q     querier
	locks *txLocks
}

var _ store.Tx = queries{}

const accountColumns = `id, key_hash, key_hint, key_created_at, server_limit, order_limit, language,
	blocked, kyc_verified, apps_enabled, balance_micros, debt_micros, created_at, low_balance_alert`

func scanAccount(r pgx.Row) (store.Account, error) {
	var a store.Account
	var ts timeScanner
	err := r.Scan(&a.ID, &a.KeyHash, &a.KeyHint, ts.at(&a.KeyCreatedAt), &a.ServerLimit, &a.OrderLimit, &a.Language,
		&a.Blocked, &a.KYCVerified, &a.AppsEnabled, &a.Balance, &a.Debt, ts.at(&a.CreatedAt), &a.LowBalanceAlert)
	if err != nil {
		return store.Account{}, mapError(err)
	}
	ts.parse()
	return a, nil
}

func (q queries) CreateAccount(ctx context.Context, a store.NewAccount) (store.Account, error) {
	const insert = `INSERT INTO accounts (key_hash, key_hint, key_created_at, server_limit, order_limit, language, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ` + accountColumns
	acct, err := scanAccount(q.q.QueryRow(ctx, insert, a.KeyHash, a.KeyHint, a.KeyCreatedAt.UTC(),
		a.ServerLimit, a.OrderLimit, a.Language, a.CreatedAt.UTC()))
	if err != nil {
		return store.Account{}, fmt.Errorf("postgres: create account: %w", err)
	}
	if q.locks != nil {
		q.locks.accounts[acct.ID] = true // a row this transaction inserted is its own
	}
	return acct, nil
}

// Account reads an account; in a transaction it also locks the account's row until the commit,
// which is what serialises the wallet and the order limits across replicas.
func (q queries) Account(ctx context.Context, id int64) (store.Account, error) {
	acct, err := scanAccount(q.q.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`+q.rowLock(), id))
	if err != nil {
		return store.Account{}, fmt.Errorf("postgres: account %d: %w", id, err)
	}
	if q.locks != nil {
		q.locks.accounts[id] = true
	}
	return acct, nil
}

// AccountByKeyHash authenticates a request; it never locks (it is not used to decide a write).
func (q queries) AccountByKeyHash(ctx context.Context, hash []byte) (store.Account, error) {
	acct, err := scanAccount(q.q.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE key_hash = $1`, hash))
	if err != nil {
		return store.Account{}, fmt.Errorf("postgres: account by key: %w", err)
	}
	return acct, nil
}

func (q queries) SetAccountKey(ctx context.Context, id int64, hash []byte, hint string, createdAt time.Time) error {
	if err := q.lockAccount(ctx, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE accounts SET key_hash = $1, key_hint = $2, key_created_at = $3 WHERE id = $4`,
		hash, hint, createdAt.UTC(), id)
	return checkOneRow(tag, err, "set key of account", id)
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
		return fmt.Errorf("postgres: unknown account flag %d", flag)
	}
	if err := q.lockAccount(ctx, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE accounts SET `+col+` = $1 WHERE id = $2`, value, id)
	return checkOneRow(tag, err, "set "+col+" of account", id)
}

// checkOneRow turns an UPDATE that matched no row into ErrNotFound.
func checkOneRow(tag pgconn.CommandTag, err error, what string, id int64) error {
	if err != nil {
		return fmt.Errorf("postgres: %s %d: %w", what, id, mapError(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: %s %d: %w", what, id, store.ErrNotFound)
	}
	return nil
}

func (q queries) AddPayment(ctx context.Context, p store.Payment) (store.Payment, error) {
	if err := q.lockAccount(ctx, p.AccountID); err != nil {
		return store.Payment{}, err
	}
	err := q.q.QueryRow(ctx, `INSERT INTO payments (account_id, amount_micros, payment_type, paid_at)
		VALUES ($1, $2, $3, $4) RETURNING id`, p.AccountID, p.Amount, p.Type, p.PaidAt.UTC()).Scan(&p.ID)
	if err != nil {
		return store.Payment{}, fmt.Errorf("postgres: add payment: %w", mapError(err))
	}
	return p, nil
}

func (q queries) Payments(ctx context.Context, accountID int64, page store.Page) ([]store.Payment, int, error) {
	var total int
	if err := q.q.QueryRow(ctx, `SELECT COUNT(*) FROM payments WHERE account_id = $1`, accountID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("postgres: count payments: %w", err)
	}
	rows, err := q.q.Query(ctx, `SELECT id, account_id, amount_micros, payment_type, paid_at FROM payments
		WHERE account_id = $1 ORDER BY paid_at DESC, id DESC LIMIT $2 OFFSET $3`, accountID, limitArg(page.Limit), page.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: list payments: %w", err)
	}
	out, err := collect(rows, func(r pgx.Rows) (store.Payment, error) {
		var p store.Payment
		var ts timeScanner
		err := r.Scan(&p.ID, &p.AccountID, &p.Amount, &p.Type, ts.at(&p.PaidAt))
		ts.parse()
		return p, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: list payments: %w", err)
	}
	return out, total, nil
}

// AddLedgerEntry moves the balance and writes the entry, in the caller's transaction so both
// land together (outside a transaction they are two statements, as on SQLite; the service
// always calls it in one).
func (q queries) AddLedgerEntry(ctx context.Context, e store.LedgerEntry) (store.LedgerEntry, error) {
	if err := q.lockAccount(ctx, e.AccountID); err != nil {
		return store.LedgerEntry{}, err
	}
	tag, err := q.q.Exec(ctx, `UPDATE accounts SET balance_micros = balance_micros + $1, debt_micros = debt_micros + $2
		WHERE id = $3`, e.Amount, e.Debt, e.AccountID)
	if err := checkOneRow(tag, err, "move balance of account", e.AccountID); err != nil {
		return store.LedgerEntry{}, err
	}
	err = q.q.QueryRow(ctx, `INSERT INTO ledger (account_id, amount_micros, debt_micros, kind, reference, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, e.AccountID, e.Amount, e.Debt, e.Kind, e.Reference, e.CreatedAt.UTC()).Scan(&e.ID)
	if err != nil {
		return store.LedgerEntry{}, fmt.Errorf("postgres: add ledger entry: %w", mapError(err))
	}
	return e, nil
}

func (q queries) LedgerEntries(ctx context.Context, accountID int64) ([]store.LedgerEntry, error) {
	rows, err := q.q.Query(ctx, `SELECT id, account_id, amount_micros, debt_micros, kind, reference, created_at
		FROM ledger WHERE account_id = $1 ORDER BY id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("postgres: list ledger: %w", err)
	}
	out, err := collect(rows, func(r pgx.Rows) (store.LedgerEntry, error) {
		var e store.LedgerEntry
		var ts timeScanner
		err := r.Scan(&e.ID, &e.AccountID, &e.Amount, &e.Debt, &e.Kind, &e.Reference, ts.at(&e.CreatedAt))
		ts.parse()
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list ledger: %w", err)
	}
	return out, nil
}

func (q queries) LedgerSum(ctx context.Context, accountID int64) (money.Micros, error) {
	var sum money.Micros
	if err := q.q.QueryRow(ctx, `SELECT COALESCE(SUM(amount_micros), 0)::BIGINT FROM ledger WHERE account_id = $1`, accountID).Scan(&sum); err != nil {
		return 0, fmt.Errorf("postgres: ledger sum: %w", err)
	}
	return sum, nil
}

func (q queries) OrderTotals(ctx context.Context, accountID int64) (store.OrderTotals, error) {
	var t store.OrderTotals
	err := q.q.QueryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(price_micros), 0)::BIGINT FROM orders
		WHERE account_id = $1 AND status = $2`, accountID, store.OrderPending).Scan(&t.Pending, &t.Reserved)
	if err != nil {
		return store.OrderTotals{}, fmt.Errorf("postgres: order totals: %w", err)
	}
	return t, nil
}

// collect reads every row with scan and closes rows. It returns an empty slice, never nil, so
// an empty list encodes as [] like the SQLite store's.
func collect[T any](rows pgx.Rows, scan func(pgx.Rows) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, mapError(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, mapError(err)
	}
	return out, nil
}
