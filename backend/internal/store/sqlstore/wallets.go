package sqlstore

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// An account's wallet: its payments, the ledger that moves its balance and debt, and the
// watch that tells the low-balance worker which wallets changed.

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

// AddLedgerEntries moves the balances with one statement and writes the entries with another.
func (q queries) AddLedgerEntries(ctx context.Context, entries []store.LedgerEntry) error {
	_, err := q.addLedgerEntries(ctx, entries)
	return err
}

// AddLedgerEntry records one entry (AddLedgerEntries of one) and returns it with its id.
func (q queries) AddLedgerEntry(ctx context.Context, e store.LedgerEntry) (store.LedgerEntry, error) {
	ids, err := q.addLedgerEntries(ctx, []store.LedgerEntry{e})
	if err != nil {
		return store.LedgerEntry{}, err
	}
	e.ID = ids[0]
	return e, nil
}

// addLedgerEntries moves each account's balance and debt by the sum of its entries and writes
// them, returning their ids in no particular order.
func (q queries) addLedgerEntries(ctx context.Context, entries []store.LedgerEntry) ([]int64, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	deltas := map[int64][]int64{}
	args := make([]any, 0, 6*len(entries))
	for _, e := range entries {
		addDeltas(deltas, e.AccountID, int64(e.Amount), int64(e.Debt))
		args = append(args, e.AccountID, e.Amount, e.Debt, e.Kind, e.Reference, e.CreatedAt)
	}
	if err := q.addToAccounts(ctx, []string{"balance_micros", "debt_micros"}, deltas); err != nil {
		return nil, err
	}
	ids, err := list(ctx, q, "ledger entries", scanID, `INSERT INTO ledger (account_id, amount_micros, debt_micros, kind,
		reference, created_at) VALUES `+valuesRows(6, len(entries))+` RETURNING id`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: add %d ledger entries: %w", len(entries), err)
	}
	return ids, nil
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

// The wallet watch: every write that can move an account's hours_until_balance_zero (its
// balance, its pending orders, an instance's renewing price, a snapshot's billing) adds one to
// accounts.wallet_seq in the same statement batch, and the low-balance worker reads only the
// accounts whose wallet_seq is ahead of wallet_checked, through a partial index.

func (q queries) ChangedWallets(ctx context.Context, limit int) ([]store.WalletChange, error) {
	return list(ctx, q, "changed wallets", func(r rowScanner) (store.WalletChange, error) {
		var c store.WalletChange
		err := r.Scan(&c.AccountID, &c.Seq)
		return c, err
	}, `SELECT id, wallet_seq FROM accounts WHERE wallet_seq <> wallet_checked ORDER BY id LIMIT ?`, limit)
}

func (q queries) MarkWalletChecked(ctx context.Context, id, seq int64) error {
	if err := q.lockAccount(ctx, id); err != nil {
		return err
	}
	// A lower wallet_checked only: a worker that evaluated an older seq never hides a newer one.
	if _, err := q.exec(ctx, `UPDATE accounts SET wallet_checked = ? WHERE id = ? AND wallet_checked < ?`, seq, id, seq); err != nil {
		return fmt.Errorf("sqlstore: mark wallet of account %d checked: %w", id, err)
	}
	return nil
}

// SetLowBalanceAlert moves the account's low-balance alert level with a guarded UPDATE, so an
// alert is never sent twice.
func (q queries) SetLowBalanceAlert(ctx context.Context, id int64, from, to int) error {
	if err := q.lockAccount(ctx, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE accounts SET low_balance_alert = ? WHERE id = ? AND low_balance_alert = ?`, to, id, from)
	return guarded(res, err, "set low-balance alert of account", id)
}

// walletChanged records a change to the account's wallet.
func (q queries) walletChanged(ctx context.Context, accountID int64) error {
	if _, err := q.exec(ctx, `UPDATE accounts SET wallet_seq = wallet_seq + 1 WHERE id = ?`, accountID); err != nil {
		return fmt.Errorf("sqlstore: wallet change of account %d: %w", accountID, err)
	}
	return nil
}

// instanceWalletChanged records a change to the account's wallet when the update of in moves
// what the instance renews for: active, renew, plan or features. Other updates (a rename, a
// power action) leave the wallet alone.
func (q queries) instanceWalletChanged(ctx context.Context, in store.Instance, features string) error {
	if _, err := q.exec(ctx, `UPDATE accounts SET wallet_seq = wallet_seq + 1 WHERE id = ? AND EXISTS (
		SELECT 1 FROM instances WHERE id = ? AND (active <> ? OR renew <> ? OR plan_id <> ? OR features <> ?))`,
		in.AccountID, in.ID, in.Active, in.Renew, in.PlanID, features); err != nil {
		return fmt.Errorf("sqlstore: wallet change of instance %d: %w", in.ID, err)
	}
	return nil
}

// snapshotWalletChanged records a change to the account's wallet when the update of s moves
// its billing: its status or its hourly price.
func (q queries) snapshotWalletChanged(ctx context.Context, s store.Snapshot) error {
	if _, err := q.exec(ctx, `UPDATE accounts SET wallet_seq = wallet_seq + 1 WHERE id = ? AND EXISTS (
		SELECT 1 FROM snapshots WHERE id = ? AND (status <> ? OR price_micros <> ?))`,
		s.AccountID, s.ID, s.Status, s.Price); err != nil {
		return fmt.Errorf("sqlstore: wallet change of snapshot %d: %w", s.ID, err)
	}
	return nil
}
