package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// querier is what *sql.DB and *sql.Tx share, so every query runs inside or outside a transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type queries struct {
	q querier
}

var _ store.Tx = queries{}

const accountColumns = `id, key_hash, key_hint, key_created_at, server_limit, order_limit, language,
	blocked, kyc_verified, apps_enabled, balance_micros, debt_micros, created_at, low_balance_alert`

// rowScanner is what *sql.Row and *sql.Rows share.
type rowScanner interface{ Scan(dest ...any) error }

func scanAccount(r rowScanner) (store.Account, error) {
	var a store.Account
	var keyCreated, created string
	err := r.Scan(&a.ID, &a.KeyHash, &a.KeyHint, &keyCreated, &a.ServerLimit, &a.OrderLimit, &a.Language,
		&a.Blocked, &a.KYCVerified, &a.AppsEnabled, &a.Balance, &a.Debt, &created, &a.LowBalanceAlert)
	if err != nil {
		return store.Account{}, mapError(err)
	}
	if a.KeyCreatedAt, err = parseTime(keyCreated); err != nil {
		return store.Account{}, err
	}
	if a.CreatedAt, err = parseTime(created); err != nil {
		return store.Account{}, err
	}
	return a, nil
}

func (q queries) CreateAccount(ctx context.Context, a store.NewAccount) (store.Account, error) {
	const insert = `INSERT INTO accounts (key_hash, key_hint, key_created_at, server_limit, order_limit, language, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ` + accountColumns
	acct, err := scanAccount(q.q.QueryRowContext(ctx, insert, a.KeyHash, a.KeyHint, formatTime(a.KeyCreatedAt),
		a.ServerLimit, a.OrderLimit, a.Language, formatTime(a.CreatedAt)))
	if err != nil {
		return store.Account{}, fmt.Errorf("sqlite: create account: %w", err)
	}
	return acct, nil
}

func (q queries) Account(ctx context.Context, id int64) (store.Account, error) {
	acct, err := scanAccount(q.q.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, id))
	if err != nil {
		return store.Account{}, fmt.Errorf("sqlite: account %d: %w", id, err)
	}
	return acct, nil
}

func (q queries) AccountByKeyHash(ctx context.Context, hash []byte) (store.Account, error) {
	acct, err := scanAccount(q.q.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE key_hash = ?`, hash))
	if err != nil {
		return store.Account{}, fmt.Errorf("sqlite: account by key: %w", err)
	}
	return acct, nil
}

func (q queries) SetAccountKey(ctx context.Context, id int64, hash []byte, hint string, createdAt time.Time) error {
	res, err := q.q.ExecContext(ctx, `UPDATE accounts SET key_hash = ?, key_hint = ?, key_created_at = ? WHERE id = ?`,
		hash, hint, formatTime(createdAt), id)
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
		return fmt.Errorf("sqlite: unknown account flag %d", flag)
	}
	res, err := q.q.ExecContext(ctx, `UPDATE accounts SET `+col+` = ? WHERE id = ?`, value, id)
	return checkOneRow(res, err, "set "+col+" of account", id)
}

func checkOneRow(res sql.Result, err error, what string, id int64) error {
	if err != nil {
		return fmt.Errorf("sqlite: %s %d: %w", what, id, mapError(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlite: %s %d: %w", what, id, err)
	}
	if n == 0 {
		return fmt.Errorf("sqlite: %s %d: %w", what, id, store.ErrNotFound)
	}
	return nil
}

func (q queries) AddPayment(ctx context.Context, p store.Payment) (store.Payment, error) {
	err := q.q.QueryRowContext(ctx, `INSERT INTO payments (account_id, amount_micros, payment_type, paid_at)
		VALUES (?, ?, ?, ?) RETURNING id`, p.AccountID, p.Amount, p.Type, formatTime(p.PaidAt)).Scan(&p.ID)
	if err != nil {
		return store.Payment{}, fmt.Errorf("sqlite: add payment: %w", mapError(err))
	}
	return p, nil
}

func (q queries) Payments(ctx context.Context, accountID int64, page store.Page) ([]store.Payment, int, error) {
	var total int
	if err := q.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM payments WHERE account_id = ?`, accountID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sqlite: count payments: %w", err)
	}
	rows, err := q.q.QueryContext(ctx, `SELECT id, account_id, amount_micros, payment_type, paid_at FROM payments
		WHERE account_id = ? ORDER BY paid_at DESC, id DESC LIMIT ? OFFSET ?`, accountID, page.Limit, page.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: list payments: %w", err)
	}
	defer rows.Close()
	out := []store.Payment{}
	for rows.Next() {
		var p store.Payment
		var paid string
		if err := rows.Scan(&p.ID, &p.AccountID, &p.Amount, &p.Type, &paid); err != nil {
			return nil, 0, fmt.Errorf("sqlite: scan payment: %w", err)
		}
		if p.PaidAt, err = parseTime(paid); err != nil {
			return nil, 0, err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("sqlite: list payments: %w", err)
	}
	return out, total, nil
}

func (q queries) AddLedgerEntry(ctx context.Context, e store.LedgerEntry) (store.LedgerEntry, error) {
	res, err := q.q.ExecContext(ctx, `UPDATE accounts SET balance_micros = balance_micros + ?, debt_micros = debt_micros + ?
		WHERE id = ?`, e.Amount, e.Debt, e.AccountID)
	if err := checkOneRow(res, err, "move balance of account", e.AccountID); err != nil {
		return store.LedgerEntry{}, err
	}
	err = q.q.QueryRowContext(ctx, `INSERT INTO ledger (account_id, amount_micros, debt_micros, kind, reference, created_at)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, e.AccountID, e.Amount, e.Debt, e.Kind, e.Reference, formatTime(e.CreatedAt)).Scan(&e.ID)
	if err != nil {
		return store.LedgerEntry{}, fmt.Errorf("sqlite: add ledger entry: %w", mapError(err))
	}
	return e, nil
}

func (q queries) LedgerEntries(ctx context.Context, accountID int64) ([]store.LedgerEntry, error) {
	rows, err := q.q.QueryContext(ctx, `SELECT id, account_id, amount_micros, debt_micros, kind, reference, created_at
		FROM ledger WHERE account_id = ? ORDER BY id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list ledger: %w", err)
	}
	defer rows.Close()
	out := []store.LedgerEntry{}
	for rows.Next() {
		var e store.LedgerEntry
		var created string
		if err := rows.Scan(&e.ID, &e.AccountID, &e.Amount, &e.Debt, &e.Kind, &e.Reference, &created); err != nil {
			return nil, fmt.Errorf("sqlite: scan ledger entry: %w", err)
		}
		if e.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list ledger: %w", err)
	}
	return out, nil
}

func (q queries) LedgerSum(ctx context.Context, accountID int64) (money.Micros, error) {
	var sum money.Micros
	if err := q.q.QueryRowContext(ctx, `SELECT COALESCE(SUM(amount_micros), 0) FROM ledger WHERE account_id = ?`, accountID).Scan(&sum); err != nil {
		return 0, fmt.Errorf("sqlite: ledger sum: %w", err)
	}
	return sum, nil
}

func (q queries) OrderTotals(ctx context.Context, accountID int64) (store.OrderTotals, error) {
	var t store.OrderTotals
	err := q.q.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(price_micros), 0) FROM orders
		WHERE account_id = ? AND status = ?`, accountID, store.OrderPending).Scan(&t.Pending, &t.Reserved)
	if err != nil {
		return store.OrderTotals{}, fmt.Errorf("sqlite: order totals: %w", err)
	}
	return t, nil
}
