package sqlstore

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

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
