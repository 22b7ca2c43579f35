package sqlstore

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The operator's reads and writes: the audit trail (migration 0015), the account list a page at
// a time, an account's pending orders and its settings.

const auditColumns = `id, created_at, operator, command, account_id, instance_id, reason, before_state, after_state`

func scanAuditEntry(r rowScanner) (store.AuditEntry, error) {
	var e store.AuditEntry
	err := r.Scan(&e.ID, at(&e.CreatedAt), &e.Operator, &e.Command, &e.AccountID, &e.InstanceID, &e.Reason,
		&e.Before, &e.After)
	return e, err
}

// AddAuditEntry appends e. It takes no account lock: the entry is written in the transaction
// of the change it records, which has locked what it changed.
func (q queries) AddAuditEntry(ctx context.Context, e store.AuditEntry) (int64, error) {
	var id int64
	err := q.queryRow(ctx, `INSERT INTO audit_entries
		(created_at, operator, command, account_id, instance_id, reason, before_state, after_state)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		e.CreatedAt, e.Operator, e.Command, e.AccountID, e.InstanceID, e.Reason, jsonOrEmpty(e.Before), jsonOrEmpty(e.After)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: add audit entry: %w", err)
	}
	return id, nil
}

// jsonOrEmpty is s, or the empty JSON object for an empty s.
func jsonOrEmpty(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}

// AuditEntries reads a page of the trail through the primary key, or audit_entries_account
// for one account.
func (q queries) AuditEntries(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, error) {
	query := `SELECT ` + auditColumns + ` FROM audit_entries WHERE id > ? AND created_at >= ?`
	args := []any{f.AfterID, f.Since}
	if f.AccountID != 0 {
		query += ` AND account_id = ?`
		args = append(args, f.AccountID)
	}
	args = append(args, limitArg(f.Limit))
	return list(ctx, q, "audit entries", scanAuditEntry, query+` ORDER BY id LIMIT ?`, args...)
}

// accountsAfter reads a page of accounts with their counts through the primary key.
const accountsAfter = `SELECT ` + accountCountsColumns + ` FROM accounts WHERE id > ? ORDER BY id LIMIT ?`

func (q queries) AccountsAfter(ctx context.Context, afterID int64, limit int) ([]store.AccountCounts, error) {
	return list(ctx, q, "accounts", func(r rowScanner) (store.AccountCounts, error) {
		var c store.AccountCounts
		err := r.Scan(accountCountsDest(&c)...)
		return c, err
	}, accountsAfter, afterID, limitArg(limit))
}

// AccountPendingOrders reads through orders_account_status.
func (q queries) AccountPendingOrders(ctx context.Context, accountID int64, limit int) ([]store.Order, error) {
	return list(ctx, q, "pending orders of account", q.scanOrder, `SELECT `+orderColumns+` FROM orders
		WHERE account_id = ? AND status = '`+store.OrderPending+`' ORDER BY id LIMIT ?`, accountID, limitArg(limit))
}

func (q queries) SetAccountSettings(ctx context.Context, id int64, s store.AccountSettings) error {
	if err := q.lockAccount(ctx, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE accounts SET server_limit = ?, order_limit = ?, language = ? WHERE id = ?`,
		s.ServerLimit, s.OrderLimit, s.Language, id)
	return checkOneRow(res, err, "set settings of account", id)
}
