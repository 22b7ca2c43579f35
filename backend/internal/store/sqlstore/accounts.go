package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const accountColumns = `id, key_hash, key_hint, key_created_at, server_limit, order_limit, language,
	blocked, kyc_verified, apps_enabled, balance_micros, debt_micros, created_at, low_balance_alert`

func scanAccount(r rowScanner) (store.Account, error) {
	var a store.Account
	err := r.Scan(&a.ID, &a.KeyHash, &a.KeyHint, at(&a.KeyCreatedAt), &a.ServerLimit, &a.OrderLimit, &a.Language,
		&a.Blocked, &a.KYCVerified, &a.AppsEnabled, &a.Balance, &a.Debt, at(&a.CreatedAt), &a.LowBalanceAlert)
	return a, err
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

// AccountByKeyHash authenticates a request; it never locks (it is not used to decide a write).
func (q queries) AccountByKeyHash(ctx context.Context, hash []byte) (store.Account, error) {
	acct, err := scanAccount(q.queryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE key_hash = ?`, hash))
	if err != nil {
		return store.Account{}, fmt.Errorf("sqlstore: account by key: %w", err)
	}
	return acct, nil
}

func (q queries) SetAccountKey(ctx context.Context, id int64, hash []byte, hint string, createdAt time.Time) error {
	if err := q.lockAccount(ctx, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE accounts SET key_hash = ?, key_hint = ?, key_created_at = ? WHERE id = ?`,
		hash, hint, createdAt, id)
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

func (q queries) AddPayment(ctx context.Context, p store.Payment) (store.Payment, error) {
	if err := q.lockAccount(ctx, p.AccountID); err != nil {
		return store.Payment{}, err
	}
	err := q.queryRow(ctx, `INSERT INTO payments (account_id, amount_micros, payment_type, paid_at)
		VALUES (?, ?, ?, ?) RETURNING id`, p.AccountID, p.Amount, p.Type, p.PaidAt).Scan(&p.ID)
	if err != nil {
		return store.Payment{}, fmt.Errorf("sqlstore: add payment: %w", err)
	}
	return p, nil
}

func (q queries) Payments(ctx context.Context, accountID int64, page store.Page) ([]store.Payment, int, error) {
	var total int
	if err := q.queryRow(ctx, `SELECT COUNT(*) FROM payments WHERE account_id = ?`, accountID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count payments: %w", err)
	}
	out, err := list(ctx, q, "payments", func(r rowScanner) (store.Payment, error) {
		var p store.Payment
		err := r.Scan(&p.ID, &p.AccountID, &p.Amount, &p.Type, at(&p.PaidAt))
		return p, err
	}, `SELECT id, account_id, amount_micros, payment_type, paid_at FROM payments
		WHERE account_id = ? ORDER BY paid_at DESC, id DESC LIMIT ? OFFSET ?`, accountID, limitArg(page.Limit), page.Offset)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// AddLedgerEntry moves the balance and writes the entry, in the caller's transaction so both
// land together (outside a transaction they are two statements; the service always calls it
// in one).
func (q queries) AddLedgerEntry(ctx context.Context, e store.LedgerEntry) (store.LedgerEntry, error) {
	if err := q.lockAccount(ctx, e.AccountID); err != nil {
		return store.LedgerEntry{}, err
	}
	res, err := q.exec(ctx, `UPDATE accounts SET balance_micros = balance_micros + ?, debt_micros = debt_micros + ?,
		wallet_seq = wallet_seq + 1 WHERE id = ?`, e.Amount, e.Debt, e.AccountID)
	if err := checkOneRow(res, err, "move balance of account", e.AccountID); err != nil {
		return store.LedgerEntry{}, err
	}
	err = q.queryRow(ctx, `INSERT INTO ledger (account_id, amount_micros, debt_micros, kind, reference, created_at)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, e.AccountID, e.Amount, e.Debt, e.Kind, e.Reference, e.CreatedAt).Scan(&e.ID)
	if err != nil {
		return store.LedgerEntry{}, fmt.Errorf("sqlstore: add ledger entry: %w", err)
	}
	return e, nil
}

func (q queries) LedgerEntries(ctx context.Context, accountID int64) ([]store.LedgerEntry, error) {
	return list(ctx, q, "ledger", func(r rowScanner) (store.LedgerEntry, error) {
		var e store.LedgerEntry
		err := r.Scan(&e.ID, &e.AccountID, &e.Amount, &e.Debt, &e.Kind, &e.Reference, at(&e.CreatedAt))
		return e, err
	}, `SELECT id, account_id, amount_micros, debt_micros, kind, reference, created_at
		FROM ledger WHERE account_id = ? ORDER BY id`, accountID)
}

func (q queries) LedgerSum(ctx context.Context, accountID int64) (money.Micros, error) {
	var sum money.Micros
	err := q.queryRow(ctx, `SELECT CAST(COALESCE(SUM(amount_micros), 0) AS BIGINT) FROM ledger WHERE account_id = ?`,
		accountID).Scan(&sum)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: ledger sum: %w", err)
	}
	return sum, nil
}

func (q queries) OrderTotals(ctx context.Context, accountID int64) (store.OrderTotals, error) {
	var t store.OrderTotals
	if err := q.lockAccount(ctx, accountID); err != nil {
		return store.OrderTotals{}, err
	}
	err := q.queryRow(ctx, `SELECT orders_pending, orders_reserved_micros FROM accounts WHERE id = ?`, accountID).
		Scan(&t.Pending, &t.Reserved)
	if err != nil {
		return store.OrderTotals{}, fmt.Errorf("sqlstore: order totals: %w", err)
	}
	return t, nil
}
